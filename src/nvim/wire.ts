/**
 * The one place where values change shape between Node and Lua (see contract.ts): keys are
 * camelCase here and snake_case on the wire, and nulls are dropped on the way out (over msgpack
 * they would become vim.NIL, a truthy userdata, in Lua).
 */

const toSnake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const toCamel = (k: string) => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function convert(v: unknown, key: (k: string) => string, dropNull: boolean): unknown {
  if (Array.isArray(v)) return v.map((x) => convert(x, key, dropNull));
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
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
