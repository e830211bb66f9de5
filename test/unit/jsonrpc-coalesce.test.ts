/**
 * The peer's coalescing of text chunks (JsonRpcPeer.coalesce): lines recognised by
 * their learned head are delivered, joined, exactly as the ordinary path would have delivered
 * them one by one; anything the fast check is not sure of is parsed. Held to that against a
 * peer without coalescing over thousands of random lines (traps included: keys JSON lists in
 * another order, duplicate keys, escapes, whitespace, fields after the text), cut anywhere.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { JsonRpcPeer, type Frame } from "../../src/protocol/jsonrpc.js";
import { isTextChunkNotification, KnownSessionUpdate, SessionNotificationEnvelope } from "../../src/protocol/schema.js";

type Call = { method: string; params: unknown };

/** A peer reading `bytes` cut every `step` bytes; what its handlers got, in order. */
async function read(bytes: Buffer, step: number, coalesce: boolean) {
  const input = new PassThrough();
  const frames: Frame[] = [];
  const peer = new JsonRpcPeer(input, new PassThrough(), { onFrame: (f) => frames.push(f) });
  const calls: Call[] = [];
  peer.onNotification("session/update", undefined, (params) => calls.push({ method: "session/update", params }));
  peer.onNotification("other", undefined, (params) => calls.push({ method: "other", params }));
  peer.onRequest("ask", undefined, (params) => {
    calls.push({ method: "ask", params });
    return {};
  });
  if (coalesce) peer.coalesce("session/update", ["params", "update", "content", "text"], isTextChunkNotification);
  for (let i = 0; i < bytes.length; i += step) input.write(bytes.subarray(i, i + step));
  await new Promise((r) => setImmediate(r));
  return { calls, frames };
}

const textOf = (p: unknown): string | undefined => {
  const c = (p as { update?: { content?: { type?: unknown; text?: unknown } } })?.update?.content;
  return isTextChunkNotification(p) && typeof c?.text === "string" ? c.text : undefined;
};
const withoutText = (p: unknown) => {
  const q = p as { update: { content: Record<string, unknown> } };
  return JSON.stringify({ ...q, update: { ...q.update, content: { ...q.update.content, text: "" } } });
};

/** Consecutive text chunks equal but for their text, joined: what both peers must agree on. */
function joined(calls: Call[]): Call[] {
  const out: Call[] = [];
  for (const c of calls) {
    const prev = out[out.length - 1];
    const t = c.method === "session/update" ? textOf(c.params) : undefined;
    const pt = prev && prev.method === "session/update" ? textOf(prev.params) : undefined;
    if (prev && t !== undefined && pt !== undefined && withoutText(prev.params) === withoutText(c.params)) {
      const q = prev.params as { update: { content: Record<string, unknown> } };
      prev.params = { ...q, update: { ...q.update, content: { ...q.update.content, text: pt + t } } };
    } else out.push({ method: c.method, params: structuredClone(c.params) });
  }
  return out;
}

/** A random line: mostly text chunks of a few streams, and the shapes that must not fool the fast check. */
function randomLine(rnd: () => number, shape = Math.floor(rnd() * 16)): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const text = pick([
    "w1 ",
    "w\n",
    "",
    "é✓🙂",
    'say "hi"',
    "back\\slash",
    "tab\there",
    "}}}}",
    '"}}}}',
    "x".repeat(40),
    "sk-",
    "ant-api03",
    "\u0001",
  ]);
  const sid = pick(["s1", "s2"]);
  const kind = pick(["agent_message_chunk", "agent_message_chunk", "agent_thought_chunk"]);
  const lit = JSON.stringify(text);
  const head = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sid}","update":{"sessionUpdate":"${kind}","content":{"type":"text","text":`;
  switch (shape) {
    case 0:
      // An index key after the text (JSON lists it first), once with the text's own value.
      return `${head}"w1 ","0":${rnd() < 0.5 ? '"w1 "' : lit}}}}}`;
    case 1:
      return `${head}${JSON.stringify("first")},"text":${lit}}}}}`; // duplicate key: the last wins
    case 2:
      return `${head}"\\u0041${text.replace(/[\\"\u0000-\u001f]/g, "")}"}}}}`; // an escape JSON.stringify would not write
    case 3:
      return ` ${head}${lit}}}}} `; // whitespace around
    case 4:
      return `${head}${lit}, "_meta":{"a":1}}}}}`; // a field after the text
    case 5:
      return `{"jsonrpc":"2.0","method":"other","params":{"text":${lit}}}`;
    case 6:
      return `{"jsonrpc":"2.0","id":${Math.floor(rnd() * 1e6)},"method":"ask","params":{"text":${lit}}}`;
    case 7:
      return `${head}${lit}}}}`; // not JSON
    case 8:
      return `${head}${lit}}}}}}`; // not JSON either
    case 9:
      return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sid}","update":{"sessionUpdate":"tool_call_update","toolCallId":"t","title":${lit}}}}`;
    case 10:
      return `${head}${lit},"annotations":null}}}}`;
    case 11:
      return `${head}${lit}}},"__proto__":{"x":1}}}`;
    case 12:
      return `${head.replace('"text":', '"text" :')}${lit}}}}}`;
    case 13:
      return `${head}7}}}}`; // not a string
    default:
      return `${head}${lit}}}}}`;
  }
}

