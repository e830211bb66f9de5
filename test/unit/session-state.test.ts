import { describe, expect, it } from "vitest";
import { parseSessionUpdate, StopReason, type SessionUpdate } from "../../src/protocol/schema.js";
import { SessionState } from "../../src/session/session-state.js";
import type { Block } from "../../src/session/blocks.js";

const u = (x: Record<string, unknown>): SessionUpdate => parseSessionUpdate(x);
const text = (t: string) => ({ type: "text", text: t });
const kinds = (s: SessionState) => s.blocks.map((b) => b.type);

describe("SessionState", () => {
  it("merges consecutive chunks of one kind and starts a new block on a change of kind", () => {
    const s = new SessionState();
    s.beginTurn([{ type: "text", text: "hi" }]);
    const e1 = s.apply(u({ sessionUpdate: "agent_thought_chunk", content: text("think") }));
    s.apply(u({ sessionUpdate: "agent_thought_chunk", content: text("ing") }));
    s.apply(u({ sessionUpdate: "agent_message_chunk", content: text("Hel") }));
    const e2 = s.apply(u({ sessionUpdate: "agent_message_chunk", content: text("lo") }));
    // The reply's header comes once, before the agent's first block of the turn.
    expect(kinds(s)).toEqual(["turn", "user", "reply", "thought", "agent"]);
    expect((s.blocks[3] as { text: string }).text).toBe("thinking");
    expect((s.blocks[4] as { text: string }).text).toBe("Hello");
    expect(e1.map((e) => e.type)).toEqual(["meta", "add", "add"]); // first update moves prompting -> streaming
    expect(e2).toEqual([{ type: "append", id: s.blocks[4]!.id, text: "lo" }]);
    expect(s.turnState).toBe("streaming");
  });

  it("upserts tool calls: a second tool_call for the same id updates in place, updates merge fields", () => {
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(
      u({
        sessionUpdate: "tool_call",
        toolCallId: "t1",
        title: "Read",
        kind: "read",
        status: "pending",
        locations: [{ path: "/a" }],
      }),
    );
    const again = s.apply(
      u({ sessionUpdate: "tool_call", toolCallId: "t1", title: "Read /a", rawInput: { path: "/a" } }),
    );
    expect(again.map((e) => e.type)).toEqual(["update"]);
    s.apply(u({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "in_progress" }));
    const call = s.toolCalls.get("t1")!;
    expect(call).toMatchObject({
      title: "Read /a",
      kind: "read",
      status: "in_progress",
      locations: [{ path: "/a" }],
      rawInput: { path: "/a" },
    });
    // content and locations replace whole arrays
    s.apply(
      u({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        locations: [{ path: "/b", line: 3 }],
        content: [{ type: "content", content: text("x") }],
      }),
    );
    s.apply(
      u({
        sessionUpdate: "tool_call_update",
        toolCallId: "t1",
        content: [{ type: "diff", path: "/b", oldText: "a", newText: "b" }],
      }),
    );
    expect(call.locations).toEqual([{ path: "/b", line: 3 }]);
    expect(call.content).toEqual([{ type: "diff", path: "/b", oldText: "a", newText: "b" }]);
    expect(s.blocks.filter((b) => b.type === "tool")).toHaveLength(1);
  });

  it("an update for an unseen tool call creates it", () => {
    const s = new SessionState();
    s.beginTurn([]);
    const ev = s.apply(u({ sessionUpdate: "tool_call_update", toolCallId: "late", status: "completed" }));
    expect(ev.map((e) => e.type)).toContain("add");
    expect(s.toolCalls.get("late")).toMatchObject({ status: "completed", title: "late" });
  });

  it("replaces the plan whole and redraws one plan block per turn", () => {
    const s = new SessionState();
    s.beginTurn([]);
    const entry = (c: string, status = "pending") => ({ content: c, priority: "medium", status });
    s.apply(u({ sessionUpdate: "plan", entries: [entry("a"), entry("b")] }));
    const ev = s.apply(u({ sessionUpdate: "plan", entries: [entry("a", "completed")] }));
    expect(ev.map((e) => e.type)).toEqual(["update"]);
    expect(s.plan).toEqual([entry("a", "completed")]);
    expect(s.blocks.filter((b) => b.type === "plan")).toHaveLength(1);
    s.endTurn("end_turn");
    s.beginTurn([]);
    s.apply(u({ sessionUpdate: "plan", entries: [entry("c")] }));
    expect(s.blocks.filter((b) => b.type === "plan")).toHaveLength(2);
  });

  it("cancel marks unfinished tool calls of this turn cancelled at once and keeps the turn open", () => {
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "done", title: "a", status: "completed" }));
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "run", title: "b", status: "in_progress" }));
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "wait", title: "c" }));
    const ev = s.beginCancel();
    expect(ev.filter((e) => e.type === "update")).toHaveLength(2);
    expect([...s.toolCalls.values()].map((c) => c.status)).toEqual(["completed", "cancelled", "cancelled"]);
    expect(s.turnState).toBe("cancelling");
    s.endTurn("cancelled");
    expect(s.turnState).toBe("idle");
    expect(s.lastStopReason).toBe("cancelled");
  });

  it("tracks the turn state machine through permission questions", () => {
    const s = new SessionState();
    expect(s.turnState).toBe("idle");
    s.beginTurn([]);
    expect(s.turnState).toBe("prompting");
    s.apply(u({ sessionUpdate: "agent_message_chunk", content: text("a") }));
    s.permissionAsked();
    s.permissionAsked();
    expect(s.turnState).toBe("waiting_permission");
    s.permissionAnswered();
    expect(s.turnState).toBe("waiting_permission");
    s.permissionAnswered();
    expect(s.turnState).toBe("streaming");
  });

  it.each(StopReason.options)("ends a turn with stop reason %s", (reason) => {
    const s = new SessionState();
    s.beginTurn([]);
    s.endTurn(reason);
    expect(s.lastStopReason).toBe(reason);
    expect(s.turnState).toBe("idle");
  });

  it("keeps unknown and invalid variants as notes instead of dropping the session", () => {
    const s = new SessionState();
    s.beginTurn([]);
    const unknown = u({ sessionUpdate: "hologram_update", beams: 3 });
    expect(unknown).toMatchObject({
      sessionUpdate: "unknown",
      originalKind: "hologram_update",
      raw: { beams: 3, sessionUpdate: "hologram_update" },
    });
    s.apply(unknown);
    s.apply(u({ sessionUpdate: "usage_update", used: "lots" }));
    s.apply(u({ sessionUpdate: "agent_message_chunk", content: text("still here") }));
    expect(kinds(s)).toEqual(["turn", "user", "note", "note", "reply", "agent"]);
    expect((s.blocks[3] as Extract<Block, { type: "note" }>).text).toMatch(/invalid usage_update: used/);
    expect(s.unknownKinds.get("hologram_update")).toBe(1);
  });

  it("keeps commands, modes, config options, usage and session info", () => {
    const s = new SessionState();
    s.applySetup({
      modes: {
        currentModeId: "ask",
        availableModes: [
          { id: "ask", name: "Ask" },
          { id: "code", name: "Code" },
        ],
      },
      configOptions: [
        {
          id: "model",
          name: "Model",
          type: "select",
          category: "model",
          currentValue: "m1",
          options: [{ value: "m1", name: "Model One" }],
        },
      ],
    });
    expect(s.currentMode).toBe("Ask");
    expect(s.currentModel).toBe("Model One");
    s.apply(u({ sessionUpdate: "current_mode_update", currentModeId: "code" }));
    s.apply(
      u({
        sessionUpdate: "available_commands_update",
        availableCommands: [{ name: "init", description: "set up", input: { hint: "dir" } }],
      }),
    );
    s.apply(u({ sessionUpdate: "usage_update", used: 1000, size: 200000, cost: { amount: 0.5, currency: "USD" } }));
    s.apply(u({ sessionUpdate: "session_info_update", title: "Fix the bug", unknownField: 1 }));
    s.apply(
      u({
        sessionUpdate: "config_option_update",
        configOptions: [{ id: "fast", name: "Fast", type: "boolean", currentValue: true }],
      }),
    );
    expect(s.currentMode).toBe("Code");
    expect(s.commands[0]).toMatchObject({ name: "init", input: { hint: "dir" } });
    expect(s.usage).toEqual({ used: 1000, size: 200000, cost: { amount: 0.5, currency: "USD" } });
    expect(s.title).toBe("Fix the bug");
    expect(s.configOptions).toHaveLength(1);
    expect(s.currentModel).toBeUndefined();
  });

  it("a replayed user message opens a turn (session/load)", () => {
    const s = new SessionState();
    s.apply(u({ sessionUpdate: "user_message_chunk", content: text("old question") }));
    s.apply(u({ sessionUpdate: "agent_message_chunk", content: text("old answer") }));
    s.apply(u({ sessionUpdate: "user_message_chunk", content: text("second") }));
    expect(kinds(s)).toEqual(["turn", "user", "reply", "agent", "turn", "user"]);
    expect(s.turn).toBe(2);
  });

  it("keeps unknown fields on known variants", () => {
    const up = u({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "a", extra: 1 },
      _meta: { x: 1 },
      vendor: "y",
    });
    expect(up).toMatchObject({ vendor: "y", _meta: { x: 1 }, content: { extra: 1 } });
  });

  it("shows terminal output streamed in _meta", () => {
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(
      u({
        sessionUpdate: "tool_call",
        toolCallId: "b",
        title: "Bash",
        kind: "execute",
        _meta: { terminal_info: { terminal_id: "T" } },
      }),
    );
    s.apply(
      u({
        sessionUpdate: "tool_call_update",
        toolCallId: "b",
        _meta: { terminal_output: { terminal_id: "T", data: "line1\n" } },
      }),
    );
    s.apply(
      u({
        sessionUpdate: "tool_call_update",
        toolCallId: "b",
        _meta: { terminal_exit: { terminal_id: "T", exit_code: 2, signal: null } },
      }),
    );
    expect(s.toolCalls.get("b")!.terminals).toEqual({
      T: { tail: "line1\n", full: "line1\n", exit: "exit 2", failed: true },
    });
    // Kept whole for gt and :AcpChatTerminal.
    expect(s.metaTerminals()).toEqual([{ id: "T", output: "line1\n", exit: "exit 2", failed: true }]);
  });
});
