/**
 * The one place where values change shape between Node and Lua (see contract.ts): keys are
 * camelCase here and snake_case on the wire, and nulls are dropped on the way out (over msgpack
 * they would become vim.NIL, a truthy userdata, in Lua).
 */

/**
 * Key names, converted once each: the same few dozen keys cross on every event (a 5,000-session
 * list, a render batch), and a regex replace per key was most of a big answer's conversion.
 * Bounded, since a map keyed by data (paths, ids) would otherwise grow it without end.
 */
function memo(f: (k: string) => string): (k: string) => string {
  const seen = new Map<string, string>();
  return (k) => {
    let out = seen.get(k);
    if (out === undefined) {
      out = f(k);
      if (seen.size < 4096) seen.set(k, out);
    }
    return out;
  };
}
const toSnake = memo((k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
const toCamel = memo((k) => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()));

function convert(v: unknown, key: (k: string) => string, dropNull: boolean): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = convert(v[i], key, dropNull);
    return out;
  }
  const out: Record<string, unknown> = {};
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    const x = o[k];
    if (x === undefined || (dropNull && x === null)) continue;
    out[key(k)] = convert(x, key, dropNull);
  }
  return out;
}

/** A value on its way to Lua: snake_case keys, no nulls. */
export function toWire(v: unknown): unknown {
  return convert(v, toSnake, true);
}

/** A value from Lua: camelCase keys. */
export function fromWire<T>(v: unknown): T {
  return convert(v, toCamel, false) as T;
}

export const wireName = toSnake;
export const localName = toCamel;
