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
    // Streamed chunks win over a copy taken from rawOutput before them.
    if (t.fromRaw) {
      t.tail = "";
      t.full = "";
      t.fromRaw = undefined;
    }
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

/**
 * codex-acp sometimes sends a command's output only in `rawOutput` (`aggregated_output`, or
 * `stdout` and `stderr`, or `formatted_output`) beside `_meta.terminal_exit`, with no
 * `terminal_output` chunk: that text becomes the output of the call's `_meta` terminals that got
 * none, so the tail shows it and gt opens it.
 */
export function fillTerminalsFromRawOutput(call: ToolCallState): void {
  const text = rawCommandOutput(call.rawOutput);
  if (text === undefined) return;
  for (const t of Object.values(call.terminals)) {
    if (t.full === undefined || (t.full !== "" && !t.fromRaw)) continue;
    const full = text.length > META_OUTPUT_CHARS ? text.slice(text.length - META_OUTPUT_CHARS) : text;
    t.full = full;
    t.tail = clipTail(full);
    t.dropped = text.length > META_OUTPUT_CHARS || undefined;
    t.fromRaw = true;
  }
}

/** A command's output as codex-acp reports it in `rawOutput` (undefined: none there). */
function rawCommandOutput(raw: unknown): string | undefined {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const r = raw as Record<string, unknown>;
  const str = (k: string) => (typeof r[k] === "string" && r[k] !== "" ? (r[k] as string) : undefined);
  const agg = str("aggregated_output");
  if (agg !== undefined) return agg;
  const parts = [str("stdout"), str("stderr")].filter((x): x is string => x !== undefined);
  if (parts.length > 0) return parts.map((p) => (p.endsWith("\n") ? p : `${p}\n`)).join("");
  return str("formatted_output");
}

/** A `_meta` terminal's whole output, for gt and :AcpChatTerminal. */
export interface MetaTerminal {
  id: string;
  output: string;
  exit?: string;
  failed?: boolean;
  truncated?: boolean;
}

/** The terminals agents ran themselves and streamed in `_meta`, in the calls' order. */
export function metaTerminalsOf(calls: Iterable<ToolCallState>): MetaTerminal[] {
  const out: MetaTerminal[] = [];
  for (const call of calls)
    for (const [id, t] of Object.entries(call.terminals))
      if (t.full !== undefined)
        out.push({
          id,
          output: t.full,
          exit: t.exit,
          failed: t.failed || undefined,
          truncated: t.dropped || undefined,
        });
  return out;
}

/** A client terminal's output, into the tool calls that show it; the calls changed. */
export function showClientTerminal(
  calls: Iterable<ToolCallState>,
  terminalId: string,
  tail: string,
  exit?: string,
  failed?: boolean,
): ToolCallState[] {
  const changed: ToolCallState[] = [];
  for (const call of calls) {
    if (!call.content.some((c) => c.type === "terminal" && c.terminalId === terminalId)) continue;
    call.terminals[terminalId] = failed ? { tail: clipTail(tail), exit, failed } : { tail: clipTail(tail), exit };
    changed.push(call);
  }
  return changed;
}
