/**
 * The contract between the Lua glue and this Node host: every method that crosses, with its
 * parameters and result. The shapes they carry are owned once, at the bottom (src/wire/: the
 * modules that build them import them from there, as this file does). The build mirrors it in Lua: the method names in
 * lua/acpchat/host/contract.lua and a LuaCATS class for every call, reply and event in
 * lua/acpchat/_meta/contract.lua (scripts/gen-contract-meta.mjs).
 *
 * The rules (README, "Architecture"):
 * 1. Lua never waits on Node. Every Lua -> Node call is an RPC notification; a call that wants
 *    an answer carries a `ref`, and the answer comes back later as the `result` event. So a
 *    slow agent, a host still starting, or a question open in another window can never freeze
 *    the editor.
 * 2. Node never waits on the user. Node -> Lua is events (notifications). The few Node -> Lua
 *    requests (`buffer_*`) read or change buffers and return at once; questions to the user are
 *    the `ask` event, answered later by the `reply` call with the question's key.
 * 3. One key casing on the wire: snake_case. Node converts its camelCase objects in one place
 *    (src/nvim/wire.ts) both ways; nulls are dropped there too, so Lua never sees vim.NIL.
 *    Because keys are converted, data whose keys are not ours (environment maps, an agent's
 *    JSON, a form's fields) never crosses as an object: it crosses as a list of pairs or as a
 *    JSON string (`*_json`).
 */
import type {
  AnyAnswer,
  AnyQuestion,
  BufferStateWire,
  ChangedFileView,
  ContextItem,
  McpServerConfig,
  QuestionKind,
  RenderOp,
  SessionChoice,
  SubagentTranscript,
  ToolName,
  TraceEntryWire,
} from "../wire/index.js";

export type * from "../wire/index.js";

/** What Lua says when it opens a chat (snake_case on the wire; camelCase here). */
export interface OpenParams {
  chat: number;
  agent: AgentParams;
  cwd: string;
  logDir?: string;
  extraRoots?: string[];
  timeouts?: { initializeMs?: number; newSessionMs?: number; cancelMs?: number; requestMs?: number };
  fs?: { maxReadBytes?: number };
  terminal?: { outputLimitBytes?: number };
  /** Images and audio attached to prompts: the largest file, in bytes. */
  media?: { maxBytes?: number };
  frameMs?: number;
  write?: "review" | "buffer" | "save";
  permissions?: { rules?: { action: "allow" | "reject"; tool: string; kind?: string }[]; store?: string };
  /** The client's session index file. */
  sessionIndex?: string;
  /** Continue this earlier session instead of starting a new one. */
  resume?: string;
  /** With `resume`: the turns of the local history shown if the agent replays nothing (numbers go on after them). */
  historyTurns?: number;
  /** The chat lived in a Node host that died: its transcript is on screen already. */
  reopen?: boolean;
  /** Option `unstable`: advertise and handle the unstable additions of ACP v1. */
  unstable?: boolean;
  /** `:AcpChatFork`: start with session/fork of this session (instead of session/new). */
  fork?: string;
  /** MCP servers for the session (the global ones and the agent's, merged by name); env and headers as pairs. */
  mcpServers?: McpServerConfig[];
  /** The editor's own MCP server for the agent (src/editor-tools/); absent: off. */
  editorTools?: {
    tools?: ToolName[];
    timeoutMs?: number;
    maxItems?: number;
    /** "stdio": the server process even for an agent that takes http MCP servers (the agent's `editor_tools = "stdio"`). */
    transport?: "stdio";
  };
  /** Turn checkpoints (src/checkpoints/): where they are kept and their limits; absent: off. */
  checkpoints?: {
    dir: string;
    maxFiles?: number;
    maxFileBytes?: number;
    maxAgeDays?: number;
    maxBytes?: number;
    git?: string;
  };
}

