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

function wire(
  method: string | undefined,
  id: Frame["id"],
  body: Record<string, unknown>,
  kind: Frame["kind"] = "notification",
): Frame {
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
  wire("session/update", undefined, {
    params: { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t", title: "plain" } },
  }),
  wire("session/update", undefined, {
    params: {
      sessionId: "s",
      update: { sessionUpdate: "tool_call_update", toolCallId: "t", title: `key ${ANTHROPIC}` },
    },
  }),
  wire("fs/read_text_file", 7, { params: { path: "/x", token: "abc123" } }, "request"),
  wire("fs/read_text_file", "req-token-1", { params: { path: "/x" } }, "request"),
  wire("_secret/method", undefined, { params: {} }),
  wire("_x/api_key_setter", 3, { params: {} }, "request"),
  wire(undefined, 9, { result: { env: [{ name: "API_KEY", value: "v" }] } }, "response"),
  wire("session/update", undefined, {
    params: {
      sessionId: "s",
      update: { sessionUpdate: "tool_call_update", toolCallId: "t", title: `has ${KNOWN} inside` },
    },
  }),
  wire('é/ünïcode"quote', 'id"q', { params: { text: "Bearer abcdefghijklmnop" } }, "request"),
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
      wire("session/update", undefined, {
        params: order
          ? { update: { content: { text, type: "text" }, sessionUpdate: "agent_message_chunk" }, sessionId }
          : { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
      });
    const texts = [
      "w1 ",
      "w2 ",
      "",
      "token",
      "my TOKEN",
      " is ",
      "x",
      '"',
      "}}",
      "text",
      "session",
      "a\nb",
      "é✓",
      "PRIVATE",
      " KEY",
      "sk",
      "-",
      "abc",
      "API_KEY",
      "123456",
      `key ${ANTHROPIC} ok`,
      "Bearer abcdefghijklmnop ok",
      "OPENAI_API_KEY=hunter2hunter2 x",
      `has ${KNOWN} x`,
      "w3 ",
    ];
    const cases: Frame[] = [];
    for (const sid of ["s1", "s-token-2", "s1"])
      for (const [i, t] of texts.entries()) cases.push(chunk(sid, t, i % 7 === 3));
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
    for (let i = 0; i < text.length; i += 3)
      log.frame(
        wire("session/update", undefined, {
          params: {
            sessionId: "s",
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: text.slice(i, i + 3) } },
          },
        }),
      );
    log.flush();
    const written = readFileSync(file, "utf8");
    const memory = JSON.stringify(log.list());
    for (const s of [written, memory]) {
      const texts = s
        .match(/"text":"(?:[^"\\]|\\.)*"/g)!
        .map((t) => JSON.parse(t.slice(7)) as string)
        .join("");
      expect(texts).not.toContain(ANTHROPIC.slice(0, 12));
      expect(texts).not.toContain(ANTHROPIC.slice(12));
      expect(texts).not.toContain(KNOWN.slice(0, 10));
      for (let k = 0; k + 8 <= ANTHROPIC.length; k++) expect(texts).not.toContain(ANTHROPIC.slice(k, k + 8));
      expect(texts.startsWith("a ")).toBe(true);
      expect(texts.endsWith(" c")).toBe(true);
    }
  });
});

/** Frames the peer read together (Frame.run): `texts` of one stream, head and tail as the wire had them. */
function run(sessionId: string, texts: string[]): Frame {
  const line = (t: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } } },
    });
  const first = line(texts[0]!);
  const lit = JSON.stringify(texts[0]);
  const head = first.slice(0, first.length - 4 - lit.length);
  return {
    direction: "in",
    kind: "notification",
    method: "session/update",
    size: texts.reduce((n, t) => n + line(t).length + 1, 0),
    payload: JSON.parse(first),
    run: { head, tail: "}}}}", texts },
  };
}

/** Every text the trace holds for message chunks, in order (single frames and runs alike). */
function tracedTexts(entries: { kind: string; payload: unknown }[]): string[] {
  return entries.flatMap((e) => {
    const p = e.payload as { texts?: string[]; params?: { update?: { content?: { text?: string } } } };
    return e.kind === "notifications" ? p.texts! : [p.params!.update!.content!.text!];
  });
}

