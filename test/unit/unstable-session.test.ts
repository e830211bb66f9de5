/** The unstable feature modules' state and views (src/session/features/, src/view/features/), without an editor. */
import { describe, expect, it } from "vitest";
import { parseSessionUpdate } from "../../src/protocol/schema.js";
import { parseUnstableUpdate, type UnstableSessionUpdate } from "../../src/protocol/unstable-schema.js";
import { blockView } from "../../src/view/view-model.js";
import { INNER_BLOCKS, INNER_LINES, NESTED_BLOCKS, NESTED_DEPTH, NESTED_LINES } from "../../src/view/feature-views.js";
import { SessionState } from "../../src/session/session-state.js";
import { SessionFeatures, activeFeatures } from "../../src/session/features/index.js";
import { fileLocation } from "../../src/session/features/plans.js";
import { MAX_MESSAGE_CHARS } from "../../src/session/features/session-messages.js";
import { MAX_DEPTH, MAX_SUBAGENTS } from "../../src/session/features/subagents.js";
import { Redactor } from "../../src/trace/redact.js";

const parse = (u: Record<string, unknown>) => parseUnstableUpdate(parseSessionUpdate(u)) as UnstableSessionUpdate;

function session(secrets: string[] = []) {
  const state = new SessionState("a");
  state.beginTurn([{ type: "text", text: "go" }]);
  return { state, u: new SessionFeatures(state, new Redactor(secrets), activeFeatures({ unstable: true })) };
}

describe("plans by id", () => {
  it("one block per plan and turn, redrawn in place; a later turn's update is a new block; removal marks the latest", () => {
    const { state, u } = session();
    const items = (status: string) =>
      parse({
        sessionUpdate: "plan_update",
        plan: { type: "items", planId: "p", entries: [{ content: "x", priority: "low", status }] },
      });
    expect(u.apply(items("pending")).map((e) => e.type)).toEqual(["add", "add"]); // the reply's header, then the plan
    expect(u.apply(items("completed"))).toEqual([
      {
        type: "update",
        block: expect.objectContaining({
          type: "plan_doc",
          entries: [expect.objectContaining({ status: "completed" })],
        }),
      },
    ]);
    state.endTurn("end_turn");
    state.beginTurn([{ type: "text", text: "again" }]);
    u.apply(items("in_progress"));
    const plans = state.blocks.filter((b) => b.type === "plan_doc");
    expect(plans).toHaveLength(2);
    u.apply(parse({ sessionUpdate: "plan_removed", planId: "p" }));
    expect(plans.map((b) => (b as { removed?: boolean }).removed)).toEqual([undefined, true]);
    // An id never shown: a note, not a crash.
    expect(u.apply(parse({ sessionUpdate: "plan_removed", planId: "nope" }))).toEqual([
      { type: "add", block: expect.objectContaining({ type: "note", text: expect.stringContaining("nope") }) },
    ]);
  });

  it("a file plan shows a path for file:// URIs (percent-decoded), the URI otherwise", () => {
    expect(fileLocation("file:///tmp/my%20plan.md")).toBe("/tmp/my plan.md");
    expect(fileLocation("https://example.com/plan")).toBe("https://example.com/plan");
  });
});

