/**
 * The transcript and the status line as they cross to Lua (camelCase here, snake_case on the
 * wire: src/nvim/wire.ts): the view (src/view/) builds these values, the contract
 * (src/nvim/contract.ts) names them in its events, and scripts/gen-contract-meta.mjs turns each
 * into a LuaCATS class (`acpchat.wire.<Name>`). Like every file of src/wire/, it imports nothing:
 * the shapes have one owner at the bottom, and the modules above build to them.
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
  | ({ id: string; type: "subagent"; sessionId: string } & SubagentTranscript & {
        /** Earlier blocks of the child not sent here (its own view shows them). */
        hidden?: number;
        /** Drawn inside another subagent's block. */
        nested?: boolean;
      })
  | { id: string; type: "session_message"; direction: string; peer?: string; text: string; omitted?: number };

/** A child session (subagent): its header and its transcript (nested in its block, or whole in its own view). */
export interface SubagentTranscript {
  title?: string;
  description?: string;
  state?: string;
  stopReason?: string;
  /** The client may cancel the child's work (session/cancel with its id). */
  canCancel?: boolean;
  /** The child's transcript, as block views (turn and reply headers left out: the child has no "You"). */
  blocks: BlockView[];
}

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
      /** The tool calls of the subagent this Task started (claude-agent-acp's parentToolUseId). */
      children?: { title: string; kind: string; status: string }[];
      moreChildren?: number;
      /** ACP v2: what `gC` cancels: the call itself (`tool_call/cancel`) or its running terminal (`terminal/cancel`). */
      cancel?: "tool_call" | "terminal";
      /** ACP v2: listed in the agent's background work. */
      background?: boolean;
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
  /** ACP v2: how many pieces of work the agent runs in the background (when it reports them, and any run). */
  background?: number;
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
