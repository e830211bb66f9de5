/**
 * What the transcript should say, as plain data for the Lua side (which decides how it looks).
 * Node owns the content: tool call summaries, diff figures, terminal tails, plan entries.
 * Every string that Lua draws on one line (titles, paths, raw input, plan entries) is one line
 * here already: newlines, control and bidi characters escaped, length capped.
 */
import { oneLine } from "../session/one-line.js";
import type { SessionState } from "../session/session-state.js";
import type { Block, ToolCallState } from "../session/blocks.js";
import type { FileChange } from "../checkpoints/types.js";
import type {
  BlockView,
  ChangedFileView,
  ChatStateName,
  MediaView,
  OptionView,
  StatusView,
  ToolContentView,
} from "../wire/index.js";
import { contentText } from "../session/blocks.js";
import { cancelTarget, cancelling } from "../session/tool-controls.js";
import { commandLine } from "../session/permission/rules.js";
import { summarizeDiff } from "./diff-summary.js";
import { featureView } from "./feature-views.js";
import { decodedSize, type MediaBlock } from "../session/media.js";
import { planEntryWords } from "../protocol/v2/meta.js";

const TAIL_LINES = 8;
const INPUT_CHARS = 200;
const TITLE_CHARS = 300;
/** Output lines shown while a tool call's output is folded. */
export const FOLD_LINES = 5;
/** Output beyond this is not sent at all (the agent has it; the transcript is for reading). */
const MAX_OUTPUT_LINES = 400;
const MAX_OUTPUT_CHARS = 40_000;

export function blockView(b: Block): BlockView {
  switch (b.type) {
    case "turn":
      return { id: b.id, type: "turn", turn: b.turn };
    case "reply":
      return { id: b.id, type: "reply", agent: oneLine(b.agent, 80), turn: b.turn };
    case "end":
      return { id: b.id, type: "end", reason: b.reason };
    case "user":
    case "agent":
    case "thought":
      return { id: b.id, type: b.type, text: b.text };
    case "tool":
      return toolView(b.id, b.call);
    case "plan":
      return {
        id: b.id,
        type: "plan",
        entries: b.entries.map((e) => {
          // A v2 word v1 has none for (`cancelled`, an extension) is what the user sees.
          const own = planEntryWords(e._meta);
          return {
            content: oneLine(e.content, 500),
            status: oneLine(own.status ?? e.status, 40),
            priority: oneLine(own.priority ?? e.priority, 40),
          };
        }),
      };
    case "note":
      return { id: b.id, type: "note", text: b.text, level: b.level };
    case "media":
      return { id: b.id, type: "media", role: b.role, ...mediaView(b.media, b.name) };
    case "compaction":
      return {
        id: b.id,
        type: "compaction",
        status: oneLine(b.status, 40),
        error: b.error === undefined ? undefined : oneLine(b.error, TITLE_CHARS),
        summary: (textView(b.summary) as { text: string }).text,
      };
    case "changes":
      return {
        id: b.id,
        type: "changes",
        step: b.step,
        title: oneLine(b.title, TITLE_CHARS),
        files: b.files.slice(0, MAX_CHANGED_FILES).map(changedFileView),
        more: b.files.length > MAX_CHANGED_FILES ? b.files.length - MAX_CHANGED_FILES : undefined,
        rewindTurn: b.rewindTurn,
      };
    case "plan_doc":
    case "subagent":
    case "session_message":
      return featureView(b, { blockView: blockView as (b: never) => BlockView });
  }
}

/** A block lists this many files at most (the quickfix list of :AcpChatChanges has them all). */
const MAX_CHANGED_FILES = 200;

function changedFileView(f: FileChange): ChangedFileView {
  return {
    ...f,
    path: oneLine(f.path, TITLE_CHARS),
    from: f.from === undefined ? undefined : oneLine(f.from, TITLE_CHARS),
  };
}

