/**
 * Schemas built on first use. A zod schema costs its construction when its module loads: the
 * generated ACP layer and the rest were ~400 constructions at every host's start, most of them
 * for messages a chat may never see. `lazy(make)` stands in for `make()`'s schema, with its exact
 * type, and builds it the first time anything touches it (a parse, `.extend`, `.shape`, a use
 * inside another schema); from then on every operation is the built schema's own, so
 * validation is exactly as strict as before. test/unit/host-start.test.ts holds the bundle's
 * top level to building none.
 */

const REAL = Symbol("lazy-schema.real");

/**
 * The built schema behind a `lazy` stand-in (any other value as it is). A schema put inside
 * another (a field, a union's variant) is best the built one: zod touches it on every parse, and
 * through the stand-in each touch is a trap (the generated code wraps its references in it).
 */
export function real<T>(x: T): T {
  return ((x as { [REAL]?: T })[REAL] ?? x) as T;
}

/** A stand-in for `make()`'s object, made on first touch (any property, `in`, keys, prototype). */
export function lazy<T extends object>(make: () => T): T {
  let built: T | undefined;
  const get = (): T => {
    built ??= make();
    return built;
  };
  return new Proxy(Object.create(null) as T, {
    get: (_t, k) => (k === REAL ? get() : Reflect.get(get(), k)),
    set: (_t, k, v) => Reflect.set(get(), k, v),
    has: (_t, k) => Reflect.has(get(), k),
    ownKeys: () => Reflect.ownKeys(get()),
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
    defineProperty: (_t, k, d) => Reflect.defineProperty(get(), k, d),
    deleteProperty: (_t, k) => Reflect.deleteProperty(get(), k),
    getOwnPropertyDescriptor: (_t, k) => {
      const d = Reflect.getOwnPropertyDescriptor(get(), k);
      // The proxy's own target is empty: a property it reports must be configurable there.
      if (d) d.configurable = true;
      return d;
    },
  });
}