export interface RegistryParams {
  url: string;
  cacheFile: string;
  dir: string;
}

/** An agent of the registry as :AcpChatInstall lists it. */
export interface RegistryChoice {
  id: string;
  name: string;
  version: string;
  description: string;
  /** How it would be installed here, or why it cannot be. */
  method: "npx" | "uvx" | "binary" | "none";
  why?: string;
  /** The version installed, if any. */
  installed?: string;
}

/** One line of the quickfix list of :AcpChatChanges. */
export interface QuickfixItem {
  filename: string;
  lnum: number;
  text: string;
}

/** A file of :AcpChatReview: its change over the review's turns (`path` relative to the chat's folder), and the steps that made it. */
export type ReviewFile = Omit<ChangedFileView, "link" | "modeChange"> & {
  abs: string;
  steps: string[];
};

/** A file a rewind puts back, and the steps whose changes it takes out. */
export interface RewindFile {
  path: string;
  steps: string[];
}

/** An agent from the config (src/session/session-commands.ts has it as the chat uses it). */
export interface AgentParams {
  name: string;
  command: string;
  args?: string[];
  /** The agent's environment, as pairs (data keys never cross as object keys). */
  env?: { name: string; value: string }[];
  cwd?: string;
  /** Applied when a session starts. */
  mode?: string;
  model?: string;
  options?: { id: string; value: string | boolean }[];
  /** `v2-draft`: speak the ACP v2 draft with this agent when it accepts it (v1 otherwise). */
  protocol?: "v1" | "v2-draft";
  /** false: the agent keeps its own file tools (not steered to the editor's read_file/write_file/edit_file). */
  editorFiles?: boolean;
}

export interface ChatRef {
  chat: number;
}

/** A prompt taken back from the queue (cancel, crash): Lua puts it into the prompt buffer. */
export interface TakenBack {
  text: string;
  context: ContextItem[];
}

/** A file for the next prompt as the prompt shows it; `kind` and `mime` for images and audio. */
export interface Attachment {
  path: string;
  label?: string;
  kind?: "image" | "audio";
  mime?: string;
  size?: number;
}

export interface SessionsParams {
  agent: AgentParams;
  cwd: string;
  sessionIndex?: string;
  /** Option `unstable`: session/set_title may be offered. */
  unstable?: boolean;
  /** The chat it was asked from: an agent started for it ends when that chat closes. */
  chat?: number;
}

export interface TerminalOutput {
  id: string;
  pid?: number;
  output: string;
  exit?: string;
  failed?: boolean;
  /** The start of the output was dropped (over the byte limit): its first line may be cut. */
  truncated?: boolean;
}

