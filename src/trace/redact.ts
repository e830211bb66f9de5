/**
 * Secret redaction for everything that leaves the process as text: trace, log, transcript,
 * titles, plans, terminal tails, error messages. Three rules: values of fields whose name looks
 * secret, any occurrence of a known secret value (the agent's configured environment, and
 * command-line arguments that carry a key), and values that look like API keys whoever sent
 * them (`sk-…`, `ghp_…`, `AKIA…`, `Bearer …`, `API_KEY=…`, private key blocks). In JSON text
 * (Redactor.json: the trace) a known value is looked for by value, in every string after its
 * escapes are undone, not in the wire text: `"` is `\"` there, and any character may be `\uXXXX`.
 */
const SECRET_KEY =
  /(token|secret|password|passwd|api[-_]?key|apikey|authorization|auth[-_]?header|cookie|credential|private[-_]?key)/i;
export const REDACTED = "[REDACTED]";
const SECRET_WORDS =
  "token|secret|password|passwd|api[-_]?key|apikey|authorization|auth[-_]?header|cookie|credential|private[-_]?key";
const SECRET_HINT = new RegExp(SECRET_WORDS, "i");
/*
 * Every pattern here runs in time linear in the text's length, whatever the text (an agent
 * controls it: one 400 KB chunk of "TOKEN" repeated must not stall the host). A name that must
 * hold a secret word is matched as a lookahead that scans the name lazily for the word, then the
 * name is taken whole and atomically (`(?=(x*))\1`: a backreference is never given back), so the
 * engine never tries each split of a name around each occurrence of a word; and a pattern may
 * start only where a name starts (after a quote, a word boundary, a character outside the
 * name's class), so the names scanned do not overlap. test/unit/redact-linear.test.ts holds
 * every pattern to this with 1 MB adversarial inputs.
 */
/** A JSON string's characters up to its end or first escape, holding a secret word: group `n`. */
const secretName = (n: number) => String.raw`(?=[^"\\]*?(?:${SECRET_WORDS}))(?=([^"\\]*))` + "\\" + n;
/** `"<key with a secret word>": "<string>" | <number>` in JSON text. */
const SECRET_FIELD = new RegExp(String.raw`"(${secretName(2)})":(?:"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*)`, "gi");
/** A count of tokens (`inputTokens`, `max_tokens`): its number is no secret (the turn's usage). */
const COUNT_KEY = /tokens$/i;
function isCount(key: string, match: string): boolean {
  return COUNT_KEY.test(key) && !match.endsWith('"');
}
/** `"name": "<secret-looking>", "value": "<string>"` (env variables, HTTP headers). */
const SECRET_PAIR = new RegExp(String.raw`"name":"(${secretName(2)})","value":"(?:[^"\\]|\\.)*"`, "gi");

/**
 * Prefixes of well-known API key formats (OpenAI/Anthropic, GitHub, Slack, AWS, Google, GitLab,
 * Hugging Face, npm, JWTs). A token that starts with one and is long enough is a key.
 */
const KEY_PREFIXES = [
  "sk-",
  "ghp_",
  "gho_",
  "ghu_",
  "ghs_",
  "ghr_",
  "github_pat_",
  "xoxa-",
  "xoxb-",
  "xoxp-",
  "xoxo-",
  "xoxr-",
  "xoxs-",
  "AKIA",
  "ASIA",
  "AIza",
  "glpat-",
  "hf_",
  "npm_",
  "eyJ",
];
/** Characters of a key token (JSON string escapes and quotes end it). */
const TOKEN_CHAR = /[A-Za-z0-9_.-]/;
/** Start of a token: not after a token character (`\n` and friends in JSON text count as a boundary). */
const BOUNDARY = String.raw`(?<=^|[^A-Za-z0-9_.\-]|\\[nrtbf])`;
const KEY_TOKEN = String.raw`(?:sk-[A-Za-z0-9_\-]{16,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abposr]-[A-Za-z0-9\-]{10,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_\-]{30,}|glpat-[A-Za-z0-9_\-]{20,}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{30,}|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})(?![A-Za-z0-9_\-])`;
/** `Bearer <token>`; `API_KEY=<value>` (environment style); `--api-key <value>` / `--token=<value>`. */
const KEY_CONTEXT =
  String.raw`(?<bearer>\bBearer\s+)[A-Za-z0-9._~+/\-]{12,}=*` +
  String.raw`|(?<assign>\b(?=[A-Z0-9_]*?(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD))(?=(?<envName>[A-Z0-9_]*))\k<envName>=["']?)[^\s"'\\]{6,}` +
  // A flag starts where a run of its characters starts (`x--token` is no flag).
  String.raw`|(?<flag>(?<![a-z\-])--?(?=[a-z\-]*?(?:api-key|apikey|token|secret|password))(?=(?<flagName>[a-z\-]*))\k<flagName>(?:=|\s+)["']?)[^\s"'\\\-][^\s"'\\]{5,}`;
