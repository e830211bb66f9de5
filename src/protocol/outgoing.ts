/**
 * Types of what this client sends: request params and the results of the agent's requests.
 * Checked against the official SDK's types at compile time (test/unit/sdk-types.test.ts).
 */
import type { ContentBlock, ElicitationResponse, PermissionOutcome } from "./schema.js";

export interface InitializeParams {
  protocolVersion: number;
  clientCapabilities: {
    fs: { readTextFile: boolean; writeTextFile: boolean };
    terminal: boolean;
    auth: { terminal: boolean };
    elicitation?: { form: Record<string, never>; url: Record<string, never> };
    session?: {
      notices?: Record<string, never>;
      compaction?: Record<string, never>;
      configOptions?: { boolean?: Record<string, never> };
    };
    _meta?: { [key: string]: unknown };
  };
  clientInfo: { name: string; version: string };
}
export interface AuthenticateParams {
  methodId: string;
}
/** A name and a value (an MCP server's environment variable or HTTP header). */
export interface NameValue {
  name: string;
  value: string;
}
/** An MCP server the agent starts itself (every agent supports stdio). */
export interface McpServerStdio {
  name: string;
  /** An absolute path (the spec asks for one). */
  command: string;
  args: string[];
  env: NameValue[];
}
/** An MCP server the agent connects to: only when `mcpCapabilities.http` / `.sse` says it can. */
export interface McpServerHttp {
  type: "http";
  name: string;
  url: string;
  headers: NameValue[];
}
export interface McpServerSse {
  type: "sse";
  name: string;
  url: string;
  headers: NameValue[];
}
export type McpServer = McpServerStdio | McpServerHttp | McpServerSse;
export interface NewSessionParams {
  cwd: string;
  mcpServers: McpServer[];
  additionalDirectories?: string[];
  _meta?: Record<string, unknown>;
}
/** `session/load` and `session/resume`. */
export interface LoadSessionParams {
  sessionId: string;
  cwd: string;
  mcpServers: McpServer[];
  additionalDirectories?: string[];
  _meta?: Record<string, unknown>;
}
export interface ListSessionsParams {
  cwd?: string;
  cursor?: string;
}
export interface SessionIdParams {
  sessionId: string;
}
export interface PromptParams {
  sessionId: string;
  prompt: ContentBlock[];
}
export interface SetModeParams {
  sessionId: string;
  modeId: string;
}
export type SetConfigOptionParams = { sessionId: string; configId: string } & (
  | { type: "boolean"; value: boolean }
  | { value: string }
);
export interface PermissionResponse {
  outcome: PermissionOutcome;
}
export interface ReadTextFileResult {
  content: string;
}
export interface CreateTerminalResult {
  terminalId: string;
}
export interface TerminalExitResult {
  exitCode: number | null;
  signal: string | null;
}
export interface TerminalOutputResult {
  output: string;
  truncated: boolean;
  exitStatus: TerminalExitResult | null;
}
export type ElicitationResult = ElicitationResponse;
