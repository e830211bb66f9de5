import { describe, expect, it, vi } from "vitest";
import { RenderQueue, type RenderOp } from "../../src/view/render-queue.js";
import { parseSessionUpdate } from "../../src/protocol/schema.js";
import { SessionState } from "../../src/session/session-state.js";
import { statusView } from "../../src/view/view-model.js";

function setup(frameMs = 16) {
  const sent: RenderOp[][] = [];
  const state = new SessionState();
  let now = 0;
  const q = new RenderQueue({ frameMs, send: (ops) => sent.push(ops), status: () => statusView({ agent: "a", lifecycle: "ready", sessionId: "s", cwd: "/", queued: [] }, state), now: () => now });
  const push = (u: Record<string, unknown>) => q.push(state.apply(parseSessionUpdate(u)));
  const text = (t: string) => push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } });
  return { q, state, sent, push, text, tick: (ms: number) => (now += ms) };
}

describe("RenderQueue", () => {
  it("sends one batch for many chunks, with a new block carrying its whole current text", async () => {
    const { q, state, sent, text } = setup();
    q.push(state.beginTurn([{ type: "text", text: "hi" }]));
    for (let i = 0; i < 100; i++) text("x");
    q.flush();
    expect(sent).toHaveLength(1);
    const ops = sent[0]!;
    expect(ops.map((o) => o.op)).toEqual(["add", "add", "add", "add", "meta"]);
    expect(ops[2]).toMatchObject({ op: "add", block: { type: "reply" } });
    expect(ops[3]).toMatchObject({ op: "add", block: { type: "agent", text: "x".repeat(100) } });
  });

  it("merges consecutive appends to the same block and draws an updated tool call once, as it is at flush time", () => {
    const { q, state, sent, text, push } = setup();
    q.push(state.beginTurn([]));
    text("a");
    push({ sessionUpdate: "tool_call", toolCallId: "t", title: "T", status: "pending" });
    q.flush();
    sent.length = 0;
    text("b"); // a new block: the tool call came between
    text("c");
    push({ sessionUpdate: "tool_call_update", toolCallId: "t", status: "in_progress" });
    text("d");
    push({ sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed" });
    text("e");
    q.flush();
    const ops = sent[0]!;
    expect(ops.map((o) => o.op)).toEqual(["add", "update"]);
    expect(ops[0]).toMatchObject({ block: { type: "agent", text: "bcde" } });
    expect(ops[1]).toMatchObject({ block: { type: "tool", status: "completed" } });
    sent.length = 0;
    text("f");
    text("g");
    q.flush();
    expect(sent[0]).toEqual([{ op: "append", id: expect.any(String), text: "fg" }]);
  });

  it("waits for the frame: no second batch within frameMs of the last one", async () => {
    const { q, sent, text, tick } = setup(1000);
    q.flush();
    text("a");
    q.flush(); // a flush forced now (turn end) goes out at once
    expect(sent).toHaveLength(1);
    text("b");
    await new Promise((r) => setTimeout(r, 30));
    expect(sent).toHaveLength(1); // still inside the 1000 ms frame
    tick(1000);
    q.dispose();
  });

  it("the turn's end goes out at once with the stop reason", () => {
    const { q, state, sent } = setup();
    q.push(state.beginTurn([]));
    q.push(state.endTurn("end_turn"));
    q.endTurn("end_turn");
    expect(sent.at(-1)!.map((o) => o.op)).toEqual(["add", "add", "meta", "turn_end"]);
    expect(sent.at(-1)!.at(-1)).toEqual({ op: "turn_end", stopReason: "end_turn" });
  });

  it("sends appends to a very long last line less often (in proportion to its length), anything else at the frame rate", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      const sent: RenderOp[][] = [];
      const state = new SessionState();
      const q = new RenderQueue({ frameMs: 16, send: (ops) => sent.push(ops), status: () => statusView({ agent: "a", lifecycle: "ready", sessionId: "s", cwd: "/", queued: [] }, state), now: () => Date.now() });
      const text = (t: string) => q.push(state.apply(parseSessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: t } })));
      q.push(state.beginTurn([]));
      text("start ");
      q.flush();
      const batches = () => sent.length - 1;
      // A short line: one batch a frame.
      text("x".repeat(1000));
      vi.advanceTimersByTime(16);
      expect(batches()).toBe(1);
      // A line of 10 x 32K: a batch every 10 frames.
      text("y".repeat(320 * 1024));
      vi.advanceTimersByTime(150);
      expect(batches()).toBe(1);
      vi.advanceTimersByTime(20);
      expect(batches()).toBe(2);
      text("z");
      vi.advanceTimersByTime(100);
      expect(batches()).toBe(2);
      // Anything else than appends goes out at the frame rate (the timer is brought forward).
      q.push([{ type: "meta" }]);
      vi.advanceTimersByTime(1);
      expect(batches()).toBe(3);
      expect(sent.at(-1)!.map((o) => o.op)).toEqual(["append", "meta"]);
      // A new line: the frame rate again.
      text("z\nshort");
      vi.advanceTimersByTime(16);
      expect(batches()).toBe(4);
      // The whole reply arrived, in order.
      const appended = sent.flat().flatMap((o) => (o.op === "append" ? [o.text] : o.op === "add" && o.block.type === "agent" ? [o.block.text] : []));
      expect(appended.join("")).toBe(`start ${"x".repeat(1000)}${"y".repeat(320 * 1024)}zz\nshort`);
      q.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});