function toolView(id: string, call: ToolCallState): BlockView {
  const content: ToolContentView[] = [];
  for (const [index, c] of call.content.entries()) {
    if (c.type === "content" && (c.content.type === "image" || c.content.type === "audio"))
      content.push({ type: "media", index, ...mediaView(c.content) });
    else if (c.type === "content") content.push(textView(contentText(c.content)));
    else if (c.type === "diff")
      content.push({ type: "diff", path: c.path, ...summarizeDiff(c.oldText, c.newText, c.path) });
    else {
      const t = call.terminals[c.terminalId];
      content.push(terminalView(c.terminalId, t));
    }
  }
  // Terminals streamed through _meta (claude-agent-acp, codex-acp) have no terminal content entry.
  for (const [tid, t] of Object.entries(call.terminals)) {
    if (!call.content.some((c) => c.type === "terminal" && c.terminalId === tid)) content.push(terminalView(tid, t));
  }
  // No content, but the result in rawOutput (codex-acp: formatted_output, stdout, stderr).
  if (content.length === 0) {
    const out = rawOutputText(call.rawOutput);
    if (out) content.push(textView(out));
  }
  // A command the user stopped (gC) exits by a signal: that is no failure of the call.
  const stopped = call.cancelling && "terminalId" in call.cancelling ? call.cancelling.terminalId : undefined;
  const terminalFailed = content.some((c) => c.type === "terminal" && c.failed && c.id !== stopped);
  const target = cancelling(call) ? undefined : cancelTarget(call);
  return {
    id,
    type: "tool",
    toolCallId: call.toolCallId,
    title: oneLine(call.title, TITLE_CHARS),
    kind: oneLine(call.kind, 40),
    // A command that failed is shown failed, whatever the agent concluded; one the user
    // rejected is shown rejected, unless the agent went on and completed it.
    status: cancelling(call)
      ? "cancelling"
      : call.rejected && call.status !== "completed" && call.status !== "in_progress"
        ? "rejected"
        : terminalFailed && call.status === "completed"
          ? "failed"
          : call.status,
    locations: call.locations.map((l) => ({ path: oneLine(l.path, TITLE_CHARS), line: l.line })),
    content,
    input: compactInput(call.rawInput),
    ...(target ? { cancel: "toolCallId" in target ? ("tool_call" as const) : ("terminal" as const) } : {}),
    ...(call.background ? { background: true } : {}),
    ...subagentCalls(call.children),
  };
}

/** A Task's subagent tool calls, one line each (the last MAX_CHILDREN; how many more). */
const MAX_CHILDREN = 200;
function subagentCalls(children: ToolCallState[] | undefined): {
  children?: { title: string; kind: string; status: string }[];
  moreChildren?: number;
} {
  if (!children || children.length === 0) return {};
  const shown = children.slice(-MAX_CHILDREN).map((c) => ({
    title: oneLine(c.title || c.toolCallId, TITLE_CHARS),
    kind: oneLine(c.kind, 40),
    status: c.status,
  }));
  return { children: shown, moreChildren: children.length > MAX_CHILDREN ? children.length - MAX_CHILDREN : undefined };
}

/** What the transcript says of an image or audio clip (its size decoded from the base64 length). */
export function mediaView(m: MediaBlock, name?: string): MediaView {
  return {
    kind: m.type,
    mime: oneLine(m.mimeType, 80),
    size: decodedSize(m.data),
    name: name === undefined ? undefined : oneLine(name, 120),
  };
}

function terminalView(id: string, t: ToolCallState["terminals"][string] | undefined): ToolContentView {
  return { type: "terminal", id, tail: tail(t?.tail ?? ""), exit: t?.exit, failed: t?.failed || undefined };
}

function tail(s: string): string {
  const lines = s.replace(/\n$/, "").split("\n");
  return lines.slice(-TAIL_LINES).join("\n");
}

const REMINDER = /<system-reminder>[\s\S]*?(?:<\/system-reminder>|$)/g;

/**
 * A tool's output text: agent-internal blocks (`<system-reminder>`) moved after the output,
 * where only expanding shows them; long output folded to its first lines; very long output cut.
 */