/** Lua -> Node. All are notifications; `result` is what the `result` event carries back. */
export interface LuaToNode {
  open: { params: OpenParams; result: null };
  /** Queue or send a prompt. Refused (not queued) when the chat crashed or closed. */
  send: {
    /**
     * `unsaved`: the file buffers with unsaved edits as the user sent (the host need not ask the
     * editor again, a round trip on the prompt's way to the agent, when the prompt goes at once).
     */
    params: ChatRef & { text: string; context: ContextItem[]; unsaved?: string[] };
    result: { queued: boolean };
  };
  /** Cancel the running turn; queued prompts come back. */
  cancel: { params: ChatRef; result: { takenBack: TakenBack[] } };
  close: { params: ChatRef; result: null };
  /**
   * Start a crashed (or timed out) chat's agent again, continuing its session when possible;
   * `fresh`: with a new session (the last try to continue it failed).
   */
  restart: { params: ChatRef & { fresh?: boolean }; result: { how: "resume" | "load" | "new" | "running" } };
  /** The answer to a question asked with the `ask` event. */
  reply: { params: { key: string; value?: AnyAnswer }; result: null };
  setMode: { params: ChatRef & { mode: string }; result: null };
  setOption: { params: ChatRef & { option: string; value: string | boolean }; result: null };
  permissions: {
    params: ChatRef;
    result: { id: string; action: string; tool: string; agent: string; scope: string }[];
  };
  permissionRemove: { params: ChatRef & { rule: string }; result: boolean };
  toolDiffs: {
    params: ChatRef & { toolCallId: string };
    result: { path: string; oldText?: string; newText: string }[];
  };
  trace: { params: ChatRef & { filter?: string }; result: TraceEntryWire[] };
  terminal: { params: ChatRef & { terminal?: string }; result: TerminalOutput[] };
  /**
   * A file (or the clipboard's image: `clipboard`) for the next prompt, checked now: an image
   * or audio file must be inside the boundary and under the size limit (an error says why not).
   * What to show for it; a clipboard image is saved in the chat's private folder first.
   */
  attach: { params: ChatRef & { path?: string; clipboard?: "clipboard" | "primary" }; result: Attachment };
  /**
   * Write the image or audio clip shown by a block (`index`: in a tool call's content) to a private temp file, for vim.ui.open.
   * The block may be one an earlier incarnation of the chat drew (block ids are never reused).
   */
  mediaOpen: { params: ChatRef & { block: string; index?: number }; result: { path: string } };
  /** Save it to `path`; an existing file is replaced only with `overwrite` (else `exists` says so). */
  mediaSave: {
    params: ChatRef & { block: string; index?: number; path: string; overwrite?: boolean };
    result: { saved: boolean; exists?: boolean; path: string; size?: number };
  };
  /** `listing`: an id of Lua's for this listing, that `sessionsAbandon` stops. */
  sessions: {
    params: SessionsParams & { listing?: number };
    result: { sessions: SessionChoice[]; canDelete: boolean; canOpen: boolean; canRename: boolean };
  };
  /**
   * The picker closed (picked or dismissed): stop listing `listing` (no further session/list
   * page asked for or parsed, a short-lived agent ended); its `sessions` call fails "cancelled".
   */
  sessionsAbandon: { params: { listing: number }; result: null };
  /** Unstable session/set_title: the title the agent stored. */
  renameSession: { params: SessionsParams & { sessionId: string; title: string }; result: { title: string } };
  /** A child session (subagent) of the chat, whole, for its own view. */
  subagent: {
    params: ChatRef & { sessionId: string };
    result: SubagentTranscript;
  };
  /** The session :AcpChatFork would fork (an error says why it cannot). */
  forkSource: { params: ChatRef; result: { sessionId: string; title?: string } };
  /** Cancel a subagent's current work (when the agent granted it). */
  subagentCancel: { params: ChatRef & { sessionId: string }; result: null };
  /** gC on a tool call (ACP v2): cancel it, or its running terminal, when the agent advertises that. */
  toolCancel: { params: ChatRef & { toolCallId: string }; result: null };
  deleteSession: { params: SessionsParams & { sessionId: string }; result: boolean };
  /** :AcpChatLogout: `logout` (when the agent advertises it); the next prompt signs in again. */
  logout: { params: ChatRef; result: null };
  /** :AcpChatChanges: every hunk of a turn (default: the last; "all": every step) for the quickfix list. */
  changes: { params: ChatRef & { turn?: number | "all" }; result: { title: string; items: QuickfixItem[] } };
  /** gd on a file of a changes block: the per-hunk take-back review (asked with `ask`); what it did. */
  changesReview: {
    params: ChatRef & { step: number; path: string };
    result: { outcome: string; conflicts?: string[] };
  };
  /** A take-back or rewind met the user's edits in the same lines: put both in the (loaded) buffer with conflict markers. */
  changesConflict: { params: ChatRef & { path: string }; result: { path: string; conflicts: number } };
  /** :AcpChatRewind: the files it puts back (`dryRun`), or do it; `undo`: take back the last rewind. */
  rewind: {
    params: ChatRef & { turn?: number; undo?: boolean; dryRun?: boolean };
    result: { title: string; files: RewindFile[]; outcome?: string; conflicts?: string[] };
  };
  /** :AcpChatReview [N]: every file changed since turn N (default: after the approved baseline, else all), as one review. */
  reviewList: {
    params: ChatRef & { since?: number };
    result: { title: string; from: number; label: string; files: ReviewFile[] };
  };
  /** One file of a review: its take-back review over the review's turns (asked with `ask`, `loop` set); what it did. */
  reviewFile: { params: ChatRef & { from: number; path: string }; result: { outcome: string; conflicts?: string[] } };
  /** The review's files (of the range from step `from`) changed on disk since the range's last step. */
  reviewEdited: { params: ChatRef & { from: number; paths: string[] }; result: { paths: string[] } };
  /** :AcpChatReview approve: the next review starts after the last step recorded now. */
  reviewApprove: { params: ChatRef; result: { label: string } };
  /** :AcpChatInstall: the registry's agents (`url`: https or a file; cached in `cacheFile`), each installable here or not, and which are installed in `dir`. */
  registryList: {
    params: RegistryParams;
    result: { agents: RegistryChoice[]; source: "fetched" | "cache"; problem?: string; skipped: string[] };
  };
  /** Install (or update) one registry agent into `dir`; progress comes as `notify` events. */
  registryInstall: {
    params: RegistryParams & { id: string };
    /** `sha256`: a binary agent's, of the archive installed. */
    result: { id: string; name: string; version: string; command: string; sha256?: string };
  };
  /** Remove an installed agent. */
  registryRemove: { params: { dir: string; id: string }; result: boolean };
  /** A failure in Lua, with its details, for the chat's trace (:AcpChatLog). */
  log: { params: Partial<ChatRef> & { message: string; details?: string }; result: null };
  /** The open chats and their agents' pids (for :checkhealth and tests). */
  chats: { params: Record<string, never>; result: { chat: number; agent: string; state: string; pid?: number }[] };
  shutdown: { params: Record<string, never>; result: null };
  /** `cgroups`: whether agents and terminals get a cgroup each, and why (not) (agent/cgroup.ts).
   * `codeCache`: whether the bundle was loaded with its V8 code cache, which file, why (not) (code-cache.ts). */
  ping: {
    params: Record<string, never>;
    result: {
      pid: number;
      node: string;
      cgroups: { available: boolean; why: string };
      codeCache: { used: boolean; file?: string; why: string };
    };
  };
  /**
   * `codeUsed`: V8's compiled code within heapUsed (it grows as functions are optimised, not with data).
   * `snapshot`: also write a heap snapshot to that path (the benchmark tells data from V8's own objects with it).
   */
  memory: {
    params: { gc?: boolean; snapshot?: string };
    result: { rss: number; heapUsed: number; codeUsed: number; external: number; resources: string[] };
  };
  /** The editor's answer to an `editorQuery` (JSON text: the data is the editor's), or why it has none. */
  editorAnswer: { params: { key: string; valueJson?: string; error?: string }; result: null };
}

