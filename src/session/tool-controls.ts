/**
 * ACP v2's controls of one piece of work, on a tool call's state: which tool calls and
 * terminals the agent lets the client cancel (`capabilities.cancel`, carried in `_meta` by the
 * v2 translation), what a cancel of the call would send, whether one asked for is still
 * unconfirmed, and which calls the agent lists as running in the background. Pure.
 */
import { controlsMeta } from "../protocol/v2/meta.js";
import type { BackgroundWork } from "../protocol/v2/updates.js";
import { isOpen, type ToolCallState } from "./blocks.js";

const open = (call: ToolCallState) => isOpen(call.status);

/** A tool call update's controls applied to the call; the agent's own `cancelled` and `paused` read as such. */
export function applyControls(call: ToolCallState, meta: unknown): void {
  const c = controlsMeta(meta);
  if (!c) return;
  if (c.cancel !== undefined) call.canCancel = c.cancel || undefined;
  if (c.terminals) call.terminalCancel = { ...call.terminalCancel, ...c.terminals };
  if (c.cancelled) call.status = "cancelled";
  else if (c.paused) call.status = "paused";
}

/**
 * What cancelling this call sends: `tool_call/cancel` while the call runs and advertises it,
 * else `terminal/cancel` for a terminal it shows that runs and advertises it (a command left
 * running in the background after its call returned); undefined: nothing may be cancelled.
 */
export function cancelTarget(call: ToolCallState): { toolCallId: string } | { terminalId: string } | undefined {
  if (call.canCancel && open(call)) return { toolCallId: call.toolCallId };
  for (const [id, ok] of Object.entries(call.terminalCancel ?? {}))
    if (ok && call.terminals[id] !== undefined && call.terminals[id].exit === undefined) return { terminalId: id };
  return undefined;
}

/** A cancel was asked for and the agent has not confirmed it yet (a final status, or the terminal's exit). */
export function cancelling(call: ToolCallState): boolean {
  const c = call.cancelling;
  if (!c) return false;
  return "toolCallId" in c ? open(call) : call.terminals[c.terminalId]?.exit === undefined;
}

/**
 * The agent's complete list of background work, applied: a call is in the background when it
 * is listed, or a terminal it shows is. The calls whose mark changed, to redraw.
 */
export function markBackground(calls: Iterable<ToolCallState>, work: BackgroundWork[]): ToolCallState[] {
  const tools = new Set(work.flatMap((w) => (w.type === "tool_call" ? [w.toolCallId] : [])));
  const terminals = new Set(work.flatMap((w) => (w.type === "terminal" ? [w.terminalId] : [])));
  const changed: ToolCallState[] = [];
  for (const call of calls) {
    const on = tools.has(call.toolCallId) || Object.keys(call.terminals).some((t) => terminals.has(t));
    if (on === (call.background === true)) continue;
    call.background = on || undefined;
    changed.push(call);
  }
  return changed;
}