const PRIVATE_KEY = String.raw`-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)`;
const KEY_LIKE = new RegExp(`${BOUNDARY}${KEY_TOKEN}|${KEY_CONTEXT}|${PRIVATE_KEY}`, "g");
/** A cheap test before the full patterns run (most text has none of these). */
const KEY_HINT =
  /sk-|gh[pousr]_|github_pat_|xox[abposr]-|AKIA|ASIA|AIza|glpat-|hf_|npm_|eyJ|Bearer|API_?KEY|TOKEN|SECRET|PASSW|api-?key|token|secret|password|PRIVATE KEY/;
/** The end of a stream that may be the start of a key-like value still arriving. */
const PARTIAL_CONTEXT =
  /(?:\bBearer(?:\s+[A-Za-z0-9._~+/-]*)?|\b[A-Z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD)[A-Z0-9_]*(?:=["']?[^\s"'\\]*)?|--?[a-z-]*(?:api-key|apikey|token|secret|password)[a-z-]*(?:(?:=|\s+)["']?[^\s"'\\]*)?)$/;
/** Words that begin a key's context, held back while they may still be arriving. */
const CONTEXT_WORDS = ["Bearer", "-----BEGIN"];
/** Flags whose next argument (or `=value`) is a secret, in an agent's command line. */
const SECRET_FLAG = /^--?[\w-]*(?:key|token|secret|password|passwd|auth|credential)[\w-]*$/i;

/**
 * Whether `s` holds a hint of a key-like value or of a secret field name. Text without one and
 * without a known secret value is left as it is by Redactor.json and Redactor.text; so is any
 * join of such texts whose seams are JSON punctuation (`"`, `,`, `:`, braces), since every hint
 * is made of letters, digits, `-`, `_` and spaces only.
 */
export function hasSecretHint(s: string): boolean {
  return KEY_HINT.test(s) || SECRET_HINT.test(s);
}

type KeyGroups = { bearer?: string; assign?: string; flag?: string };
/** The context a key-like match keeps shown (`Bearer `, `NAME=`, `--flag `), or "". */
function contextOf(g: KeyGroups | undefined): string {
  return g?.bearer ?? g?.assign ?? g?.flag ?? "";
}

/** Every key-like value replaced (see KEY_LIKE). */
export function redactKeyLike(s: string): string {
  if (!KEY_HINT.test(s)) return s;
  return s.replace(KEY_LIKE, (...args: unknown[]) => `${contextOf(args.at(-1) as KeyGroups)}${REDACTED}`);
}

/**
 * The secrets an agent's command carries: every environment value, and command-line values
 * that follow a secret-looking flag (`--api-key sk-…`, `--token=…`).
 */
export function commandSecrets(cmd: { args?: string[]; env?: Record<string, string> }): string[] {
  const out = Object.values(cmd.env ?? {});
  const args = cmd.args ?? [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const eq = a.indexOf("=");
    if (eq > 0 && SECRET_FLAG.test(a.slice(0, eq))) out.push(a.slice(eq + 1));
    else if (SECRET_FLAG.test(a) && i + 1 < args.length) out.push(args[i + 1]!);
  }
  return out;
}

/** Escapes JSON.stringify never writes (`\u` of a printable character, `\/`): text to canonicalise. */
const ODD_ESCAPE = /\\[u/]/;
/** A JSON escape sequence (a surrogate pair as one), or an escaped character. */
const ESCAPE = /\\u([dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})|\\(?:u([0-9a-fA-F]{4})|([\s\S]))/g;

/** `v` as JSON.stringify writes it inside a string (`"` → `\"`, `\` → `\\`, controls escaped). */
function escaped(v: string): string {
  return JSON.stringify(v).slice(1, -1);
}

/**
 * JSON text with every escape written the way JSON.stringify writes it (`\u0078` → `x`,
 * `\/` → `/`, `\u0022` → `\"`), other text unchanged: a string's value is in it as escaped()
 * of that value, however its sender chose to escape it. Linear; no parsing.
 */
function canonicalJson(text: string): string {
  if (!ODD_ESCAPE.test(text)) return text;
  return text.replace(ESCAPE, (m, pair?: string, hex?: string, c?: string) => {
    if (pair !== undefined) return String.fromCharCode(parseInt(pair.slice(0, 4), 16), parseInt(pair.slice(6), 16));
    if (hex !== undefined) return escaped(String.fromCharCode(parseInt(hex, 16)));
    return c === "/" ? "/" : m;
  });
}

/** `{"name": …, "value": <string>}` lists of an MCP server in session/new, load, resume or fork. */
const MCP_SERVERS = '"mcpServers"';

export class Redactor {
  private readonly values: string[];
  /** escaped() of each value that has characters JSON escapes, once and twice (for JSON text). */
  private readonly escapedValues: string[];

  /** `secrets`: literal values never to show (short ones are ignored: they would redact noise). */
  constructor(secrets: Iterable<string> = []) {
    this.values = [...new Set([...secrets].filter((s) => typeof s === "string" && s.length >= 6))].sort(
      (a, b) => b.length - a.length,
    );
    // Escaped once (a string in a message) and twice (a message cut in the trace is a string).
    this.escapedValues = this.values.flatMap((v) => (escaped(v) === v ? [] : [escaped(v), escaped(escaped(v))]));
  }

  /**
   * Whether JSON text `json` may hold a known secret value in one of its strings, however the
   * string's characters are escaped (`"` as `\"`, any character as `\uXXXX`). No false negative
   * for valid JSON; a false positive only costs a parse (see json()).
   */
  jsonHasKnownValue(json: string): boolean {
    if (this.values.length === 0) return false;
    if (this.hasKnownValue(json)) return true;
    const text = canonicalJson(json);
    if (text !== json) for (const v of this.values) if (text.includes(v)) return true;
    for (const v of this.escapedValues) if (text.includes(v)) return true;
    return false;
  }

  /** Whether there are known secret values to look for (key-like values are looked for always). */
  get active(): boolean {
    return this.values.length > 0;
  }

  /** Whether `s` contains one of the known secret values. */
  hasKnownValue(s: string): boolean {
    for (const v of this.values) if (s.includes(v)) return true;
    return false;
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
    let out = this.jsonHasKnownValue(text) || text.includes(MCP_SERVERS) ? this.parsedValues(text) : text;
    out = redactKeyLike(out);
    if (!SECRET_HINT.test(out)) return out;
    out = out.replace(SECRET_FIELD, (m: string, key: string) => (isCount(key, m) ? m : `"${key}":"${REDACTED}"`));
    out = out.replace(SECRET_PAIR, (_m, name: string) => `"name":"${name}","value":"${REDACTED}"`);
    return out;
  }

  /**
   * JSON text with known secret values replaced in every string (keys too) of its parsed value,
   * so no escaping hides one; and the env and header values of MCP servers (`mcpServers`),
   * secrets whatever their names and lengths. Serialised again. Text that is not JSON gets the
   * values replaced as they are and as JSON escapes them.
   */
  private parsedValues(text: string): string {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      let out = this.literal(text);
      for (const v of this.escapedValues) if (out.includes(v)) out = out.split(v).join(REDACTED);
      return out;
    }
    return JSON.stringify(this.strings(parsed, 0, false));
  }

  /** A copy of `v` with known values replaced in every string (`mcp`: v is in an `mcpServers` list). */
  private strings(v: unknown, depth: number, mcp: boolean): unknown {
    if (typeof v === "string") return this.deepLiteral(v);
    if (depth > 256 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => this.strings(x, depth + 1, mcp));
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const key = this.deepLiteral(k);
      if (mcp && (k === "env" || k === "headers") && Array.isArray(x)) {
        out[key] = x.map((p) =>
          p && typeof p === "object" && "value" in p
            ? { ...(this.strings(p, depth + 2, false) as object), value: REDACTED }
            : this.strings(p, depth + 2, false),
        );
      } else if (k === "mcpServers" && Array.isArray(x)) {
        out[key] = x.map((s) => this.strings(s, depth + 2, true));
      } else out[key] = this.strings(x, depth + 1, false);
    }
    return out;
  }

  /** literal(), and the values as JSON escapes them (a string that holds serialised JSON: a clipped payload). */
  private deepLiteral(s: string): string {
    let out = this.literal(s);
    if (out.includes("\\")) for (const v of this.escapedValues) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  }

  /** How many characters at the end of `s` could begin a known secret (to hold back from a stream). */
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

  /**
   * A stream's text so far (`s`: what was held back before plus what came now) split into what
   * can be shown now, redacted, and what must wait for more text: the start of a known secret,
   * or a token that is or may become a key-like value. The held part is cut at a token's start,
   * so no key is ever shown in two pieces. `held` is already free of known secrets.
   */
  split(s: string): { shown: string; held: string } {
    const lit = this.literal(s);
    let keep = Math.max(this.holdBack(lit), partialKey(lit));
    if (keep === 0) return { shown: redactKeyLike(lit), held: "" };
    let cut = lit.length - keep;
    while (cut > 0 && TOKEN_CHAR.test(lit[cut - 1]!)) cut--;
    keep = lit.length - cut;
    return { shown: redactKeyLike(lit.slice(0, cut)), held: lit.slice(cut) };
  }

  /** A live tail (terminal output): redacted, and while it grows, without a possibly unfinished secret at its end. */
  tail(s: string, finished: boolean): string {
    if (finished) return this.text(s);
    return this.split(s).shown;
  }

  text(s: string): string {
    return redactKeyLike(this.literal(s));
  }

  /**
   * Where secrets are in `s`, as [start, end) ranges: known values, key-like values (without
   * their `Bearer `/`NAME=`/`--flag ` context), and an end that may begin either (four or more
   * characters of a known value, a token starting with a key prefix, a key's context).
   * `endOnly`: only that end.
   */
  regions(s: string, endOnly = false): [number, number][] {
    const out: [number, number][] = [];
    if (!endOnly)
      for (const v of this.values)
        for (let i = s.indexOf(v); i >= 0; i = s.indexOf(v, i + v.length)) out.push([i, i + v.length]);
    if (!endOnly && KEY_HINT.test(s)) {
      KEY_LIKE.lastIndex = 0;
      for (let m = KEY_LIKE.exec(s); m; m = KEY_LIKE.exec(s)) {
        const context = contextOf(m.groups as KeyGroups).length;
        out.push([m.index + context, m.index + m[0].length]);
        if (m[0].length === 0) KEY_LIKE.lastIndex++;
      }
    }
    const lit = this.holdBack(s);
    let end = lit >= 4 ? lit : 0;
    let i = s.length;
    while (i > 0 && TOKEN_CHAR.test(s[i - 1]!)) i--;
    const token = s.slice(i);
    if (KEY_PREFIXES.some((p) => token.startsWith(p))) end = Math.max(end, token.length);
    const m = PARTIAL_CONTEXT.exec(s.length > 160 ? s.slice(-160) : s);
    if (m) end = Math.max(end, m[0].length);
    if (end > 0) out.push([s.length - end, s.length]);
    return out;
  }

  private literal(s: string): string {
    let out = s;
    for (const v of this.values) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  }

  private walk(v: unknown, depth: number): unknown {
    if (typeof v === "string") return this.text(v);
    if (depth > 64 || v === null || typeof v !== "object") return v;
    if (Array.isArray(v)) return v.map((x) => this.walk(x, depth + 1));
    const out: Record<string, unknown> = {};
    // Base64 bytes (an image's or audio's `data`, a resource's `blob`) are data, not text: a
    // key-like run inside them is chance, and "redacting" it would corrupt the file. They are
    // never shown as text (media lines show type and size; the trace keeps their length).
    const bytes =
      (v as { type?: unknown }).type === "image" || (v as { type?: unknown }).type === "audio" ? "data" : "blob";
    for (const [k, x] of Object.entries(v)) {
      if (k === bytes && typeof x === "string") out[k] = x;
      else
        out[k] =
          SECRET_KEY.test(k) && (typeof x === "string" || (typeof x === "number" && !COUNT_KEY.test(k)))
            ? REDACTED
            : this.walk(x, depth + 1);
    }
    // `{name: "API_KEY", value: "..."}` pairs (terminal env, HTTP headers) hide the value too.
    if (typeof out.name === "string" && SECRET_KEY.test(out.name) && "value" in out) out.value = REDACTED;
    return out;
  }
}

/**
 * Redacts the pieces of a stream (message chunks, terminal output) one by one, each kept as its
 * own piece: for a log that records what crossed the wire. A secret split across pieces is
 * found in the text around the boundary, and the part of it in each piece is hidden; an end
 * that may begin a secret (a key prefix, the start of a known secret) is hidden too. Secrets
 * wholly inside one piece are left to the redaction of the piece itself (Redactor.text/json),
 * which must follow.
 */
export class PieceRedactor {
  /** Per stream: the end of what came so far, kept only while it may begin a secret. */
  private readonly carry = new Map<string, string>();

  constructor(private readonly redactor: Redactor) {}

  /** `text`, a piece of stream `stream`, with every character of a secret hidden. */
  piece(stream: string, text: string): string {
    const tail = this.carry.get(stream) ?? "";
    const w = tail + text;
    // Only an end that may begin a secret can carry one into the next piece.
    if (this.redactor.holdBack(w) > 0 || partialKey(w) > 0) this.carry.set(stream, w.length > 256 ? w.slice(-256) : w);
    else if (tail) this.carry.delete(stream);
    // Nothing carried in and no end that may begin a secret: regions(w, true) would find nothing.
    else return text;
    // Secrets wholly inside this piece are the frame's own redaction's job.
    const spans = this.redactor
      .regions(w, tail === "")
      .map(([a, b]) => [Math.max(a, tail.length) - tail.length, b - tail.length] as const)
      .filter(([a, b]) => b > a && b > 0)
      .sort((x, y) => x[0] - y[0]);
    if (spans.length === 0) return text;
    let out = "";
    let at = 0;
    for (const [a, b] of spans) {
      if (b <= at) continue;
      out += text.slice(at, Math.max(a, at)) + REDACTED;
      at = b;
    }
    return out + text.slice(at);
  }

  /**
   * Consecutive pieces of stream `stream` at once, each kept as its own piece: every character
   * of a secret in them hidden, whether it lies inside one piece, across pieces, or across the
   * end of what came before; and an end that may begin a secret. One pass over their joined
   * text. Unlike piece(), this does the pieces' whole redaction (nothing needs to follow), and
   * only the end of the last piece is held suspect (the pieces between are known).
   */
  pieces(stream: string, texts: string[]): string[] {
    const tail = this.carry.get(stream) ?? "";
    const joined = texts.length === 1 ? texts[0]! : texts.join("");
    const w = tail + joined;
    const suspectEnd = this.redactor.holdBack(w) > 0 || partialKey(w) > 0;
    if (suspectEnd) this.carry.set(stream, w.length > 256 ? w.slice(-256) : w);
    else if (tail) this.carry.delete(stream);
    if (!tail && !suspectEnd && !hasSecretHint(w) && !this.redactor.hasKnownValue(w)) return texts;
    const spans = this.redactor
      .regions(w)
      .map(([a, b]) => [Math.max(a, tail.length) - tail.length, b - tail.length] as const)
      .filter(([a, b]) => b > a && b > 0)
      .sort((x, y) => x[0] - y[0]);
    if (spans.length === 0) return texts;
    const out: string[] = [];
    let start = 0;
    let first = 0;
    for (const t of texts) {
      const end = start + t.length;
      let piece = "";
      let at = start;
      while (first < spans.length && spans[first]![1] <= start) first++;
      for (let i = first; i < spans.length && spans[i]![0] < end; i++) {
        const [a, b] = spans[i]!;
        if (b <= at) continue;
        piece += joined.slice(at, Math.max(a, at)) + REDACTED;
        at = Math.min(b, end);
        if (b >= end) break;
      }
      out.push(at === start ? t : piece + joined.slice(at, end));
      start = end;
    }
    return out;
  }

  /** The stream ended (or is forgotten). */
  end(stream: string): void {
    this.carry.delete(stream);
  }
}

/** Length of the end of `s` that may be a key-like value still arriving (0: none). */
function partialKey(s: string): number {
  // The trailing token: a key prefix, or the start of one ("s", "sk", "gh", "AKI", "Bear").
  let i = s.length;
  while (i > 0 && TOKEN_CHAR.test(s[i - 1]!)) i--;
  const token = s.slice(i);
  let keep = 0;
  if (
    token &&
    (KEY_PREFIXES.some((p) => token.startsWith(p) || p.startsWith(token)) ||
      CONTEXT_WORDS.some((w) => w.startsWith(token)))
  )
    keep = token.length;
  // `Bearer …`, `API_KEY=…`, `--token …`: from where the context starts.
  const end = s.length > 160 ? s.slice(-160) : s;
  const m = PARTIAL_CONTEXT.exec(end);
  if (m) keep = Math.max(keep, m[0].length);
  // A private key block that has not ended yet.
  const begin = s.lastIndexOf("-----BEGIN");
  if (begin >= 0 && s.indexOf("-----END", begin) < 0) keep = Math.max(keep, s.length - begin);
  return keep;
}