function seeded(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x80000000;
  };
}

describe("coalescing text chunks", () => {
  it("delivers what the ordinary path delivers (joined), over random lines cut anywhere", async () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const rnd = seeded(seed);
      const lines = Array.from({ length: 3000 }, () =>
        rnd() < 0.7
          ? `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"w${Math.floor(rnd() * 10)} "}}}}`
          : randomLine(rnd),
      );
      const bytes = Buffer.from(lines.join("\n") + "\n");
      const plain = await read(bytes, bytes.length, false);
      for (const step of [1, 7, 100, 4096, 65536]) {
        const fast = await read(bytes, step, true);
        expect(joined(fast.calls)).toEqual(joined(plain.calls));
      }
      // Coalescing did happen: fewer calls than lines.
      const fast = await read(bytes, 65536, true);
      expect(fast.calls.length).toBeLessThan(plain.calls.length / 2);
    }
  });

  it("parses every trap line, even after learning the head it starts with", async () => {
    for (const trap of [0, 1, 2, 3, 4, 7, 8, 10, 11, 12, 13]) {
      const rnd = seeded(trap + 10);
      // Plain chunks (the head is learned) and the trap, alternating at random.
      const lines = Array.from({ length: 400 }, () => randomLine(rnd, rnd() < 0.5 ? 15 : trap));
      const bytes = Buffer.from(lines.join("\n") + "\n");
      const plain = await read(bytes, bytes.length, false);
      const fast = await read(bytes, bytes.length, true);
      expect(joined(fast.calls)).toEqual(joined(plain.calls));
    }
  });

  it("gives the trace every piece: one frame per run, each piece as it came", async () => {
    const texts = Array.from({ length: 5000 }, (_, i) => (i % 50 === 49 ? "w\n" : `w${i % 10} `));
    const line = (t: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } },
        },
      });
    const bytes = Buffer.from(texts.map(line).join("\n") + "\n");
    const { calls, frames } = await read(bytes, 65536, true);
    const seen: string[] = [];
    for (const f of frames) {
      if (f.run) {
        for (const t of f.run.texts) seen.push(t);
        // Each piece crossed the wire as head + its JSON + tail.
        expect(JSON.parse(`${f.run.head}${JSON.stringify(f.run.texts[0])}${f.run.tail}`)).toEqual(
          JSON.parse(line(f.run.texts[0]!)),
        );
        expect(f.size).toBe(f.run.texts.reduce((n, t) => n + line(t).length + 1, 0));
      } else seen.push((f.payload as { params: { update: { content: { text: string } } } }).params.update.content.text);
    }
    expect(seen).toEqual(texts);
    expect(calls.map((c) => textOf(c.params)).join("")).toBe(texts.join(""));
    expect(frames.length).toBeLessThan(50);
  });

  it("delivers a run before any other message, so order holds across kinds", async () => {
    const chunk = (t: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } },
        },
      });
    const lines = [
      chunk("a"),
      chunk("b"),
      chunk("c"),
      '{"jsonrpc":"2.0","method":"other","params":{}}',
      chunk("d"),
      chunk("e"),
      '{"jsonrpc":"2.0","id":1,"method":"ask","params":{}}',
      chunk("f"),
    ];
    const { calls } = await read(Buffer.from(lines.join("\n") + "\n"), 1 << 20, true);
    expect(calls.map((c) => (c.method === "session/update" ? textOf(c.params) : c.method))).toEqual([
      "a",
      "bc",
      "other",
      "de",
      "ask",
      "f",
    ]);
  });
});