export type LuaMethod = keyof LuaToNode;

/** The method names, for the Lua mirror's test and the dispatcher's exhaustiveness. */
export const LUA_METHODS = [
  "open",
  "send",
  "cancel",
  "close",
  "restart",
  "reply",
  "setMode",
  "setOption",
  "permissions",
  "permissionRemove",
  "toolDiffs",
  "trace",
  "terminal",
  "attach",
  "mediaOpen",
  "mediaSave",
  "sessions",
  "sessionsAbandon",
  "deleteSession",
  "renameSession",
  "subagent",
  "forkSource",
  "subagentCancel",
  "toolCancel",
  "log",
  "chats",
  "shutdown",
  "ping",
  "memory",
  "editorAnswer",
  "changes",
  "changesReview",
  "changesConflict",
  "rewind",
  "reviewList",
  "reviewFile",
  "reviewEdited",
  "reviewApprove",
  "logout",
  "registryList",
  "registryInstall",
  "registryRemove",
] as const satisfies readonly LuaMethod[];

/** Node -> Lua events (notifications: Lua draws them, nothing waits). */
export interface NodeEvents {
  /** A render batch for one chat (at most one per frame). */
  render: { chat: number; ops: RenderOp[] };
  /** The answer to a Lua call that carried `ref`. */
  result: { ref: number; ok: boolean; value?: unknown; error?: string };
  /**
   * A question for the user (of `kind`: src/wire/questions.ts); answered with `reply` and the
   * same key. Its long texts come ahead as `askPart` events, their fields named in `parts`.
   */
  ask: { chat: number; key: string; kind: QuestionKind; question: AnyQuestion };
  /** A part of a long text of question `key`, sent ahead of its `ask` (src/nvim/questions.ts): joined in order into its field. */
  askPart: { key: string; field: string; text: string };
  /** A question withdrawn (turn cancelled, chat closed, agent gone): close its window. */
  dismiss: { key: string; kind: QuestionKind };
  /** Prompts that could not be sent (the agent crashed): back into the prompt buffer. */
  takeBack: { chat: number; prompts: TakenBack[] };
  /** One line for the user. */
  notify: { message: string; level: "info" | "warn" | "error" };
  /** The file changed on disk behind a loaded buffer: reload it. */
  reload: { path: string };
  /** An agent's editor tool call (diagnostics, definition, ...): answered later with `editorAnswer`. */
  editorQuery: { chat: number; key: string; tool: ToolName; argsJson: string };
}

