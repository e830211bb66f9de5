/** The opt-in session/update variants: parsing after the hot path, and what SessionState makes of them. */
import { describe, expect, it } from "vitest";
import { parseOptInUpdate, parseSessionUpdate, type SessionUpdate } from "../../src/protocol/schema.js";
import { SessionState } from "../../src/session/session-state.js";
import { noticeLevel } from "../../src/session/blocks.js";
import { blockView } from "../../src/view/view-model.js";

const parse = (u: unknown) => parseOptInUpdate(parseSessionUpdate(u));

describe("parsing", () => {
  it("notice and compaction_* parse; the agent's mistakes stay unknown with the reason; others pass through untouched", () => {
    expect(parse({ sessionUpdate: "notice", severity: "info", title: "t" }).sessionUpdate).toBe("notice");
    expect(parse({ sessionUpdate: "compaction_update", compactionId: "c", status: "in_progress" }).sessionUpdate).toBe(
      "compaction_update",
    );
    expect(
      parse({ sessionUpdate: "compaction_summary_chunk", compactionId: "c", content: { type: "text", text: "x" } })
        .sessionUpdate,
    ).toBe("compaction_summary_chunk");
    const bad = parse({ sessionUpdate: "notice", severity: "info", title: "" });
    expect(bad).toMatchObject({
      sessionUpdate: "unknown",
      originalKind: "notice",
      reason: expect.stringMatching(/^invalid notice: title: /),
    });
    expect(parse({ sessionUpdate: "plan_update" })).toMatchObject({
      sessionUpdate: "unknown",
      reason: 'unknown session/update variant "plan_update"',
    });
    const chunk = { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } };
    expect(parse(chunk)).toBe(chunk);
  });

  it("severities map to note levels (custom and future ones read as info)", () => {
    expect(["info", "warning", "error", "_x", "critical"].map(noticeLevel)).toEqual([
      "info",
      "warn",
      "error",
      "info",
      "info",
    ]);
  });
});

describe("SessionState", () => {
  const apply = (s: SessionState, u: unknown) => s.apply(parse(u) as SessionUpdate);

  it("a notice is a note with its level, the description on the next line", () => {
    const s = new SessionState("a");
    const ev = apply(s, { sessionUpdate: "notice", severity: "warning", title: "Slow", description: "retrying" });
    expect(ev).toEqual([
      { type: "add", block: expect.objectContaining({ type: "note", text: "Slow\nretrying", level: "warn" }) },
    ]);
  });

  it("compaction: the first update places the block; later ones patch it (summary absent: kept, null or []: cleared, else replaced)", () => {
    const s = new SessionState("a");
    const first = apply(s, {
      sessionUpdate: "compaction_summary_chunk",
      compactionId: "c",
      content: { type: "text", text: "one " },
    });
    expect(first).toEqual([
      { type: "add", block: expect.objectContaining({ type: "compaction", status: "in_progress", summary: "one " }) },
    ]);
    apply(s, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "later text" } });
    const block = () => s.blocks.find((b) => b.type === "compaction")!;
    expect(
      apply(s, {
        sessionUpdate: "compaction_summary_chunk",
        compactionId: "c",
        content: { type: "text", text: "two" },
      }),
    ).toEqual([{ type: "update", block: block() }]);
    apply(s, { sessionUpdate: "compaction_update", compactionId: "c", status: "completed" });
    expect(block()).toMatchObject({ status: "completed", summary: "one two" });
    expect(s.blocks.indexOf(block())).toBe(0); // still where it first appeared
    apply(s, {
      sessionUpdate: "compaction_update",
      compactionId: "c",
      status: "completed",
      summary: [{ type: "text", text: "new" }],
    });
    expect(block()).toMatchObject({ summary: "new" });
    apply(s, { sessionUpdate: "compaction_update", compactionId: "c", status: "completed", summary: [] });
    expect(block()).toMatchObject({ summary: "" });
    apply(s, {
      sessionUpdate: "compaction_update",
      compactionId: "c",
      status: "failed",
      summary: [{ type: "text", text: "s" }],
      error: "boom",
    });
    apply(s, { sessionUpdate: "compaction_update", compactionId: "c", status: "failed", summary: null, error: null });
    expect(block()).toMatchObject({ status: "failed", summary: "" });
    expect((block() as { error?: string }).error).toBeUndefined();
    expect(s.unknownKinds.size).toBe(0);
  });

  it("the compaction's view: status and error on one line each, the summary as text", () => {
    const s = new SessionState("a");
    apply(s, {
      sessionUpdate: "compaction_update",
      compactionId: "c",
      status: "fail\ned",
      error: "bad\nthing",
      summary: [{ type: "text", text: "a\nb" }],
    });
    expect(blockView(s.blocks[0]!)).toEqual({
      id: "compaction:c",
      type: "compaction",
      status: "fail\\ned",
      error: "bad\\nthing",
      summary: "a\nb",
    });
  });
});
