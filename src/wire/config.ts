/**
 * Parts of a chat's config as they cross from Lua (the MCP servers, the editor's tools).
 * Imports nothing (see transcript.ts).
 */

/** A name and value (environments and headers cross as pairs: data keys never become object keys). */
export interface NameValue {
  name: string;
  value: string;
}

/** An MCP server as the user configured it (config.lua's `mcp_servers`), before `$VAR`s are expanded. */
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