export function textView(text: string): ToolContentView {
  const internal: string[] = [];
  const body = text.replace(REMINDER, (m) => {
    internal.push(m.trim());
    return "";
  });
  const lines = body
    .replace(/\s+$/, "")
    .replace(/^\s*\n/, "")
    .split("\n");
  if (lines.length === 1 && lines[0] === "") lines.pop();
  const fold = Math.min(FOLD_LINES, lines.length);
  for (const r of internal) lines.push(...r.split("\n"));
  let chars = 0;
  let keep = 0;
  while (keep < lines.length && keep < MAX_OUTPUT_LINES && chars + lines[keep]!.length <= MAX_OUTPUT_CHARS)
    chars += lines[keep++]!.length + 1;
  const cut = lines.length - keep;
  const shown = lines.slice(0, keep);
  if (cut > 0) shown.push(`[${cut} more lines not shown]`);
  return shown.length > fold
    ? { type: "text", text: shown.join("\n"), fold }
    : { type: "text", text: shown.join("\n") };
}

/** What a tool's `rawOutput` says, as text, when it carries the result (undefined: nothing to show). */
export function rawOutputText(raw: unknown): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return raw.trim() ? raw : undefined;
  if (Array.isArray(raw)) {
    const texts = raw.map((x) =>
      x && typeof x === "object" && typeof (x as { text?: unknown }).text === "string"
        ? (x as { text: string }).text
        : undefined,
    );
    if (texts.every((t) => t !== undefined)) return texts.join("\n") || undefined;
    return compactInput(raw);
  }
  if (typeof raw !== "object") return String(raw);
  const r = raw as Record<string, unknown>;
  const str = (k: string) => (typeof r[k] === "string" && (r[k] as string) !== "" ? (r[k] as string) : undefined);
  let out = str("formatted_output") ?? str("aggregated_output") ?? str("output") ?? str("result");
  if (out === undefined) {
    const parts = [str("stdout"), str("stderr")].filter((x): x is string => x !== undefined);
    if (parts.length > 0) out = parts.map((p) => p.replace(/\n$/, "")).join("\n");
  }
  const code = r.exit_code ?? r.exitCode;
  if (typeof code === "number" && code !== 0) out = `${out ? `${out.replace(/\n$/, "")}\n` : ""}[exit ${code}]`;
  if (out !== undefined) return out;
  return compactInput(raw);
}

/**
 * A tool's raw input in one short line: a command as `$ <command line>`, other fields as
 * `key: value` (long strings shortened, with their size), never a JSON dump.
 */
/** The fields shown beside a command line (compactInput). */
const COMMAND_FIELDS = new Set([
  "cwd",
  "workdir",
  "timeout",
  "timeout_ms",
  "description",
  "justification",
  "reason",
  "sandbox_permissions",
  "with_escalated_permissions",
]);

/**
 * An agent's bookkeeping, never what a user judges a call by (codex-acp's ids and flags): left
 * out of every input line, kept in :AcpChatLog.
 */
const BOOKKEEPING = new Set([
  "call_id",
  "callId",
  "turn_id",
  "turnId",
  "process_id",
  "started_at_ms",
  "auto_approved",
  "parsed_cmd",
]);

export function compactInput(raw: unknown, max = INPUT_CHARS): string | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw === "string") return raw.trim() ? oneLine(raw, max) : undefined;
  if (typeof raw !== "object") return oneLine(String(raw), max);
  if (Array.isArray(raw)) return raw.length ? oneLine(raw.map((x) => value(x)).join(", "), max) : undefined;
  const parts: string[] = [];
  const cmd = commandLine(raw);
  const skip = new Set<string>();
  if (cmd !== undefined) {
    parts.push(`$ ${cmd}`);
    for (const k of ["command", "cmd", "args"]) skip.add(k);
  }
  // A patch (codex-acp: `changes` keyed by path) shows the files it touches; its diff is the
  // call's own diff content (gd).
  const changes = (raw as Record<string, unknown>).changes;
  if (changes && typeof changes === "object" && !Array.isArray(changes)) {
    const files = Object.keys(changes);
    if (files.length > 0) parts.push(`files: ${files.join(", ")}`);
    skip.add("changes");
  }
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (BOOKKEEPING.has(k)) continue;
    // A command shows with what the user needs to judge it; the agent's bookkeeping (codex-acp's
    // call_id, process_id, turn_id, started_at_ms, parsed_cmd...) stays in :AcpChatLog.
    if (cmd !== undefined && !COMMAND_FIELDS.has(k)) continue;
    if (skip.has(k) || v === undefined || v === null || v === "") continue;
    parts.push(`${k}: ${value(v)}`);
  }
  if (parts.length === 0) return undefined;
  return oneLine(parts.join(" · "), max);
}

