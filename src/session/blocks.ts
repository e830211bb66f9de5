/**
 * What a session's transcript is made of: its blocks, the events that change them, a tool
 * call's state, and how content reads as text. Plain data, shared by the session state, the
 * feature modules and the view.
 */
import type {
  ContentBlock,
  KnownSessionUpdate,
  OptInSessionUpdate,
  PlanEntry,
  SessionConfigOption,
  ToolCallContent,
  ToolCallStatus,
  ToolCallUpdate,
} from "../protocol/schema.js";
import type { FileChange } from "../checkpoints/types.js";
import type { MediaBlock } from "./media.js";

/**
 * `cancelled`: the turn was cancelled (or a v2 agent said so); `unfinished`: the turn ended
 * without a final status; `paused`: a v2 agent's call that waits to be resumed.
 */
export type DisplayToolStatus = ToolCallStatus | "cancelled" | "unfinished" | "paused";

/** Whether a tool call may still change: not yet run, running, or paused. */
export const isOpen = (status: DisplayToolStatus): boolean =>
  status === "pending" || status === "in_progress" || status === "paused";

/** Whether a command failed: killed by a signal, or any exit code but 0 (false while running). */
export function exitFailed(s: { exitCode?: number | null; signal?: string | null } | undefined | null): boolean {
  if (!s) return false;
  return (s.signal !== null && s.signal !== undefined) || s.exitCode !== 0;
}

export interface ToolCallState {
  toolCallId: string;
  /** The transcript block that shows it (an id reused in a later turn gets a block of its own). */
  blockId: string;
  /** The tool's own name (`name`, or claude-code-acp's `_meta.claudeCode.toolName`). */
  toolName?: string;
  title: string;
  kind: string;
  status: DisplayToolStatus;
  content: ToolCallContent[];
  locations: { path: string; line?: number | null }[];
  rawInput?: unknown;
  rawOutput?: unknown;
  /** Live output of a client terminal shown in this call, or streamed by the agent in `_meta`. */
  terminals: Record<
    string,
    { tail: string; exit?: string; failed?: boolean; full?: string; dropped?: boolean; fromRaw?: boolean }
  >;
  /** The user rejected (or dismissed) the permission question about it. */
  rejected?: boolean;
  turn: number;
  /** A subagent's tool call (claude-agent-acp's `_meta.claudeCode.parentToolUseId`): its Task's id; drawn in the Task's block. */
  parent?: string;
  /** The tool calls of the subagent this call (a Task) started, in order. */
  children?: ToolCallState[];
  /** ACP v2: the agent lets the client cancel it (`capabilities.cancel`, as last patched). */
  canCancel?: boolean;
  /** ACP v2: its terminals the agent lets the client cancel (`terminal/cancel`), by id. */
  terminalCancel?: Record<string, boolean>;
  /** The cancel the user asked for (sent), until the agent confirms it: a final status, or the terminal's exit. */
  cancelling?: { toolCallId: string } | { terminalId: string };
  /** ACP v2: listed in the agent's background work (it goes on apart from the turn: never settled by its end). */
  background?: boolean;
}

export type Block =
  | { id: string; type: "turn"; turn: number }
  /** The header of the agent's reply, before its first words, thought, tool call or plan. */
  | { id: string; type: "reply"; agent: string; turn: number }
  /** A turn that ended other than normally (cancelled, limits, refusal, error). */
  | { id: string; type: "end"; reason: string; turn: number }
  | { id: string; type: "user"; text: string; turn: number }
  | { id: string; type: "agent"; text: string; turn: number }
  | { id: string; type: "thought"; text: string; turn: number }
  | { id: string; type: "tool"; call: ToolCallState; turn: number }
  | { id: string; type: "plan"; entries: PlanEntry[]; turn: number }
  | { id: string; type: "note"; text: string; level: "info" | "warn" | "error"; turn: number }
  /** An image or audio clip (sent by the agent, or attached by the user): one line, opened on demand. */
  | { id: string; type: "media"; role: "user" | "agent" | "thought"; media: MediaBlock; name?: string; turn: number }
  /** A context compaction, where it first appeared; its status and summary change in place. */
  | {
      id: string;
      type: "compaction";
      compactionId: string;
      status: string;
      summary: string;
      error?: string;
      turn: number;
    }
  /** What a turn (or a take-back, or a rewind) changed in the folder: one line per file (src/checkpoints/). */
  | { id: string; type: "changes"; step: number; title: string; files: FileChange[]; rewindTurn?: number; turn: number }
  /** The feature modules' (src/session/features/): a plan by id, a child session, a message between sessions. */
  | FeatureBlock;

export type TranscriptEvent =
  | { type: "add"; block: Block }
  | { type: "append"; id: string; text: string }
  | { type: "update"; block: Block }
  | { type: "meta" };

export type TurnState = "idle" | "prompting" | "streaming" | "waiting_permission" | "cancelling";

export interface Usage {
  used: number;
  size: number;
  cost?: { amount: number; currency: string } | null;
}

/** A notice's severity as a note's level (custom and future severities read as info). */
export function noticeLevel(severity: string): "info" | "warn" | "error" {
  return severity === "error" ? "error" : severity === "warning" ? "warn" : "info";
}

