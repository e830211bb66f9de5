/**
 * A tool call of the editor's own write_file or edit_file (the `nvim` MCP server): agents ask
 * permission for it like for any MCP tool, with the input but no diff. The client knows what the
 * call will write, so the question gets the diff an agent's own Write or Edit would carry, and
 * the user's answer (allowed as shown, or accepted hunk by hunk) is what the write then does.
 */
import { SERVER_NAME } from "../editor-tools/tools.js";

export type EditorWrite =
  | { tool: "write_file"; path: string; content: string }
  | { tool: "edit_file"; path: string; oldString: string; newString: string; replaceAll: boolean };

/**
 * The call's input when it is the editor's write_file or edit_file: named so in its title or
 * tool name (claude-agent-acp: `mcp__nvim__write_file`; gemini-cli: `write_file (nvim MCP Server)`,
 * with the input only as the JSON text of its content, no rawInput; codex-acp: "Approve MCP tool
 * call", the server, tool and input in rawInput's approval request).
 */
export function editorWrite(tc: {
  title?: string | null;
  name?: string | null;
  rawInput?: unknown;
  content?: readonly { type: string; content?: { type: string; text?: string } }[] | null;
}): EditorWrite | undefined {
  const codex = codexApproval(tc.rawInput);
  const label = `${tc.name ?? ""} ${tc.title ?? ""} ${codex?.label ?? ""}`;
  if (!label.includes(SERVER_NAME)) return undefined;
  const input = codex ? codex.input : (tc.rawInput ?? shownInput(tc.content));
  if (typeof input !== "object" || input === null || Array.isArray(input)) return undefined;
  const i = input as Record<string, unknown>;
  if (typeof i.path !== "string" || i.path === "") return undefined;
  if (label.includes("write_file") && typeof i.content === "string")
    return { tool: "write_file", path: i.path, content: i.content };
  if (label.includes("edit_file") && typeof i.old_string === "string" && typeof i.new_string === "string")
    return {
      tool: "edit_file",
      path: i.path,
      oldString: i.old_string,
      newString: i.new_string,
      replaceAll: i.replace_all === true,
    };
  return undefined;
}

/** gemini-cli's way: the call's arguments shown as one JSON text block. */
function shownInput(
  content: readonly { type: string; content?: { type: string; text?: string } }[] | null | undefined,
) {
  const text = content?.find((c) => c.type === "content" && c.content?.type === "text")?.content?.text;
  if (!text?.startsWith("{")) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** codex-acp's MCP approval (0.16): `{server_name, request: {message, _meta: {tool_params}}}`. */
function codexApproval(raw: unknown): { label: string; input: unknown } | undefined {
  if (typeof raw !== "object" || raw === null) return undefined;
  const r = raw as { server_name?: unknown; request?: { message?: unknown; _meta?: { tool_params?: unknown } } };
  if (typeof r.server_name !== "string" || r.request?._meta?.tool_params === undefined) return undefined;
  return { label: `${r.server_name} ${String(r.request.message ?? "")}`, input: r.request._meta.tool_params };
}
