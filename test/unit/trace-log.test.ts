/** The trace: lines as they were before the fast paths, written to the file in order, batched. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Frame } from "../../src/protocol/jsonrpc.js";
import { PieceRedactor, Redactor, REDACTED } from "../../src/trace/redact.js";
import { TraceLog } from "../../src/trace/trace-log.js";

const ANTHROPIC = "sk-ant-api03-Zx9_Qw8-Lm7Kp6Jn5Hb4Gv3Fc2Dx1Sz0Aa";
const KNOWN = "planted-secret-value-4242";

function wire(method: string | undefined, id: Frame["id"], body: Record<string, unknown>, kind: Frame["kind"] = "notification"): Frame {
  const msg = { jsonrpc: "2.0", ...(id !== undefined ? { id } : {}), ...(method ? { method } : {}), ...body };
  const text = JSON.stringify(msg);
  return { direction: "in", kind, id, method, size: text.length + 1, payload: msg, text };
}

/** The line as the trace made it before: JSON.stringify of the head, the wire text spliced, json() over it all. */
function reference(r: Redactor, f: Frame, time: string): string {
  const head = JSON.stringify({ time, dir: f.direction, kind: f.kind, id: f.id, method: f.method, size: f.size });
  return r.json(`${head.slice(0, -1)},"payload":${f.text}}`);
}

const frames: Frame[] = [
  wire("session/update", undefined, { params: { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t", title: "plain" } } }),
  wire("session/update", undefined, { params: { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t", title: `key ${ANTHROPIC}` } } }),
  wire("fs/read_text_file", 7, { params: { path: "/x", token: "abc123" } }, "request"),
  wire("fs/read_text_file", "req-token-1", { params: { path: "/x" } }, "request"),
  wire("_secret/method", undefined, { params: {} }),
  wire("_x/api_key_setter", 3, { params: {} }, "request"),
  wire(undefined, 9, { result: { env: [{ name: "API_KEY", value: "v" }] } }, "response"),
  wire("session/update", undefined, { params: { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t", title: `has ${KNOWN} inside` } } }),
  wire("é/ünïcode\"quote", "id\"q", { params: { text: "Bearer abcdefghijklmnop" } }, "request"),
  wire("session/update", null, { params: {} }, "invalid"),
];

describe("trace lines", () => {
  it("are the same text as JSON.stringify of the head plus json() of the whole line", () => {
    const r = new Redactor([KNOWN]);
    const log = new TraceLog(r);
    for (const f of frames) log.frame(f);
    const got = log.list().map((e) => JSON.stringify(e));
    const want = frames.map((f, i) => JSON.stringify(JSON.parse(reference(r, f, log.list()[i]!.time))));
    expect(got).toEqual(want);
    const all = got.join("\n");
    for (const s of [ANTHROPIC, KNOWN, "abc123", "abcdefghijklmnop"]) expect(all).not.toContain(s);
    expect(all).toContain(REDACTED);
  });

  it("of message chunks are the same text as json() of the whole line, whatever the chunks and their wire shape", () => {
    const r = new Redactor([KNOWN, "123456"]);
    const log = new TraceLog(r);
    const ref = new PieceRedactor(r);
    const chunk = (sessionId: string, text: string, order = false) =>
      wire("session/update", undefined, { params: order ? { update: { content: { text, type: "text" }, sessionUpdate: "agent_message_chunk" }, sessionId } : { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } } });
    const texts = ["w1 ", "w2 ", "", "token", "my TOKEN", " is ", "x", "\"", "}}", "text", "session", "a\nb", "é✓", "PRIVATE", " KEY", "sk", "-", "abc", "API_KEY", "123456", `key ${ANTHROPIC} ok`, "Bearer abcdefghijklmnop ok", "OPENAI_API_KEY=hunter2hunter2 x", `has ${KNOWN} x`, "w3 "];
    const cases: Frame[] = [];
    for (const sid of ["s1", "s-token-2", "s1"]) for (const [i, t] of texts.entries()) cases.push(chunk(sid, t, i % 7 === 3));
    let compared = 0;
    for (const f of cases) {
      const p = f.payload as { params: { sessionId: string; update: { content: { text: string } } } };
      const text = p.params.update.content.text;
      const changed = ref.piece(`${p.params.sessionId}:agent_message_chunk`, text) !== text;
      log.frame(f);
      if (changed) continue; // redacted as a piece of its stream: the other path, unchanged
      const entries = log.list();
      const last = entries[entries.length - 1]!;
      expect(JSON.stringify(last)).toBe(JSON.stringify(JSON.parse(reference(r, f, last.time))));
      compared++;
    }
    expect(compared).toBeGreaterThan(40);
  });

  it("hide a secret split across message chunks, in memory and in the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-trace-"));
    const file = join(dir, "t.jsonl");
    const log = new TraceLog(new Redactor([KNOWN]), file);
    const text = `a ${ANTHROPIC} b ${KNOWN} c`;
    for (let i = 0; i < text.length; i += 3) log.frame(wire("session/update", undefined, { params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: text.slice(i, i + 3) } } } }));
    log.flush();
    const written = readFileSync(file, "utf8");
    const memory = JSON.stringify(log.list());
    for (const s of [written, memory]) {
      const texts = s.match(/"text":"(?:[^"\\]|\\.)*"/g)!.map((t) => JSON.parse(t.slice(7)) as string).join("");
      expect(texts).not.toContain(ANTHROPIC.slice(0, 12));
      expect(texts).not.toContain(ANTHROPIC.slice(12));
      expect(texts).not.toContain(KNOWN.slice(0, 10));
      for (let k = 0; k + 8 <= ANTHROPIC.length; k++) expect(texts).not.toContain(ANTHROPIC.slice(k, k + 8));
      expect(texts.startsWith("a ")).toBe(true);
      expect(texts.endsWith(" c")).toBe(true);
    }
  });
});

describe("trace file", () => {
  it("is written in batches, asynchronously, in the order of the frames; flush() on close loses nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-trace-"));
    const file = join(dir, "t.jsonl");
    const log = new TraceLog(new Redactor([]), file, 100);
    const n = 20000;
    const chunk = (i: number) => wire("session/update", undefined, { params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `w${i}` } } } });
    for (let i = 0; i < n / 2; i++) log.frame(chunk(i));
    // Nothing is written on the frame's own turn of the event loop.
    expect(() => readFileSync(file)).toThrow();
    // The batch goes out on a timer, off the event loop; more frames come meanwhile.
    await new Promise((r) => setTimeout(r, 210));
    for (let i = n / 2; i < n; i++) log.frame(chunk(i));
    log.note("lifecycle", "closed");
    // Close while the first batch may still be in flight: the rest follows it, in order.
    log.flush();
    await new Promise((r) => setTimeout(r, 300));
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(n + 1);
    for (let i = 0; i < n; i++) expect(JSON.parse(lines[i]!).payload.params.update.content.text).toBe(`w${i}`);
    expect(JSON.parse(lines[n]!).payload).toBe("closed");
    // The ring keeps the newest 100, the same lines as the file.
    expect(log.list().map((e) => JSON.stringify(e))).toEqual(lines.slice(-100).map((l) => JSON.stringify(JSON.parse(l))));
  });
});