describe("coalescing: lines crafted to pass the fast check", () => {
  const pre = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":`;
  const check = async (lines: string[]) => {
    const bytes = Buffer.from(lines.join("\n") + "\n");
    const plain = await read(bytes, bytes.length, false);
    const fast = await read(bytes, bytes.length, true);
    expect(joined(fast.calls)).toEqual(joined(plain.calls));
    return { plain, fast };
  };

  it("never joins a string other than the chunk's text (a field after the content)", async () => {
    // The last string of the line is _meta's, not the text: each line's text must count.
    const line = (m: string) => `${pre}{"type":"text","text":"hello "},"_meta":{"k":${JSON.stringify(m)}}}}}`;
    const { plain, fast } = await check([line("a"), line("b"), line("c")]);
    expect(plain.calls.map((c) => textOf(c.params)).join("")).toBe("hello hello hello ");
    expect(fast.calls.map((c) => textOf(c.params)).join("")).toBe("hello hello hello ");
  });

  it("never takes a later duplicate key for the text (a second type key)", async () => {
    // {"type":"text","text":"text","type":…}: the last string is the second `type`, whose
    // value is "text" in the first line; a later line makes it an image, not a text chunk.
    const line = (t: string) => `${pre}{"type":"text","text":"text","type":${JSON.stringify(t)}}}}}`;
    const { fast } = await check([line("text"), line("image"), line("resource_link")]);
    expect(fast.calls.map((c) => textOf(c.params))).toEqual(["text", undefined, undefined]);
  });

  it("never takes a second text key elsewhere on the path for the text", async () => {
    const line = (t: string) =>
      `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"},"text":${JSON.stringify(t)}}}}`;
    await check([line("a"), line("b"), `${pre}{"type":"text","text":"y"}}}}`, line("c")]);
  });
});

describe("coalescing: what a learned shape keeps", () => {
  it("keeps neither the first chunk's text (8 shapes of 16 MB chunks would stay for the session) nor a head of any length", async () => {
    const input = new PassThrough();
    const peer = new JsonRpcPeer(input, new PassThrough());
    const calls: unknown[] = [];
    peer.onNotification("session/update", undefined, (p) => calls.push(p));
    peer.coalesce("session/update", ["params", "update", "content", "text"], isTextChunkNotification);
    const line = (sid: string, t: string) =>
      JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: sid,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } },
        },
      });
    const big = "B".repeat(1 << 20);
    const longSid = "s".repeat(5000);
    input.write(
      [line("s", big), line("s", "a"), line("s", "b"), line(longSid, "x"), line(longSid, "y")].join("\n") + "\n",
    );
    await new Promise((r) => setImmediate(r));
    const shapes = (
      peer as unknown as {
        shapes: { all: { head: string; msg: { params: { update: { content: { text: string } } } } }[] };
      }
    ).shapes.all;
    expect(shapes.map((s) => s.msg.params.update.content.text)).toEqual([""]);
    expect(shapes.every((s) => s.head.length < 2048)).toBe(true);
    // Delivered as before: the big one, then the two after it joined; the long-headed ones each parsed.
    expect(calls.map((p) => (p as { update: { content: { text: string } } }).update.content.text)).toEqual([
      big,
      "ab",
      "x",
      "y",
    ]);
  });
});

/*
 * The two layers side by side: the fast path (a learned head matched as text, no JSON.parse, no
 * zod) and the zod layer generated from the SDK's schema.json. Whatever the fast path takes as a
 * text chunk, the generated schemas must take as that same text chunk, on random chunks valid and
 * invalid (fields of the wrong type, unknown kinds, extra keys, non-text content, bad envelopes).
 */
