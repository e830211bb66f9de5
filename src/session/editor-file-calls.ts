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
 * tool name (claude-agent-acp: `mcp__nvim__write_file`; others show the server and the tool).
 */
export function editorWrite(tc: {
  title?: string | null;
  name?: string | null;
  rawInput?: unknown;
}): EditorWrite | undefined {
  const label = `${tc.name ?? ""} ${tc.title ?? ""}`;
  if (!label.includes(SERVER_NAME)) return undefined;
  const input = tc.rawInput;
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
