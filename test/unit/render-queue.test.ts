import { describe, expect, it, vi } from "vitest";
import type { RenderQueue } from "../../src/view/render-queue.js";
import type { RenderOp } from "../../src/wire/index.js";
import { parseSessionUpdate } from "../../src/protocol/schema.js";
import { cut, SLICE_BYTES, SLICE_LINES } from "../../src/view/text-slice.js";
import { renderQueue, withFakeTimers } from "../support/render-queue.js";

describe("RenderQueue", () => {
  it("sends one batch for many chunks, with a new block carrying its whole current text", async () => {
    const { q, state, sent, text } = renderQueue();
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
    const { q, state, sent, text, push } = renderQueue();
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

  it("sends nothing once disposed: a closed or restarted chat's late events draw into no chat", async () => {
    const { q, state, sent, text } = renderQueue(0);
    q.push(state.beginTurn([{ type: "text", text: "hi" }]));
    q.flush();
    const before = sent.length;
    q.dispose();
    text("late");
    q.push([{ type: "meta" }]);
    q.endTurn("end_turn");
    q.flush();
    await new Promise((r) => setTimeout(r, 20));
    expect(sent).toHaveLength(before);
  });

  it("waits for the frame: no second batch within frameMs of the last one", async () => {
    const { q, sent, text, tick } = renderQueue(1000);
    q.flush();
    text("a");
    q.flush(); // a flush forced now (turn end) goes out at once
    text("a");
    q.flush(); // twice: the quick follow-up of a burst's light first batch is spent
    expect(sent).toHaveLength(2);
    text("b");
    await new Promise((r) => setTimeout(r, 30));
    expect(sent).toHaveLength(2); // still inside the 1000 ms frame
    tick(1000);
    q.dispose();
  });

  it("idle, a batch goes out as soon as the reads at hand are handled; after a light one that began a burst the next follows within QUICK_MS; then the frame rate", () => {
    withFakeTimers(() => {
      const { q, state, sent, text } = renderQueue(16, "fakeTimers");
      vi.advanceTimersByTime(100);
      // The status as the prompt goes (light): on the next turn of the loop, no timer tick.
      q.push([{ type: "meta" }]);
      expect(sent).toHaveLength(0);
      vi.advanceTimersByTime(0);
      expect(sent).toHaveLength(1);
      // The user's words right after: not a frame later.
      vi.advanceTimersByTime(1);
      q.push(state.beginTurn([{ type: "text", text: "hi" }]));
      vi.advanceTimersByTime(1);
      expect(sent).toHaveLength(2);
      // A burst is on: the next batch waits for the frame (16 ms after the last).
      text("a");
      vi.advanceTimersByTime(15);
      expect(sent).toHaveLength(2);
      vi.advanceTimersByTime(1);
      expect(sent).toHaveLength(3);
      // A batch that begins a burst holds the next one its share of a frame's work: an eighth
      // of a batch's lines, an eighth of a frame (2 ms)...
      vi.advanceTimersByTime(100);
      text("b\n".repeat(SLICE_LINES / 8));
      vi.advanceTimersByTime(0);
      expect(sent).toHaveLength(4);
      text("c");
      vi.advanceTimersByTime(1);
      expect(sent).toHaveLength(4);
      vi.advanceTimersByTime(1);
      expect(sent).toHaveLength(5);
      // ...a full batch of lines, its whole frame.
      vi.advanceTimersByTime(100);
      text("d\n".repeat(SLICE_LINES));
      vi.advanceTimersByTime(0);
      expect(sent).toHaveLength(6);
      text("e");
      vi.advanceTimersByTime(15);
      expect(sent).toHaveLength(6);
      vi.advanceTimersByTime(1);
      expect(sent).toHaveLength(7);
      q.dispose();
    });
  });

  it("a reply that begins with a few dozen tool calls (a small share of a frame's work) holds its next batch that share of a frame, not a whole one", () => {
    // bench/stream-profile.mjs, 2,000 chunks and 20 tool calls: the reply's first read made a
    // batch of 28 blocks; the rest of it, read a few ms later, waited a whole frame for it.
    withFakeTimers(() => {
      const { q, state, sent, text } = renderQueue(16, "fakeTimers");
      q.push(state.beginTurn([{ type: "text", text: "hi" }]));
      vi.advanceTimersByTime(100);
      expect(sent).toHaveLength(1);
      for (let i = 0; i < 32; i++) {
        text(`w${i} `);
        q.push(
          state.apply(
            parseSessionUpdate({
              sessionUpdate: "tool_call",
              toolCallId: `t${i}`,
              title: `Read ${i}`,
              status: "in_progress",
            }),
          ),
        );
      }
      vi.advanceTimersByTime(0);
      expect(sent).toHaveLength(2);
      expect(sent[1]!.filter((o) => o.op === "add").length).toBeGreaterThanOrEqual(32);
      text("the rest of the reply");
      // 64 blocks of FRAME_BLOCKS (128): half a frame, 8 ms.
      vi.advanceTimersByTime(7);
      expect(sent).toHaveLength(2);
      vi.advanceTimersByTime(1);
      expect(sent).toHaveLength(3);
      q.dispose();
    });
  });

  it("the turn's end goes out at once with the stop reason", () => {
    const { q, state, sent } = renderQueue();
    q.push(state.beginTurn([]));
    q.push(state.endTurn("end_turn"));
    q.endTurn("end_turn");
    expect(sent.at(-1)!.map((o) => o.op)).toEqual(["add", "add", "meta", "turn_end"]);
    expect(sent.at(-1)!.at(-1)).toEqual({ op: "turn_end", stopReason: "end_turn" });
  });

  it("sends appends to a very long last line (and tool call progress) less often, in proportion to its length; anything else at the frame rate", () => {
    withFakeTimers(() => {
      const { q, state, sent, text } = renderQueue(16, "fakeTimers");
      q.push(state.beginTurn([]));
      text("start ");
      q.flush();
      // A second batch at once: the burst's quick follow-up (see the test below) is spent.
      text("s");
      q.flush();
      const batches = () => sent.length - 2;
      // A short line: one batch a frame.
      text("x".repeat(1000));
      vi.advanceTimersByTime(16);
      expect(batches()).toBe(1);
      // A line of about 2 x 32K (the longest a buffer line gets: Lua breaks longer ones): a
      // batch every 2 frames.
      text("y".repeat(60 * 1024));
      vi.advanceTimersByTime(16);
      expect(batches()).toBe(1);
      vi.advanceTimersByTime(20);
      expect(batches()).toBe(2);
      text("z");
      vi.advanceTimersByTime(20);
      expect(batches()).toBe(2);
      // A tool call's progress (its block is drawn already) waits with the appends: it is not
      // worth a redraw of the long line.
      const tool = (u: Record<string, unknown>) =>
        q.push(state.apply(parseSessionUpdate({ toolCallId: "t1", title: "Read", ...u })));
      // (A new tool call is a new block: at the frame rate. Drawn, the reply goes on below it.)
      tool({ sessionUpdate: "tool_call", status: "in_progress" });
      vi.advanceTimersByTime(16);
      expect(batches()).toBe(3);
      text("w".repeat(60 * 1024));
      vi.advanceTimersByTime(16);
      expect(batches()).toBe(4);
      text("v");
      tool({ sessionUpdate: "tool_call_update", title: "Read more" });
      // The last batch went 16 ms ago: at the frame rate this one would go now; it waits for
      // about 30 ms after the last (a 60 KB line).
      vi.advanceTimersByTime(10);
      expect(batches()).toBe(4);
      vi.advanceTimersByTime(5);
      expect(batches()).toBe(5);
      expect(sent.at(-1)!.map((o) => o.op)).toEqual(["append", "update"]);
      // Anything else than appends and redraws goes out at the frame rate (the timer is brought
      // forward).
      text("u");
      vi.advanceTimersByTime(16);
      expect(batches()).toBe(5);
      q.push([{ type: "meta" }]);
      vi.advanceTimersByTime(1);
      expect(batches()).toBe(6);
      expect(sent.at(-1)!.map((o) => o.op)).toEqual(["append", "meta"]);
      // A new line: the frame rate again.
      text("z\nshort");
      vi.advanceTimersByTime(16);
      expect(batches()).toBe(7);
      // The whole reply arrived, in order.
      const appended = sent
        .flat()
        .flatMap((o) =>
          o.op === "append" ? [o.text] : o.op === "add" && o.block.type === "agent" ? [o.block.text] : [],
        );
      expect(appended.join("")).toBe(
        `start s${"x".repeat(1000)}${"y".repeat(60 * 1024)}z${"w".repeat(60 * 1024)}vuz\nshort`,
      );
      q.dispose();
    });
  });
});

describe("RenderQueue: text in slices", () => {
  /** Flush until the turn's end is sent; every batch's ops. */
  function drain(q: RenderQueue, sent: RenderOp[][]): RenderOp[][] {
    for (let i = 0; i < 10_000 && !sent.some((ops) => ops.some((o) => o.op === "turn_end")); i++) q.flush();
    q.dispose();
    return sent;
  }
  const textOf = (ops: RenderOp[]) =>
    ops
      .map((o) =>
        o.op === "append"
          ? o.text
          : o.op === "add" && o.block.type === "agent"
            ? (o.block as { text: string }).text
            : "",
      )
      .join("");

  it("a 3 MB chunk of one line goes in batches of at most SLICE_BYTES, byte-exact, the turn's end after the last", () => {
    const { q, state, sent, text } = renderQueue();
    q.push(state.beginTurn([]));
    q.flush();
    sent.length = 0;
    // Multi-byte characters and surrogate pairs, so that a cut could fall inside one.
    const big = "ab é 漢字 😀 ".repeat(200_000);
    text(big);
    q.push(state.endTurn("end_turn"));
    q.endTurn("end_turn");
    const batches = drain(q, sent);
    expect(batches.length).toBeGreaterThan(Buffer.byteLength(big) / SLICE_BYTES);
    for (const ops of batches) expect(Buffer.byteLength(textOf(ops))).toBeLessThanOrEqual(SLICE_BYTES);
    for (const ops of batches) expect(textOf(ops)).not.toMatch(/^[\udc00-\udfff]|[\ud800-\udbff]$/);
    expect(batches.map(textOf).join("")).toBe(big);
    const ends = batches.map((ops, i) => (ops.some((o) => o.op === "turn_end") ? i : -1)).filter((i) => i >= 0);
    expect(ends).toEqual([batches.length - 1]);
  });

  it("many short lines go in batches of at most SLICE_LINES line breaks; a tool call waits its turn", () => {
    const { q, state, sent, text, push } = renderQueue();
    q.push(state.beginTurn([]));
    q.flush();
    sent.length = 0;
    const many = "line\n".repeat(3 * SLICE_LINES + 5);
    text(many);
    push({ sessionUpdate: "tool_call", toolCallId: "t", title: "T", status: "pending" });
    q.endTurn("end_turn");
    const batches = drain(q, sent);
    for (const ops of batches) expect(textOf(ops).split("\n").length - 1).toBeLessThanOrEqual(SLICE_LINES);
    expect(batches.map(textOf).join("")).toBe(many);
    // The tool call is drawn after all the text before it.
    const flat = batches.flat();
    const tool = flat.findIndex((o) => o.op === "add" && o.block.type === "tool");
    const lastText = flat.map((o, i) => (o.op === "append" ? i : -1)).reduce((a, b) => Math.max(a, b));
    expect(tool).toBeGreaterThan(lastText);
  });

  it("cut: never more than the budget, never half a surrogate pair, always progress", () => {
    const budget = { bytes: 5, lines: 10 };
    expect(cut("😀😀", budget)).toEqual(["😀", "😀"]);
    expect(cut("x", { bytes: 0, lines: 10 })).toEqual(["", "x"]);
    expect(cut("😀", { bytes: 1, lines: 10 })).toEqual(["😀", ""]);
    expect(cut("a\nb\nc", { bytes: 100, lines: 1 })).toEqual(["a\nb", "\nc"]);
  });
});
