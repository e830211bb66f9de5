/**
 * Secret redaction for everything that leaves the process as text: trace, log, transcript notes,
 * error messages. Two rules: values of fields whose name looks secret, and any occurrence of a
 * known secret value (the configured env values of the agent).
 */
const SECRET_KEY = /(token|secret|password|passwd|api[-_]?key|apikey|authorization|auth[-_]?header|cookie|credential|private[-_]?key)/i;
export const REDACTED = "[REDACTED]";
const SECRET_WORDS = "token|secret|password|passwd|api[-_]?key|apikey|authorization|auth[-_]?header|cookie|credential|private[-_]?key";
const SECRET_HINT = new RegExp(SECRET_WORDS, "i");
/** `"<key with a secret word>": "<string>" | <number>` in JSON text. */
const SECRET_FIELD = new RegExp(String.raw`"([^"\\]*(?:${SECRET_WORDS})[^"\\]*)":(?:"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*)`, "gi");
/** `"name": "<secret-looking>", "value": "<string>"` (env variables, HTTP headers). */
const SECRET_PAIR = new RegExp(String.raw`"name":"([^"\\]*(?:${SECRET_WORDS})[^"\\]*)","value":"(?:[^"\\]|\\.)*"`, "gi");

export class Redactor {
  private readonly values: string[];

  /** `secrets`: literal values never to show (short ones are ignored: they would redact noise). */
  constructor(secrets: Iterable<string> = []) {
    this.values = [...new Set([...secrets].filter((s) => typeof s === "string" && s.length >= 6))].sort((a, b) => b.length - a.length);
  }

  /** Whether there are secret values to look for. */
  get active(): boolean {
    return this.values.length > 0;
  }

  /** A copy of `value` with secret fields and secret values replaced. */
  value<T>(value: T): T {
    return this.walk(value, 0) as T;
  }

  /**
   * Redact serialised JSON without parsing it: secret values anywhere, and the values of
   * secret-looking keys (and of `{"name": "<secret-looking>", "value": ...}` pairs). One pass
   * of string work per frame, so a trace keeps up with an agent streaming thousands of updates.
   */
  json(text: string): string {
    let out = this.text(text);
    if (!SECRET_HINT.test(out)) return out;
    out = out.replace(SECRET_FIELD, (_m, key: string) => `"${key}":"${REDACTED}"`);
    out = out.replace(SECRET_PAIR, (_m, name: string) => `"name":"${name}","value":"${REDACTED}"`);
    return out;
  }

  /** How many characters at the end of `s` could begin a secret (to hold back from a stream). */
  holdBack(s: string): number {
    let keep = 0;
    for (const v of this.values) {
      for (let k = Math.min(v.length - 1, s.length); k > keep; k--) {
        if (s.endsWith(v.slice(0, k))) {
          keep = k;
          break;
        }
      }
    }
    return keep;
  }

  text(s: string): string {
    let out = s;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  }

  private walk(v: unknown, depth: number): unknown {
    if (typeof v === "string") return this.text(v);
    if (depth > 64 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => this.walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      out[k] = SECRET_KEY.test(k) && (typeof x === "string" || typeof x === "number") ? REDACTED : this.walk(x, depth + 1);
    }
    // `{name: "API_KEY", value: "..."}` pairs (terminal env, HTTP headers) hide the value too.
    if (typeof out.name === "string" && SECRET_KEY.test(out.name) && "value" in out) out.value = REDACTED;
    return out;
  }
}
