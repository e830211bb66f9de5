/**
 * Redaction runs on text an agent controls (a chunk, a title, a terminal's output), on the Node
 * host's one thread: every pattern must take time linear in the text's length. Each input is
 * 1 MB built to make a backtracking pattern try every split of a long name around every
 * occurrence of a secret word (the key-like `NAME=`, `--flag`, JSON `"key":` rules), or to
 * scan far from many starts. Before the patterns were made linear, 200 KB of "TOKEN" took
 * 3.9 s and 20 KB of "-token" more than 20 s; each input here now takes a few ms. The bound is
 * generous (a loaded CI machine), far below what a quadratic pattern would take.
 */
import { describe, expect, it } from "vitest";
import { PieceRedactor, Redactor, redactKeyLike } from "../../src/trace/redact.js";
import { cpuMs } from "../support/cpu-time.js";

const SIZE = 1024 * 1024;
const fill = (unit: string, head = "", tail = "") =>
  head + unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE) + tail;

/** One per pattern (and per part of a pattern that could backtrack). */
const ADVERSARIAL: Record<string, string> = {
  "NAME= (upper-case secret words, no =)": fill("TOKEN"),
  "NAME= (API_KEY runs)": fill("API_KEY"),
  "NAME= (a long name, then =)": fill("TOKEN", "", "=x"),
  "--flag (secret words, no value)": fill("-token"),
  "--flag (dash runs)": fill("-a", "", "-token"),
  "--flag (spaces after it)": fill(" ", "--token", "-"),
  "Bearer (spaces, no token)": fill(" ", "Bearer"),
  "Bearer (many)": fill("Bearer "),
  "sk- (dash runs)": fill("a-", "sk-", "_"),
  "ghp_ (a run, then _)": fill("a", "ghp_", "_"),
  "eyJ (no dots)": fill("a", "eyJ", " token"),
  "eyJ (one dot)": fill("a", "eyJaaaaaaaaa.", " token"),
  "AKIA (many)": fill("AKIA"),
  "boundary escapes": fill("\\nsk-"),
  "private key (headers)": fill("-----BEGIN PRIVATE KEY "),
  "private key (no end)": fill("-----END A", "-----BEGIN RSA PRIVATE KEY-----"),
  'JSON "key": (a secret word, no colon)': fill("token", '"'),
  'JSON "key": (many keys)': fill('"token'),
  'JSON "key": (unterminated values)': fill('"token":"\\"'),
  'JSON "name","value" pair': fill("password", '"name":"'),
};

describe("redaction is linear in the text's length", () => {
  const r = new Redactor(['Zq9"x\\Vb7Lm2Pw', "plain-secret-value"]);
  const BOUND_MS = 1500;

  it.each(Object.entries(ADVERSARIAL))("%s (1 MB)", (_name, s) => {
    const time = cpuMs; // CPU time, not the clock (test/support/cpu-time.ts)
    // Every entry point: key-like values, text, JSON text (the input as a string in a message,
    // and as raw text), a stream's pieces, a live tail, the regions of a stream.
    const took = {
      keyLike: time(() => redactKeyLike(s)),
      text: time(() => r.text(s)),
      jsonString: time(() => r.json(JSON.stringify({ text: s }))),
      jsonRaw: time(() => r.json(s)),
      pieces: time(() => new PieceRedactor(r).pieces("s", [s.slice(0, SIZE / 2), s.slice(SIZE / 2)])),
      tail: time(() => r.tail(s, false)),
    };
    for (const [what, ms] of Object.entries(took)) expect({ what, slow: ms > BOUND_MS }).toEqual({ what, slow: false });
  });

  it("still finds what the patterns are for", () => {
    expect(redactKeyLike("export API_KEY=abcdef123456 and GH_TOKEN='zzzzzzzz'")).toBe(
      "export API_KEY=[REDACTED] and GH_TOKEN='[REDACTED]'",
    );
    expect(redactKeyLike("run --api-key abcdef123456 --github-token=qwertyuiop")).toBe(
      "run --api-key [REDACTED] --github-token=[REDACTED]",
    );
    expect(redactKeyLike("Authorization: Bearer abcdefghijklmnop")).toBe("Authorization: Bearer [REDACTED]");
    const json = r.json(JSON.stringify({ my_token: "abc", env: [{ name: "X_PASSWORD", value: "v" }] }));
    expect(JSON.parse(json)).toEqual({ my_token: "[REDACTED]", env: [{ name: "X_PASSWORD", value: "[REDACTED]" }] });
  });
});