export function toolBlockId(toolCallId: string): string {
  return `tool:${toolCallId}`;
}

/** What a content block reads as in the transcript. */
export function contentText(c: ContentBlock): string {
  switch (c.type) {
    case "text":
      return c.text;
    case "resource_link":
      return `[@${c.name}](${c.uri})`;
    case "resource":
      return "text" in c.resource ? `[@${c.resource.uri}]` : `[@${c.resource.uri} (binary)]`;
    case "image":
      return "[image]";
    case "audio":
      return "[audio]";
  }
}

export function promptText(prompt: ContentBlock[]): string {
  const text = prompt
    .filter((c) => c.type === "text")
    .map(contentText)
    .join("");
  // Images and audio get blocks of their own (a line each).
  const refs = prompt.filter((c) => c.type !== "text" && c.type !== "image" && c.type !== "audio").map(contentText);
  return refs.length ? `${text}${text ? "\n" : ""}${refs.join(" ")}` : text;
}

/** The tool's own name in claude-code-acp's `_meta.claudeCode.toolName`. */
export function metaToolName(meta: unknown): string | undefined {
  const n = (meta as { claudeCode?: { toolName?: unknown } } | undefined)?.claudeCode?.toolName;
  return typeof n === "string" && n ? n : undefined;
}

/** A select option's value by its name. */
export function optionName(opt: SessionConfigOption & { type: "select" }, value: string): string {
  const flat = opt.options.flatMap((o) =>
    "options" in o ? (o.options as { value: string; name: string }[]) : [o as { value: string; name: string }],
  );
  return flat.find((o) => o.value === value)?.name ?? value;
}

/**
 * The tool call a permission question is about, as complete as the client knows it: the
 * request's own fields (often only the id) over what the agent announced for that id in this
 * turn (title, kind, locations, raw input, content with its diffs).
 */
export function mergeKnownToolCall(tc: ToolCallUpdate, known: ToolCallState | undefined): ToolCallUpdate {
  if (!known) return tc;
  const merged: ToolCallUpdate = { ...tc };
  const has = (v: unknown) => v !== undefined && v !== null;
  if (!has(tc.title) && known.title && known.title !== known.toolCallId) merged.title = known.title;
  if (!has(tc.kind) && known.kind) merged.kind = known.kind;
  if (!has(tc.name) && known.toolName) merged.name = known.toolName;
  if (!has(tc.locations) && known.locations.length > 0) merged.locations = known.locations;
  if (!has(tc.content) && known.content.length > 0) merged.content = known.content;
  if (tc.rawInput === undefined && known.rawInput !== undefined) merged.rawInput = known.rawInput;
  return merged;
}

/** The variants the client opted in to (`clientCapabilities.session`). */
export function isOptIn(u: KnownSessionUpdate | OptInSessionUpdate): u is OptInSessionUpdate {
  return (
    u.sessionUpdate === "notice" ||
    u.sessionUpdate === "compaction_update" ||
    u.sessionUpdate === "compaction_summary_chunk"
  );
}

/** What the agent says of a call it ended (cancelled and unfinished are the client's words). */
export const ENDED = new Set<string>(["completed", "failed"]);

/** Updates that are the agent's work: arriving after the turn's end, they are late work. */
export const LATE_WORK = new Set<string>([
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
]);

// The feature modules' blocks (src/session/features/): types only, so that session-state.ts can
// name them without depending on the modules that make them.

/** A child session's foreground state as the agent last reported it (running, idle, requires_action, unknown, …). */
export interface SubagentStateView {
  state: string;
  stopReason?: string;
}

export type FeatureBlock =
  /** A plan the agent keeps by id (`plan_update`): entries, markdown or a file; marked when removed. */
  | {
      id: string;
      type: "plan_doc";
      planId: string;
      kind: "items" | "markdown" | "file";
      entries: PlanEntry[];
      markdown?: string;
      /** A file plan: its path when the URI is a file:// one, else the URI. */
      location?: string;
      removed?: boolean;
      turn: number;
    }
  /**
   * A child session the agent created (`subagent_update`), with its own transcript: `blocks` are
   * the child's SessionState blocks (typed loosely here; session-state.ts's Block).
   */
  | {
      id: string;
      type: "subagent";
      sessionId: string;
      title?: string;
      description?: string;
      state?: SubagentStateView;
      /** The agent lets the client cancel the child's current work (its capabilities.cancel). */
      canCancel?: boolean;
      /** The child's transcript, live (the child SessionState's own array). */
      blocks: readonly unknown[];
      turn: number;
    }
  /** A message this session sent to, or received from, another session (`session_message`). */
  | {
      id: string;
      type: "session_message";
      messageId: string;
      direction: "to" | "from" | "between";
      /** The other session's title (or id) as known when the message arrived. */
      peer?: string;
      text: string;
      /** Characters past the most kept (session-messages.ts MAX_MESSAGE_CHARS), not kept. */
      omitted?: number;
      turn: number;
    };

/** Make V8 flatten a cons string in place (ToNumber needs the flat characters). */
export function flatten(s: string): void {
  void (Number(s) | 0);
}