export type NodeEvent = keyof NodeEvents;

export const NODE_EVENTS = [
  "render",
  "result",
  "ask",
  "askPart",
  "dismiss",
  "takeBack",
  "notify",
  "reload",
  "editorQuery",
] as const satisfies readonly NodeEvent[];

/**
 * Node -> Lua requests: buffer primitives that answer at once and never wait on the user
 * (lua/acpchat/editor/workspace.lua). They decide nothing: src/workspace/write-plan.ts does.
 */
export interface NodeRequests {
  /**
   * A loaded buffer's lines [first, last) (0-based; all by default) and the options that decide how it is written.
   * `probeDisk`: also ask Vim whether the file changed on disk since the buffer read it.
   */
  bufferState: {
    params: { path: string; first?: number; last?: number; probeDisk?: boolean };
    result: { loaded: false } | ({ loaded: true; lineCount: number; buf: number } & BufferStateWire);
  };
  /**
   * Line edits (old lines [start, end), bottom first) as one undo step of their own, if the
   * buffer is still at `tick`; `eol` sets 'endofline'. `acknowledgeDisk`: the user has seen the
   * file's new content on disk (no W12 on the next :w); `markSaved`: the buffer now equals the disk.
   */
  bufferApply: {
    params: {
      path: string;
      tick: number;
      edits: { start: number; end: number; lines: string[] }[];
      eol?: boolean;
      acknowledgeDisk?: boolean;
      markSaved?: boolean;
    };
    result: { result: "applied"; tick: number } | { result: "not_loaded" | "changed" };
  };
  /** :write the buffer if still at `tick`; "saved" only when it was written. */
  bufferSave: {
    params: { path: string; tick: number };
    result: { result: "saved" | "not_loaded" | "changed" } | { result: "not_saved"; error: string };
  };
  /** Reload an unmodified buffer whose file changed on disk (like :checktime). */
  bufferReload: { params: { path: string }; result: { result: "reloaded" | "not_loaded" | "changed" } };
}

export type NodeRequest = keyof NodeRequests;

export const NODE_REQUESTS = [
  "bufferState",
  "bufferApply",
  "bufferSave",
  "bufferReload",
] as const satisfies readonly NodeRequest[];