describe("coalescing agrees with the generated zod layer", () => {
  /** A chunk line, its fields picked at random among valid and invalid values. */
  function chunkLine(rnd: () => number): string {
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const maybe = (v: unknown) => (rnd() < 0.8 ? undefined : v);
    const content: Record<string, unknown> = {
      type: pick(["text", "text", "text", "text", "image", "TEXT", 1]),
      text: pick(["w ", "w\n", "", "é✓", 'say "x"', 5, null] as const),
      annotations: maybe(pick([null, {}, { priority: 1 }, "x", [], 3])),
      _meta: maybe(pick([null, {}, { a: 1 }, [], "m"])),
    };
    const update: Record<string, unknown> = {
      sessionUpdate: pick([
        "agent_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "user_message_chunk",
        "notice",
        "plan",
      ]),
      content: rnd() < 0.95 ? content : pick([null, "text", []]),
      messageId: maybe(pick([null, "m1", 7, {}])),
      _meta: maybe(pick([null, {}, [], 0])),
    };
    const params: Record<string, unknown> = { sessionId: rnd() < 0.95 ? pick(["s1", "s2"]) : pick([1, null]), update };
    if (rnd() < 0.1) params._meta = pick([{}, null, "x"]);
    // Keys in the order a real agent writes them, the text last, so that heads repeat and runs form.
    const ordered = (o: Record<string, unknown>, last: string) => {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(o)) if (k !== last && o[k] !== undefined) out[k] = o[k];
      if (o[last] !== undefined) out[last] = o[last];
      return out;
    };
    const c = update.content && typeof update.content === "object" ? ordered(content, "text") : update.content;
    const u = ordered({ ...update, content: c }, "content");
    return JSON.stringify({
      jsonrpc: "2.0",
      method: "session/update",
      params: ordered({ ...params, update: u }, "update"),
    });
  }

  /**
   * The zod path's verdict: the envelope as the client routes it (policy: `sessionId` and the
   * update's kind; the envelope's own `_meta` is not read), then the update through the generated
   * variants (KnownSessionUpdate is made of them) as a text chunk.
   */
  function zodTextChunk(params: unknown): { text: string; value: unknown } | undefined {
    if (!SessionNotificationEnvelope.safeParse(params).success) return undefined;
    const u = KnownSessionUpdate.safeParse((params as { update: unknown }).update);
    if (!u.success) return undefined;
    const d = u.data;
    const chunk = ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"].includes(d.sessionUpdate);
    const content = (d as { content?: { type: string; text?: unknown } }).content;
    if (!chunk || content?.type !== "text" || typeof content.text !== "string") return undefined;
    return { text: content.text, value: d };
  }

  it("every piece the fast path takes is a text chunk to the generated schemas, with its text", async () => {
    let taken = 0;
    let zodChunks = 0;
    for (const seed of [11, 12, 13, 14, 15]) {
      const rnd = seeded(seed);
      const lines = Array.from({ length: 2000 }, () => chunkLine(rnd));
      const { frames } = await read(Buffer.from(lines.join("\n") + "\n"), 65536, true);
      // One frame per line, or one per run of lines: back to one verdict per line, in order.
      const pieces: { fast: boolean; text?: string }[] = [];
      for (const f of frames)
        if (f.run) for (const t of f.run.texts) pieces.push({ fast: true, text: t });
        else pieces.push({ fast: false });
      expect(pieces.length).toBe(lines.length);
      lines.forEach((line, i) => {
        const params = (JSON.parse(line) as { params: unknown }).params;
        const zod = zodTextChunk(params);
        if (zod) zodChunks++;
        // The accept function of the fast path (the hand checks) agrees with zod on the line.
        expect(isTextChunkNotification(params), line).toBe(zod !== undefined);
        if (!pieces[i]!.fast) return;
        taken++;
        expect(zod, `fast path took a line the generated schemas reject: ${line}`).toBeDefined();
        expect(zod!.text).toBe(pieces[i]!.text);
      });
    }
    // Not vacuous: both verdicts occur, and the fast path took a good share of the valid chunks
    // (a run needs the same head twice in a row; random fields make most heads differ).
    expect(zodChunks).toBeGreaterThan(1000);
    expect(zodChunks).toBeLessThan(10000);
    expect(taken).toBeGreaterThan(zodChunks / 4);
  });
});
