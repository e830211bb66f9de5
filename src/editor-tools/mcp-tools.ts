/**
 * The editor's tools registered on an MCP server, shared by both ways an agent reaches them: the
 * stdio server it starts (mcp-server.ts) and the host's own HTTP endpoint (http-front.ts). One
 * registration, so the two offer the same names, descriptions, shapes and annotations.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SERVER_NAME, TOOLS, writesFiles, type ToolName } from "./tools.js";

/**
 * A tool call's answer: the text for the model, and whether it is an error. A text in pieces goes
 * as that many text blocks (a file's body is not copied again to join it to its notes).
 */
export type ToolAnswer = { text: string | readonly string[]; error: boolean };

export function editorMcpServer(
  names: readonly ToolName[],
  call: (tool: ToolName, args: unknown) => Promise<ToolAnswer>,
): McpServer {
  const server = new McpServer({ name: SERVER_NAME, version: "0.1.0", title: "Neovim (acp-chat.nvim)" });
  for (const name of names) {
    const t = TOOLS[name];
    server.registerTool(
      name,
      {
        title: t.title,
        description: t.description,
        inputSchema: t.input,
        // write_file and edit_file change files (after the user's review); the rest only read.
        annotations: writesFiles(name)
          ? { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false }
          : { readOnlyHint: true, openWorldHint: false },
      },
      async (args: unknown) => {
        const r = await call(name, args);
        const pieces = typeof r.text === "string" ? [r.text] : r.text;
        return { content: pieces.map((text) => ({ type: "text" as const, text })), isError: r.error };
      },
    );
  }
  return server;
}
