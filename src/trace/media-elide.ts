/**
 * Images, audio and binary resources in a traced message: their base64 data is replaced by its
 * length, so that no trace or log line ever holds the bytes (a screenshot would be a megabyte of
 * noise, and may show what the user did not mean to log).
 */

/** A cheap look at a frame's wire text: may it hold an image, audio or a blob? (`"\u0069mage"` is "image" too.) */
export function mayHoldMedia(text: string | undefined): boolean {
  return (
    text === undefined ||
    text.includes('"image"') ||
    text.includes('"audio"') ||
    text.includes('"blob"') ||
    text.includes("\\u")
  );
}

/** What replaces base64 data of `n` characters. */
export function elided(n: number): string {
  return `[base64 elided: ${n} chars]`;
}

/**
 * A copy of `v` with the `data` of every `image`/`audio` content block and the `blob` of every
 * embedded resource replaced by its length; `v` itself when it holds none (same object).
 */
export function elideMedia(v: unknown, depth = 0): unknown {
  if (depth > 32 || v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < v.length; i++) {
      const x = elideMedia(v[i], depth + 1);
      if (x !== v[i]) (out ??= [...v])[i] = x;
    }
    return out ?? v;
  }
  const o = v as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  if ((o.type === "image" || o.type === "audio") && typeof o.data === "string")
    out = { ...o, data: elided(o.data.length) };
  if (typeof o.blob === "string" && typeof o.uri === "string") out = { ...(out ?? o), blob: elided(o.blob.length) };
  for (const [k, x] of Object.entries(o)) {
    if (out && (k === "data" || k === "blob") && typeof x === "string") continue;
    const y = elideMedia(x, depth + 1);
    if (y !== x) (out ??= { ...o })[k] = y;
  }
  return out ?? v;
}
