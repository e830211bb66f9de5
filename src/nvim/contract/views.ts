/**
 * The contract's data shapes (camelCase here, snake_case on the wire): what the transcript, the
 * status line, prompts and buffers look like when they cross. The contract owns them; the
 * modules that build or read these values are checked against them at compile time
 * (./checks.ts), so a field renamed on one side fails the typecheck, not an end-to-end test.
 * scripts/gen-contract-meta.mjs turns them into LuaCATS classes (`acpchat.wire.<Name>`).
 */

/** An image or audio clip as one line: its kind, mimeType, decoded size and name (never its data). */
export interface MediaView {
  kind: "image" | "audio";
  mime: string;
  size: number;
  name?: string;
}

/** One entry of a tool call's content. */
export type ToolContentView =
  /** Output text; `fold`: the lines shown while folded (more follow: Lua offers to expand). */
  | { type: "text"; text: string; fold?: number }
  | { type: "diff"; path: string; added: number; removed: number; isNew: boolean }
  | { type: "terminal"; id: string; tail: string; exit?: string; failed?: boolean }
  /** An image or audio clip in the output; `index`: its place in the call's content (to open it). */
  | ({ type: "media"; index: number } & MediaView);

/** One file a step changed, as the changes block lists it. */
export interface ChangedFileView {
  path: string;
  status: "added" | "deleted" | "modified" | "renamed" | "type";
  /** For a rename: where it was. */
  from?: string;
  added: number;
  removed: number;
  binary?: boolean;
  /** Over the size limit: known to have changed, not stored. */
  large?: boolean;
  /** A symbolic link (its "lines" are its target). */
  link?: boolean;
  /** The mode changed (0644 <-> 0755). */
  modeChange?: string;
}

/** A plan entry. */
export interface PlanEntryView {
  content: string;
  status: string;
  priority: string;
}

/** The feature modules' blocks: a plan by id, a subagent, a message between sessions. */
export type FeatureBlockView =
  | {
      id: string;
      type: "plan_doc";
      planId: string;
      kind: string;
      entries: PlanEntryView[];
      markdown?: string;
      location?: string;
      removed?: boolean;
      /** Entries (or markdown lines) past the most shown. */
      more?: number;
    }
  | {
      id: string;
      type: "subagent";
      sessionId: string;
      title?: string;
      description?: string;
      state?: string;
      stopReason?: string;
      /** The client may cancel the child's work (session/cancel with its id). */
      canCancel?: boolean;
      /**
       * The child's transcript, as block views (turn and reply headers left out); `unknown` in
       * TypeScript because the module that builds it cannot name BlockView without a cycle.
       * @lua acpchat.wire.BlockView[]
       */
      blocks: unknown[];
      /** Earlier blocks of the child not sent here (its own view shows them). */
      hidden?: number;
      /** Drawn inside another subagent's block. */
      nested?: boolean;
    }
  | { id: string; type: "session_message"; direction: string; peer?: string; text: string; omitted?: number };

/** One block of the transcript, as Lua draws it. */
export type BlockView =
  | { id: string; type: "turn"; turn: number }
  | { id: string; type: "reply"; agent: string; turn: number }
  | { id: string; type: "end"; reason: string }
  | { id: string; type: "user" | "agent" | "thought"; text: string }
  | {
      id: string;
      type: "tool";
      toolCallId: string;
      title: string;
      kind: string;
      status: string;
      locations: { path: string; line?: number | null }[];
      content: ToolContentView[];
      input?: string;
      /** The tool calls of the subagent this Task started. */
      children?: { title: string; kind: string; status: string }[];
      moreChildren?: number;
    }
  | { id: string; type: "plan"; entries: PlanEntryView[] }
  | { id: string; type: "note"; text: string; level: string }
  /** An image or audio clip: opened or saved by its block id (the `mediaOpen`/`mediaSave` calls). */
  | ({ id: string; type: "media"; role: string } & MediaView)
  /** A context compaction: its status, the error if it failed, the summary as far as it came. */
  | { id: string; type: "compaction"; status: string; error?: string; summary: string }
  /** What a step changed: its number (for gd and :AcpChatRewind) and one entry per file. */
  | {
      id: string;
      type: "changes";
      step: number;
      title: string;
      files: ChangedFileView[];
      more?: number;
      rewindTurn?: number;
    }
  | FeatureBlockView;

