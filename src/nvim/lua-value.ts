/**
 * Values cross to Lua over msgpack, where `null`/`undefined` become `vim.NIL` (a truthy
 * userdata): drop such keys so Lua sees absent fields as nil.
 */
export function toLua<T>(v: T): T {
  if (Array.isArray(v)) return v.map(toLua) as T;
  if (v === null || typeof v !== "object") return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) if (x !== undefined && x !== null) out[k] = toLua(x);
  return out as T;
}