describe("subagents", () => {
  it("patch semantics: omitted keeps, null clears; the child's own updates build its transcript, redacted", () => {
    const { state, u } = session(["child-secret-123456"]);
    u.apply(
      parse({
        sessionUpdate: "subagent_update",
        sessionId: "k",
        title: "Kid",
        description: "d",
        state: { state: "running" },
      }),
    );
    const block = state.blocks.find((b) => b.type === "subagent") as Extract<
      (typeof state.blocks)[number],
      { type: "subagent" }
    >;
    u.apply(
      parse({
        sessionUpdate: "subagent_update",
        sessionId: "k",
        description: null,
        state: { state: "idle", stopReason: "max_tokens" },
      }),
    );
    expect(block).toMatchObject({
      title: "Kid",
      description: undefined,
      state: { state: "idle", stopReason: "max_tokens" },
    });
    u.apply(parse({ sessionUpdate: "subagent_update", sessionId: "k", capabilities: { cancel: {} } }));
    expect(block.canCancel).toBe(true);
    u.apply(parse({ sessionUpdate: "subagent_update", sessionId: "k", capabilities: null }));
    expect(block.canCancel).toBeUndefined();
    expect(u.owns("k")).toBe(true);
    expect(
      u.route(
        "other",
        parseSessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } }),
      ),
    ).toBeUndefined();
    const ev = u.route(
      "k",
      parseSessionUpdate({
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: "key child-secret-123456 ok" },
      }),
    );
    expect(ev).toEqual([{ type: "update", block }]);
    u.flush();
    expect(blockView(block)).toMatchObject({
      type: "subagent",
      title: "Kid",
      state: "idle",
      stopReason: "max_tokens",
      blocks: [{ type: "agent", text: "key [REDACTED] ok" }],
    });
  });

  it("a child's child is routed through its parent's block; messages name the child by its title", () => {
    const { state, u } = session();
    u.apply(parse({ sessionUpdate: "subagent_update", sessionId: "k", title: "Kid" }));
    u.route("k", parse({ sessionUpdate: "subagent_update", sessionId: "gk", title: "Grandkid" }));
    expect(u.owns("gk")).toBe(true);
    const ev = u.route(
      "gk",
      parseSessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "deep" } }),
    );
    expect(ev).toEqual([{ type: "update", block: expect.objectContaining({ sessionId: "k" }) }]);
    expect(u.child("gk")!.state.blocks).toEqual([expect.objectContaining({ type: "agent", text: "deep" })]);
    u.apply(
      parse({
        sessionUpdate: "session_message",
        messageId: "m",
        senderSessionId: "k",
        content: [{ type: "text", text: "hi" }],
      }),
    );
    expect(state.blocks.at(-1)).toMatchObject({ type: "session_message", direction: "from", peer: "Kid", text: "hi" });
  });

  it("nested: the last NESTED_BLOCKS blocks without turn headers, each text cut to its last NESTED_LINES lines", () => {
    const { state, u } = session();
    u.apply(parse({ sessionUpdate: "subagent_update", sessionId: "k" }));
    const child = u.child("k")!.state;
    child.apply(parseSessionUpdate({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "task" } }));
    const long = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join("\n");
    child.apply(parseSessionUpdate({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: long } }));
    const view = blockView(state.blocks.find((b) => b.type === "subagent")!) as {
      blocks: { type: string; text: string }[];
      hidden?: number;
    };
    expect(view.blocks.map((b) => b.type)).toEqual(["user", "agent"]);
    const lines = view.blocks[1]!.text.split("\n");
    expect(lines).toHaveLength(NESTED_LINES + 1);
    expect(lines[0]).toBe(`… (${50 - NESTED_LINES} earlier lines)`);
    expect(lines.at(-1)).toBe("line 50");
    for (let i = 0; i < NESTED_BLOCKS + 5; i++) child.note(`n${i}`);
    const many = blockView(state.blocks.find((b) => b.type === "subagent")!) as { blocks: unknown[]; hidden?: number };
    expect(many.blocks).toHaveLength(NESTED_BLOCKS);
    expect(many.hidden).toBe(2 + 5);
  });

  it("a hostile tree: depth, count and ids seen twice (cycles) are refused, each said once in the chat's own transcript", () => {
    const { state, u } = session();
    u.apply(parse({ sessionUpdate: "subagent_update", sessionId: "k0" }));
    for (let i = 1; i <= MAX_DEPTH + 3; i++)
      u.route(`k${i - 1}`, parse({ sessionUpdate: "subagent_update", sessionId: `k${i}` }));
    expect(u.owns(`k${MAX_DEPTH - 1}`)).toBe(true);
    expect(u.owns(`k${MAX_DEPTH}`)).toBe(false);
    // k1 names k0 (its parent) as its child: refused, routing unchanged.
    const ev = u.route("k1", parse({ sessionUpdate: "subagent_update", sessionId: "k0", title: "cycle" }));
    expect(ev).toEqual([
      { type: "update", block: expect.objectContaining({ sessionId: "k0" }) },
      { type: "add", block: expect.objectContaining({ type: "note", text: expect.stringContaining("k0") }) },
    ]);
    // The chat's own session named as a subagent: refused.
    u.rootId = "root";
    expect(u.apply(parse({ sessionUpdate: "subagent_update", sessionId: "root" }))).toEqual([
      {
        type: "add",
        block: expect.objectContaining({
          type: "note",
          text: expect.stringContaining("this chat's own session (root)"),
        }),
      },
    ]);
    for (let i = 0; i < MAX_SUBAGENTS + 50; i++)
      u.apply(parse({ sessionUpdate: "subagent_update", sessionId: `f${i}` }));
    expect(state.blocks.filter((b) => b.type === "subagent")).toHaveLength(MAX_SUBAGENTS - MAX_DEPTH + 1);
    const notes = state.blocks.filter((b) => b.type === "note").map((b) => (b as { text: string }).text);
    expect(notes).toEqual([
      expect.stringContaining(`more than ${MAX_DEPTH} deep`),
      expect.stringContaining("already one elsewhere"),
      expect.stringContaining("own session"),
      expect.stringContaining(`more than ${MAX_SUBAGENTS} subagents`),
    ]);
    // Views nest NESTED_DEPTH deep, deeper is a header and a count.
    type V = { blocks: V[]; hidden?: number; text?: string };
    const view = () => blockView(state.blocks.find((b) => b.type === "subagent")!) as V;
    u.child(`k${NESTED_DEPTH}`)!.state.note("deep");
    let v = view();
    for (let d = 0; d < NESTED_DEPTH; d++) v = v.blocks.find((b) => "blocks" in b)!;
    expect(v.blocks).toEqual([]);
    expect(v.hidden).toBe(1);
    // A child's child shows its last INNER_BLOCKS blocks, each text's last INNER_LINES lines.
    const k1 = u.child("k1")!.state;
    for (let i = 0; i < 5; i++) k1.note(Array.from({ length: 9 }, (_, j) => `n${i}.${j}`).join("\n"));
    const inner = view().blocks[0]!;
    expect(inner.blocks.map((b) => b.text?.split("\n").length)).toEqual(Array(INNER_BLOCKS).fill(INNER_LINES + 1));
    expect(inner.hidden).toBe(6 - INNER_BLOCKS);
  });

  it("a message streamed in chunks: a secret split across them is redacted, the text is capped", () => {
    const { state, u } = session(["split-secret-9876"]);
    const chunk = (text: string) =>
      parse({ sessionUpdate: "session_message_chunk", messageId: "m", content: { type: "text", text } });
    u.apply(chunk("a split-sec"));
    u.apply(chunk("ret-9876 b"));
    u.flush();
    const block = state.blocks.find((b) => b.type === "session_message") as { text: string; omitted?: number };
    expect(block.text).toBe("a [REDACTED] b");
    u.apply(chunk("x".repeat(MAX_MESSAGE_CHARS)));
    u.flush();
    expect(block.text).toHaveLength(MAX_MESSAGE_CHARS);
    expect(block.omitted).toBe("a [REDACTED] b".length);
  });
});