describe("trace of runs of chunks", () => {
  it("writes a run of one as the frame it is, and a longer run as one entry with every piece", () => {
    const r = new Redactor([KNOWN]);
    const log = new TraceLog(r);
    const one = run("s", ["hello "]);
    log.frame(one);
    const [entry] = log.list();
    const single = wire("session/update", undefined, {
      params: {
        sessionId: "s",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hello " } },
      },
    });
    expect(JSON.stringify(entry)).toBe(JSON.stringify(JSON.parse(reference(r, single, entry!.time))));
    const texts = Array.from({ length: 500 }, (_, i) => (i % 50 === 49 ? "w\n" : `w${i % 10} `));
    const many = run("s", texts);
    log.frame(many);
    const e = log.list()[1]!;
    expect(e).toMatchObject({ dir: "in", kind: "notifications", method: "session/update", size: many.size });
    const p = e.payload as { count: number; message: unknown; texts: string[] };
    expect(p.count).toBe(500);
    expect(p.texts).toEqual(texts);
    expect(p.message).toEqual({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "" } } },
    });
  });

  it("hide a secret inside a piece, across pieces and across runs, in memory and in the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-trace-"));
    const file = join(dir, "t.jsonl");
    const log = new TraceLog(new Redactor([KNOWN]), file);
    const text = `a ${ANTHROPIC} b ${KNOWN} c sk-ant-api03-abcdefghijklmnopqrstuv d ${KNOWN.slice(0, 9)}x e`;
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += 3) pieces.push(text.slice(i, i + 3));
    // Runs of every length from 1 to 7, so every secret is cut by runs somewhere.
    for (let i = 0, n = 1; i < pieces.length; i += n, n = (n % 7) + 1) log.frame(run("s", pieces.slice(i, i + n)));
    log.flush();
    const fromFile = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    for (const entries of [log.list(), fromFile]) {
      const got = tracedTexts(entries).join("");
      for (let k = 0; k + 8 <= ANTHROPIC.length; k++) expect(got).not.toContain(ANTHROPIC.slice(k, k + 8));
      expect(got).not.toContain(KNOWN.slice(0, 10));
      expect(got).not.toContain("abcdefghij");
      expect(got.startsWith("a ")).toBe(true);
      expect(got).toContain(" b ");
      expect(got).toContain(`d ${KNOWN.slice(0, 9)}x e`); // a near miss is text
    }
  });

  it("keep the ring in memory bounded by size as well as by frames: runs of long pieces do not make it grow", () => {
    const log = new TraceLog(new Redactor([]));
    const texts = Array.from({ length: 10 }, (_, i) => `w${i % 10} `.repeat(700));
    let size = 0;
    for (let i = 0; i < 2000; i++) {
      log.frame(run("s", texts));
      if (i % 100 !== 99) continue;
      const kept = log.list();
      size = kept.reduce((n, e) => n + JSON.stringify(e).length, 0);
      expect(size).toBeLessThan(1.1 * 1024 * 1024);
      expect(kept.length).toBeGreaterThan(0);
    }
    // Full, and the newest entry is the last run.
    expect(size).toBeGreaterThan(0.9 * 1024 * 1024);
    expect((log.list().at(-1)!.payload as { texts: string[] }).texts).toEqual(texts);
  });

  it("count the frames a run holds toward the ring's limit of frames", () => {
    const log = new TraceLog(new Redactor([]), undefined, 1000);
    const texts = Array.from({ length: 400 }, (_, i) => `w${i % 10} `);
    for (let i = 0; i < 10; i++) log.frame(run("s", texts));
    // 1,000 frames: two runs of 400 (a third would make 1,200).
    expect(log.list().map((e) => (e.payload as { count: number }).count)).toEqual([400, 400]);
    log.note("lifecycle", "x");
    expect(log.list()).toHaveLength(3);
  });

  it("a run whose head may hold a secret is written frame by frame, redacted as single frames are", () => {
    const r = new Redactor([KNOWN]);
    const log = new TraceLog(r);
    log.frame(run("s-token-1", ["w1 ", "w2 ", `${KNOWN} `]));
    const entries = log.list();
    expect(entries.map((e) => e.kind)).toEqual(["notification", "notification", "notification"]);
    expect(JSON.stringify(entries)).not.toContain(KNOWN);
  });
});

describe("trace file", () => {
  it("is written in batches, asynchronously, in the order of the frames; flush() on close loses nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-trace-"));
    const file = join(dir, "t.jsonl");
    const log = new TraceLog(new Redactor([]), file, 100);
    const n = 20000;
    const chunk = (i: number) =>
      wire("session/update", undefined, {
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `w${i}` } },
        },
      });
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
    expect(log.list().map((e) => JSON.stringify(e))).toEqual(
      lines.slice(-100).map((l) => JSON.stringify(JSON.parse(l))),
    );
  });
});

describe("TraceLog: its work off a reply's way to the screen", () => {
  it("does a frame's redaction later (not while the reads are handled), keeps each frame's time and the order, and loses nothing", async () => {
    let scans = 0;
    class Counting extends Redactor {
      override json(text: string): string {
        scans++;
        return super.json(text);
      }
      override jsonHasKnownValue(text: string): boolean {
        scans++;
        return super.jsonHasKnownValue(text);
      }
    }
    const r = new Counting([KNOWN]);
    const file = join(mkdtempSync(join(tmpdir(), "acpchat-trace-")), "t.jsonl");
    const log = new TraceLog(r, file);
    const secret = wire("session/update", undefined, {
      params: { sessionId: "s", update: { sessionUpdate: "tool_call_update", toolCallId: "t", title: KNOWN } },
    });
    const before = Date.now();
    log.frame(frames[0]!);
    log.note("problem", `a note with ${KNOWN}`);
    log.frame(secret);
    // Nothing scanned yet: the frames wait for the drain.
    expect(scans).toBe(0);
    await new Promise((res) => setTimeout(res, 10));
    expect(scans).toBe(0);
    await new Promise((res) => setTimeout(res, 80));
    expect(scans).toBeGreaterThan(0);
    // A list asked at any time holds every frame, in order, redacted, with the time it came.
    log.frame(frames[2]!);
    const entries = log.list();
    expect(entries.map((e) => e.method ?? e.kind)).toEqual([
      "session/update",
      "problem",
      "session/update",
      "fs/read_text_file",
    ]);
    expect(JSON.stringify(entries)).not.toContain(KNOWN);
    for (const e of entries) expect(Date.parse(e.time)).toBeGreaterThanOrEqual(before - 1);
    log.flush();
    const written = readFileSync(file, "utf8");
    expect(written.trim().split("\n")).toHaveLength(4);
    expect(written).not.toContain(KNOWN);
  });
});
