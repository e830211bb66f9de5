/**
 * ACP v2 work apart from the turn, the pure parts: `capabilities.cancel` of tool calls and
 * terminals as last patched (an object grants, null or malformed does not), what gC would send,
 * "cancelling…" until the agent confirms, the agent's `cancelled`, and the background list of
 * state updates (malformed = not reported; listed work is not settled by the turn's end, and
 * what it sends after idle is no late work).
 */
import { describe, expect, it } from "vitest";
import { V2Session } from "../../src/protocol/v2/updates.js";
import { SessionState } from "../../src/session/session-state.js";
import { cancelTarget, markBackground } from "../../src/session/tool-controls.js";
import { blockView } from "../../src/view/view-model.js";
import type { SessionUpdate } from "../../src/protocol/schema.js";

const b64 = (s: string) => Buffer.from(s).toString("base64");

function session() {
  const s = new V2Session(async () => undefined);
  const state = new SessionState();
  state.stateReported = true;
  state.beginTurn([{ type: "text", text: "hi" }]);
  const apply = async (u: Record<string, unknown>) => {
    const out = await s.translate(u);
    for (const v1 of out.updates) state.apply(v1 as unknown as SessionUpdate);
    return out;
  };
  const view = (id: string) => {
    const call = state.toolCalls.get(id)!;
    return blockView(state.blockById(call.blockId)!) as { status: string; cancel?: string; background?: boolean };
  };
  return { state, apply, view };
}

describe("cancel capabilities", () => {
  it("a tool call's: an object grants, null clears, omitted leaves it, malformed is none; only while it runs", async () => {
    const { state, apply, view } = session();
    const call = () => state.toolCalls.get("t")!;
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "t", title: "Search", status: "in_progress" });
    expect(cancelTarget(call())).toBeUndefined();
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "t", capabilities: { cancel: {} } });
    expect(cancelTarget(call())).toEqual({ toolCallId: "t" });
    expect(view("t").cancel).toBe("tool_call");
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "t", title: "Search more" });
    expect(cancelTarget(call())).toEqual({ toolCallId: "t" });
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "t", capabilities: { cancel: null } });
    expect(cancelTarget(call())).toBeUndefined();
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "t", capabilities: { cancel: {} } });
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "t", capabilities: "yes" });
    expect(cancelTarget(call())).toBeUndefined();
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "t", capabilities: { cancel: {} } });
    // Asked: "cancelling…" and no hint, until the agent says it is cancelled (v1 has no such status).
    call().cancelling = { toolCallId: "t" };
    expect(view("t")).toMatchObject({ status: "cancelling" });
    expect(view("t").cancel).toBeUndefined();
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "t", status: "cancelled" });
    expect(call().status).toBe("cancelled");
    expect(view("t").status).toBe("cancelled");
    // A final status ends it, even if the agent still advertises the cancel.
    expect(cancelTarget(call())).toBeUndefined();
  });

  it("a terminal's: gC on its tool call stops the command while it runs, also after the call completed", async () => {
    const { state, apply, view } = session();
    await apply({
      sessionUpdate: "tool_call_update",
      toolCallId: "srv",
      status: "in_progress",
      content: [{ type: "terminal", terminalId: "x" }],
    });
    await apply({ sessionUpdate: "terminal_update", terminalId: "x", command: "serve", capabilities: { cancel: {} } });
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "srv", status: "completed" });
    const call = state.toolCalls.get("srv")!;
    expect(cancelTarget(call)).toEqual({ terminalId: "x" });
    expect(view("srv").cancel).toBe("terminal");
    call.cancelling = { terminalId: "x" };
    expect(view("srv").status).toBe("cancelling");
    await apply({ sessionUpdate: "terminal_output_chunk", terminalId: "x", data: b64("more\n") });
    expect(view("srv").status).toBe("cancelling");
    await apply({
      sessionUpdate: "terminal_update",
      terminalId: "x",
      exitStatus: { exitCode: null, signal: "SIGTERM" },
    });
    expect(view("srv").status).toBe("completed");
    expect(cancelTarget(call)).toBeUndefined();
    // A terminal linked after it granted the cancel carries the grant to its tool call.
    await apply({ sessionUpdate: "terminal_update", terminalId: "y", command: "watch", capabilities: { cancel: {} } });
    await apply({
      sessionUpdate: "tool_call_update",
      toolCallId: "w",
      content: [{ type: "terminal", terminalId: "y" }],
    });
    expect(cancelTarget(state.toolCalls.get("w")!)).toEqual({ terminalId: "y" });
  });
});

describe("background work", () => {
  it("the list: malformed is not reported, unknown kinds are work, [] is none", async () => {
    const { apply } = session();
    const bg = async (background: unknown) =>
      (await apply({ sessionUpdate: "state_update", state: "running", background })).state?.background;
    expect(await bg(undefined)).toBeUndefined();
    expect(await bg(null)).toBeUndefined();
    expect(await bg([{ type: "terminal" }])).toBeUndefined();
    expect(await bg(["x"])).toBeUndefined();
    expect(await bg([])).toEqual([]);
    expect(
      await bg([{ type: "terminal", terminalId: "x" }, { type: "tool_call", toolCallId: "t" }, { type: "_acme_job" }]),
    ).toEqual([{ type: "terminal", terminalId: "x" }, { type: "tool_call", toolCallId: "t" }, { type: "other" }]);
  });

  it("listed work stays running past the turn's end and its cancel; what it sends after idle is no late work", async () => {
    const { state, apply, view } = session();
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "fg", status: "in_progress" });
    await apply({ sessionUpdate: "tool_call_update", toolCallId: "watch", status: "in_progress" });
    await apply({
      sessionUpdate: "tool_call_update",
      toolCallId: "srv",
      status: "in_progress",
      content: [{ type: "terminal", terminalId: "x" }],
    });
    const changed = markBackground(state.toolCalls.values(), [
      { type: "tool_call", toolCallId: "watch" },
      { type: "terminal", terminalId: "x" },
    ]);
    expect(changed.map((c) => c.toolCallId)).toEqual(["watch", "srv"]);
    expect(view("watch").background).toBe(true);
    state.beginCancel();
    state.endTurn("cancelled");
    expect(["fg", "watch", "srv"].map((id) => state.toolCalls.get(id)!.status)).toEqual([
      "cancelled",
      "in_progress",
      "in_progress",
    ]);
    await apply({ sessionUpdate: "terminal_output_chunk", terminalId: "x", data: b64("tick\n") });
    expect(state.lateWork).toBe(false);
    expect(state.toolCalls.get("srv")!.terminals.x!.full).toBe("tick\n");
    // Off the list: marked no more; an unchanged mark is not redrawn.
    expect(
      markBackground(state.toolCalls.values(), [{ type: "terminal", terminalId: "x" }]).map((c) => c.toolCallId),
    ).toEqual(["watch"]);
    expect(view("watch").background).toBeUndefined();
  });

  it("a terminal listed before any tool call shows it gets its block at once", async () => {
    const { state, apply } = session();
    await apply({ sessionUpdate: "terminal_update", terminalId: "bg", command: "make watch" });
    await apply({ sessionUpdate: "state_update", state: "running", background: [] });
    expect(state.toolCalls.has("terminal:bg")).toBe(false);
    await apply({
      sessionUpdate: "state_update",
      state: "running",
      background: [{ type: "terminal", terminalId: "bg" }],
    });
    expect(state.toolCalls.get("terminal:bg")!.title).toBe("make watch");
  });
});