export type ChatStateName = "starting" | "signing_in" | "ready" | "running" | "cancelling" | "crashed" | "closed";

/** A session config option as the pickers offer it. */
export interface OptionView {
  id: string;
  name: string;
  category?: string;
  type: string;
  current: unknown;
  values: { value: string | boolean; name: string }[];
}

/** The chat's status line and what the pickers and completion offer (held in Lua: no round trip). */
export interface StatusView {
  agent: string;
  state: ChatStateName;
  /** What a running turn is doing (prompting, streaming, waiting_permission). */
  activity: string;
  reason?: string;
  title?: string;
  mode?: string;
  model?: string;
  usage?: { used: number; size: number; cost?: { amount: number; currency: string } | null };
  /** The last turn's tokens: inputTokens, outputTokens, ... */
  turnUsage?: Record<string, number>;
  stopReason?: string;
  commands: { name: string; description: string; hint?: string }[];
  sessionId?: string;
  cwd: string;
  queued: { id: number; text: string }[];
  /** What the queued prompts wait for besides the agent (the folder's first snapshot). */
  waiting?: string;
  continuedBy?: "resume" | "load";
  modes: { current?: string; available: { id: string; name: string; description?: string }[] };
  options: OptionView[];
  legacyModels?: { current: string; values: { value: string; name: string }[] };
}

/** One step of a render batch. */
export type RenderOp =
  | { op: "add"; block: BlockView }
  | { op: "append"; id: string; text: string }
  | { op: "update"; block: BlockView }
  | { op: "meta"; status: StatusView }
  | { op: "turn_end"; stopReason: string }
  /** A reloaded session replaces the transcript: clear it, the replay follows. */
  | { op: "reset" };

/**
 * What a prompt carries besides its text: a file (an image or audio clip: `media`), a range of
 * lines, what a mention names that is no file (`text`: diagnostics, quickfix, a past session) or
 * a file a mention lists (`link`). `mention`: the token as the prompt shows it.
 */
export type ContextItem =
  | {
      type: "file";
      path: string;
      label?: string;
      media?: { kind: "image" | "audio"; mime: string; size: number };
      mention?: string;
    }
  | { type: "range"; path: string; start: number; end: number; text: string; filetype?: string; mention?: string }
  | { type: "text"; mention?: string; uri: string; text: string; path?: string; title?: string; label?: string }
  | { type: "link"; path: string; mention: string };

/** An agent's session as the session picker lists it. */
export interface SessionChoice {
  sessionId: string;
  title?: string;
  /** The user's first words in it, as the client's index recorded them. */
  prompt?: string;
  updatedAt?: string;
  cwd: string;
  source: "agent" | "index" | "both";
}

/** A name and value (environments and headers cross as pairs: data keys never become object keys). */
export interface NameValue {
  name: string;
  value: string;
}

/** An MCP server from the config, for the session. */
export interface McpServerConfig {
  name: string;
  type?: "stdio" | "http" | "sse";
  command?: string;
  args?: string[];
  env?: NameValue[];
  url?: string;
  headers?: NameValue[];
}

/** The editor's tools an agent may call through the editor's MCP server. */
export type ToolName =
  | "diagnostics"
  | "definition"
  | "references"
  | "hover"
  | "document_symbols"
  | "workspace_symbols"
  | "open_buffers"
  | "selection"
  | "read_file"
  | "write_file"
  | "edit_file"
  | "list_files"
  | "quickfix";

/** A trace entry; its payload is the agent's data, so it crosses as JSON text. */
export interface TraceEntryWire {
  time: string;
  dir: "in" | "out" | "note";
  kind: string;
  id?: number | string | null;
  method?: string;
  size: number;
  payloadJson: string;
}

/** A loaded buffer as Lua reports it, with the options that decide how it is written. */
export interface BufferStateWire {
  tick: number;
  modified: boolean;
  lines: string[];
  /** Vim's empty buffer (no line at all; it shows one empty line). */
  empty: boolean;
  eol: boolean;
  fixeol: boolean;
  binary: boolean;
  fileformat: string;
  fileencoding: string;
  bomb: boolean;
  readonly: boolean;
  modifiable: boolean;
  /** Vim saw the file change on disk since it read or wrote it (asked for by a sync only). */
  diskChanged?: boolean;
}