/** A field's value, short: long strings cut with their size, objects as short JSON. */
function value(v: unknown): string {
  if (typeof v === "string") {
    const lines = v.split("\n").length;
    if (v.length <= 60 && lines === 1) return v;
    return `${oneLine(v.slice(0, 40), 1000)}… (${lines > 1 ? `${lines} lines, ` : ""}${v.length} chars)`;
  }
  if (typeof v !== "object" || v === null) return String(v);
  const json = JSON.stringify(v);
  return json.length <= 80 ? json : `${json.slice(0, 60)}… (${json.length} chars)`;
}

export interface ChatFacts {
  agent: string;
  /** The chat's lifecycle (src/session/chat/chat.ts). */
  lifecycle: "starting" | "signing_in" | "ready" | "failed" | "closed";
  /** Why it failed, for the user. */
  failure?: string;
  sessionId?: string;
  cwd: string;
  /** Prompts waiting for the agent, oldest first. */
  queued: { id: number; text: string }[];
  /** What the queued prompts wait for besides the agent (the folder's first snapshot). */
  waiting?: string;
  /** How an earlier session was continued (resume: nothing was replayed). */
  continuedBy?: "resume" | "load";
  /** ACP v2: how many pieces of work the agent runs in the background, when it reports them. */
  background?: number;
}

export function stateName(f: ChatFacts, s: SessionState): ChatStateName {
  switch (f.lifecycle) {
    case "failed":
      return "crashed";
    case "ready":
      return s.turnState === "idle" && !s.lateWork ? "ready" : s.turnState === "cancelling" ? "cancelling" : "running";
    default:
      return f.lifecycle;
  }
}

export function statusView(f: ChatFacts, s: SessionState): StatusView {
  const state = stateName(f, s);
  return {
    agent: f.agent,
    state,
    // After the turn's end the agent may go on (late work): it says so.
    activity: s.turnState === "idle" && s.lateWork ? "still_working" : s.turnState,
    reason: state === "crashed" ? f.failure : undefined,
    title: s.title,
    mode: s.currentMode,
    model: s.currentModel,
    usage: s.usage,
    turnUsage: s.turnUsage,
    stopReason: s.lastStopReason,
    commands: s.commands.map((c) => ({ name: c.name, description: c.description, hint: c.input?.hint })),
    sessionId: f.sessionId,
    cwd: f.cwd,
    queued: f.queued,
    waiting: f.waiting,
    continuedBy: f.continuedBy,
    background: f.background || undefined,
    modes: {
      current: s.modes?.currentModeId,
      available:
        s.modes?.availableModes.map((m) => ({ id: m.id, name: m.name, description: m.description ?? undefined })) ?? [],
    },
    options: optionViews(s),
    legacyModels: s.legacyModels && {
      current: s.legacyModels.currentModelId,
      values: s.legacyModels.availableModels.map((m) => ({ value: m.modelId, name: m.name })),
    },
  };
}

/** Config options (select and boolean) as the pickers show them. */
function optionViews(s: SessionState): OptionView[] {
  return s.configOptions.map((o) => ({
    id: o.id,
    name: o.name,
    category: o.category ?? undefined,
    type: o.type,
    current: o.currentValue,
    values:
      o.type === "select"
        ? o.options
            .flatMap((x) =>
              "options" in x
                ? (x.options as { value: string; name: string }[])
                : [x as { value: string; name: string }],
            )
            .map((x) => ({ value: x.value, name: x.name }))
        : [
            { value: true, name: "on" },
            { value: false, name: "off" },
          ],
  }));
}
