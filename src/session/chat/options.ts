/** What a chat is made with: its agent, its folder, its editor, and the host's callbacks. */
import type { AgentCommand } from "../../agent/agent-process.js";
import type { ClientFeatures } from "../../client/acp-client.js";
import type { McpServerConfig } from "../../wire/index.js";
import type { EditorPort } from "../../client/editor-port.js";
import type { StopReason } from "../../protocol/schema.js";
import type { TurnCheckpoints } from "../../checkpoints/turns.js";
import type { FeatureConfig } from "../features/index.js";
import type { PermissionRules } from "../permission/rules.js";
import type { QueuedPrompt } from "../prompt-queue.js";
import type { TranscriptEvent } from "../blocks.js";

export interface ChatOptions {
  agentName: string;
  command: AgentCommand;
  /** The session's working directory: the boundary of every fs and terminal request. */
  cwd: string;
  /** More directories the user allows the agent to touch. */
  extraRoots?: string[];
  /** `v2-draft`: speak the ACP v2 draft with an agent that accepts it (v1 with the others). */
  protocol?: "v1" | "v2-draft";
  /** MCP servers for the agent, as configured (`$VAR`s expanded when the chat starts). */
  mcpServers?: McpServerConfig[];
  port: EditorPort;
  onEvents: (events: TranscriptEvent[]) => void;
  traceFile?: string;
  timeouts?: { initializeMs?: number; newSessionMs?: number; cancelMs?: number; requestMs?: number };
  /** The client's cap on a terminal's retained output (whatever the agent asks for). */
  terminal?: { outputLimitBytes?: number };
  /** What the client implements, and the option that gates the feature modules (features/index.ts). */
  features?: Omit<ClientFeatures, "modules"> & FeatureConfig;
  /** Client-side permission rules (configured and remembered). */
  permissionRules?: PermissionRules;
  clientInfo?: { name: string; version: string };
  /** A queued prompt's turn ended. */
  onTurnEnd?: (stop: StopReason | "error") => void;
  /** Queued prompts that can no longer be sent (the agent is gone): the user gets them back. */
  onTakeBack?: (prompts: QueuedPrompt[]) => void;
  /** Images and audio in prompts: the size limit; `owns`: the chat's own files (clipboard images), allowed outside the boundary. */
  media?: { maxBytes?: number; owns?: (path: string) => boolean };
  /** A notice from the agent (`notice` update), for the editor's notifications; redacted already. */
  onNotify?: (message: string, level: "info" | "warn" | "error") => void;
  /** An MCP server the client provides itself (the editor's tools), added to every session's servers. */
  clientMcpServer?: ClientMcpServer;
  /** `_meta` of session/new, load and resume (the agent's own switches: src/agent/file-steering.ts). */
  sessionMeta?: Record<string, unknown>;
  /**
   * The files of the project with unsaved edits in the editor, asked before each prompt: the
   * agent hears which (its own read tools see the disk), and of the tool that reads them
   * (`readTool`: the editor's read_file, as `<server>__read_file`). Undefined: not asked.
   * `given`: the paths the editor sent with the prompt (not asked again).
   */
  unsavedFiles?: (given?: string[]) => Promise<{ paths: string[]; readTool?: string }>;
  /** Turn checkpoints (src/checkpoints/): kept by the host across restarts of the agent. */
  checkpoints?: TurnCheckpoints;
  /**
   * How many times the host started this chat again before (0: the first start). Block ids of a
   * later incarnation begin with it, so none repeats an id the transcript above still shows.
   */
  incarnation?: number;
}

/** An MCP server of the client's own (src/editor-tools/channel.ts): closed with the chat. */
export interface ClientMcpServer {
  readonly mcpServer: { name: string; command: string; args: string[]; env: { name: string; value: string }[] };
  /** The same server over HTTP, for agents that advertise `mcpCapabilities.http` (no process in between). */
  httpMcpServer?(): Promise<{ type: "http"; name: string; url: string; headers: { name: string; value: string }[] }>;
  /** "stdio": the user wants the server process, whatever the agent takes (`editor_tools = "stdio"`). */
  readonly transport?: "stdio";
  /** Values that no trace, log or transcript may show (its token, its socket's path). */
  readonly secrets: string[];
  readonly ready: Promise<void>;
  close(): void;
}

export type ChatStatus = "starting" | "signing_in" | "ready" | "failed" | "closed";
