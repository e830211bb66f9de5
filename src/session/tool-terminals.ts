/**
 * Terminals shown in tool calls: a client terminal's tail, and the output an agent streams in a
 * tool call's `_meta` (claude-agent-acp, codex-acp: terminal_info, terminal_output, terminal_exit).
 */
import { describeTerminalExit } from "../terminals/exit-status.js";
import { exitFailed, type ToolCallState } from "./blocks.js";
import { REPLACE_META } from "../protocol/v2/meta.js";

const TAIL_CHARS = 4000;
/** How much of a `_meta` terminal's output is kept whole (characters). */
const META_OUTPUT_CHARS = 1_000_000;

export function clipTail(s: string): string {
  return s.length > TAIL_CHARS ? s.slice(s.length - TAIL_CHARS) : s;
}

/** Fold a tool call's `_meta` terminal fields into its terminals. */
export function applyTerminalMeta(call: ToolCallState, metaField: unknown): void {
  if (!metaField || typeof metaField !== "object") return;
  const m = metaField as Record<
    string,
    { terminal_id?: string; data?: string; exit_code?: number | null; signal?: string | null } | undefined
  >;
  const id = m.terminal_info?.terminal_id ?? m.terminal_output?.terminal_id ?? m.terminal_exit?.terminal_id;
  if (!id) return;
  const t = (call.terminals[id] ??= { tail: "", full: "" });
  // An agent-owned terminal's snapshot (ACP v2 `terminal_update.output`) replaces its output.
  if ((m.terminal_output as Record<string, unknown> | undefined)?.[REPLACE_META] === true) {
    t.tail = "";
    t.full = "";
    t.dropped = false;
  }
  if (typeof m.terminal_output?.data === "string") {
    t.tail = clipTail(t.tail + m.terminal_output.data);
    // The whole output too, for gt and :AcpChatTerminal (its start dropped past the limit).
    const full = (t.full ?? "") + m.terminal_output.data;
    if (full.length > META_OUTPUT_CHARS) t.dropped = true;
    t.full = full.length > META_OUTPUT_CHARS ? full.slice(full.length - META_OUTPUT_CHARS) : full;
  }
  if (m.terminal_exit) {
    const status = { exitCode: m.terminal_exit.exit_code ?? null, signal: m.terminal_exit.signal ?? null };
    t.exit = describeTerminalExit(status);
    t.failed = exitFailed(status);
  }
}
