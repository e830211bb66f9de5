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

describe("ChunkRedactor: terminal output streamed in a tool call's _meta", () => {
  // "ran-42" ends with "42", the start of this secret: the redactor holds it back for the next piece.
  const r = () => new ChunkRedactor(new Redactor(["42-the-token-0123456789"]));
  const meta = (m: Record<string, unknown>, status?: string) =>
    parseSessionUpdate({
      sessionUpdate: "tool_call_update",
      toolCallId: "x2",
      ...(status ? { status } : {}),
      _meta: m,
    });
  const data = (us: SessionUpdate[]) =>
    us
      .map((u) => (u as { _meta?: { terminal_output?: { data?: string } } })._meta?.terminal_output?.data ?? "")
      .join("");
  const exit = { terminal_id: "t2", exit_code: 0, signal: null };

  it("a chunk after the exit, in the update that ends the call, comes out whole", () => {
    const c = r();
    const first = c.push(
      meta({ terminal_output: { terminal_id: "t2", data: "first line\npeer-" }, terminal_exit: exit }),
    );
    expect(data(first)).toBe("first line\npeer-");
    const last = c.push(meta({ terminal_output: { terminal_id: "t2", data: "ran-42" } }, "completed"));
    expect(data(last)).toBe("ran-42");
  });

  it("an end held back comes out when its call ends in an update without output, and at the turn's end", () => {
    const c = r();
    expect(data(c.push(meta({ terminal_output: { terminal_id: "t2", data: "ran-42" } })))).toBe("");
    const ended = c.push(meta({}, "failed"));
    expect(data(ended)).toBe("ran-42");
    expect(ended.map((u) => (u as { toolCallId?: string }).toolCallId)).toEqual(["x2", "x2"]);
    expect(data(c.end())).toBe("");

    const d = r();
    expect(data(d.push(meta({ terminal_output: { terminal_id: "t2", data: "after exit 42" } })))).toBe("after exit ");
    expect(data(d.end())).toBe("42");
  });

  it("what turns out to be the secret is redacted when it comes out at the end", () => {
    const c = r();
    const out = [
      ...c.push(meta({ terminal_output: { terminal_id: "t2", data: "token 42-the-" } })),
      ...c.push(meta({ terminal_output: { terminal_id: "t2", data: "token-0123456789" } }, "completed")),
    ];
    expect(data(out)).toBe("token [REDACTED]");
    for (const u of out) expect(JSON.stringify(u)).not.toContain("42-the-token");
  });
});
