import { describe, expect, it } from "vitest";
import { parseSessionUpdate, type SessionUpdate } from "../../src/protocol/schema.js";
import { ChunkRedactor } from "../../src/session/chunk-redactor.js";
import { Redactor } from "../../src/trace/redact.js";

const SECRET = "sk-live-0123456789";
const chunk = (text: string, kind = "agent_message_chunk") =>
  parseSessionUpdate({ sessionUpdate: kind, content: { type: "text", text } });
const texts = (us: SessionUpdate[]) => us.map((u) => (u as { content: { text: string } }).content.text);

describe("ChunkRedactor", () => {
  it("never lets a secret split across chunks through, and keeps every other character in order", () => {
    const r = new ChunkRedactor(new Redactor([SECRET]));
    const out: string[] = [];
    for (const piece of ["the key is sk-", "live-01234", "56789 and more", " text"])
      out.push(...texts(r.push(chunk(piece))));
    out.push(...texts(r.flush()));
    const all = out.join("");
    expect(all).toBe("the key is [REDACTED] and more text");
    for (const o of out) expect(o).not.toContain("sk-live-0");
  });

  it("releases a held prefix that turned out not to be a secret, at the next chunk or the end", () => {
    const r = new ChunkRedactor(new Redactor([SECRET]));
    expect(texts(r.push(chunk("ends with sk-")))).toEqual(["ends with "]);
    expect(texts(r.push(chunk("lint is fine")))).toEqual(["sk-lint is fine"]);
    expect(texts(r.push(chunk("trailing sk")))).toEqual(["trailing "]);
    expect(texts(r.flush())).toEqual(["sk"]);
  });

  it("flushes held text before another kind of update, so order is kept", () => {
    const r = new ChunkRedactor(new Redactor([SECRET]));
    r.push(chunk("think sk-li", "agent_thought_chunk"));
    const out = r.push(chunk("answer"));
    expect(out.map((u) => u.sessionUpdate)).toEqual(["agent_thought_chunk", "agent_message_chunk"]);
    expect(texts(out)).toEqual(["sk-li", "answer"]);
    const tool = r.push(parseSessionUpdate({ sessionUpdate: "tool_call", toolCallId: "t", title: `curl ${SECRET}` }));
    expect(tool).toEqual([expect.objectContaining({ title: "curl [REDACTED]" })]);
  });

  it("passes ordinary text through untouched when no secret is configured; key-like values are still redacted", () => {
    const r = new ChunkRedactor(new Redactor([]));
    const u = chunk("plain text, nothing secret.");
    expect(r.push(u)[0]).toBe(u);
    const out = [
      ...texts(r.push(chunk("key sk-ant-api03-abcdefgh"))),
      ...texts(r.push(chunk("ijklmnopqrstuv done."))),
      ...texts(r.flush()),
    ];
    expect(out.join("")).toBe("key [REDACTED] done.");
    for (const o of out) expect(o).not.toMatch(/abcdefgh|ijklmnop/);
  });
});
