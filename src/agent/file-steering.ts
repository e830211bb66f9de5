/**
 * Steering an agent to the editor's file tools (mcp__nvim__read_file, write_file, edit_file):
 * an agent's own read and edit tools read the disk (not the user's unsaved buffers) and write
 * behind the user's back, and they win unless the agent is told otherwise. Each agent has its
 * own switch, found in its source:
 *   - claude-agent-acp: session/new `_meta.claudeCode.options.disallowedTools` (its Read, Write,
 *     Edit, MultiEdit, NotebookEdit; its Bash stays) and `_meta.systemPrompt.append`.
 *   - gemini-cli: the settings' `tools.exclude` (a union over its settings files), given in a
 *     system-defaults file of its own (GEMINI_CLI_SYSTEM_DEFAULTS_PATH, the lowest layer: the
 *     user's, the project's and the administrator's settings still apply). Built-in tools are
 *     named by class (ReadFileTool, ...): their tool names (read_file, write_file) would also
 *     exclude the editor's MCP tools of the same name.
 *   - codex-acp: `-c developer_instructions=...` (codex reads with shell commands and edits with
 *     apply_patch, which have no switch of their own that keeps its shell: it is told instead).
 * Any other agent is left as it is (its reads of files with unsaved edits are pointed out).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

export type SteeredAgent = "claude-agent-acp" | "gemini-cli" | "codex-acp";

export interface FileSteering {
  agent: SteeredAgent | undefined;
  /** The agent's command line and environment, with the switch. */
  args: string[];
  env: Record<string, string>;
  /** session/new's `_meta`. */
  sessionMeta?: Record<string, unknown>;
  /** Removes what was written for the agent (gemini's settings file). */
  cleanup(): void;
}

/** The instruction every steered agent gets. */
export const EDITOR_FILES_INSTRUCTION =
  "You run inside the user's editor (Neovim, acp-chat.nvim). Read, create and change files only with the editor's tools of the `nvim` MCP server: mcp__nvim__read_file, mcp__nvim__write_file, mcp__nvim__edit_file and mcp__nvim__list_files. They read the user's unsaved buffers (the disk may be stale) and put your changes through the user's review in the editor. Do not read or change project files with shell commands (cat, sed -i, tee, redirections) when these tools can do it; use the shell to run programs.";

/** claude-agent-acp's built-in tools that read or write files. */
export const CLAUDE_FILE_TOOLS = ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit"];
/** gemini-cli's built-in file tools, by class name (see above). */
export const GEMINI_FILE_TOOLS = ["ReadFileTool", "ReadManyFilesTool", "WriteFileTool", "EditTool"];

/** Which agent this command line starts (its program, or the script node runs). */
export function steeredAgent(command: string, args: readonly string[]): SteeredAgent | undefined {
  const names = [command, ...(basename(command).startsWith("node") ? args.slice(0, 1) : [])].join(" ");
  if (/claude-agent-acp/.test(names)) return "claude-agent-acp";
  if (/codex-acp/.test(names)) return "codex-acp";
  if (/(^|[/\s])gemini(\s|$)|gemini-cli/.test(names)) return "gemini-cli";
  return undefined;
}

/** The agent's command line, environment and session `_meta` that steer it to the editor's file tools. */
export function steerToEditorFiles(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  baseEnv: NodeJS.ProcessEnv = process.env,
): FileSteering {
  const agent = steeredAgent(command, args);
  const none = { agent, args: [...args], env: { ...env }, cleanup: () => undefined };
  switch (agent) {
    case "claude-agent-acp":
      return {
        ...none,
        sessionMeta: {
          claudeCode: { options: { disallowedTools: CLAUDE_FILE_TOOLS } },
          systemPrompt: { append: EDITOR_FILES_INSTRUCTION },
        },
      };
    case "codex-acp":
      return { ...none, args: [...args, "-c", `developer_instructions=${JSON.stringify(EDITOR_FILES_INSTRUCTION)}`] };
    case "gemini-cli": {
      const own = env.GEMINI_CLI_SYSTEM_DEFAULTS_PATH ?? baseEnv.GEMINI_CLI_SYSTEM_DEFAULTS_PATH;
      const settings = readSettings(own ?? "/etc/gemini-cli/system-defaults.json");
      if (!settings) return none; // a defaults file it cannot read: left as it is
      const tools = (settings.tools ?? {}) as { exclude?: unknown };
      const exclude = [...(Array.isArray(tools.exclude) ? tools.exclude : []), ...GEMINI_FILE_TOOLS];
      const dir = mkdtempSync(join(tmpdir(), "acpchat-gemini-"));
      const path = join(dir, "system-defaults.json");
      writeFileSync(path, JSON.stringify({ ...settings, tools: { ...tools, exclude } }, null, 2), { mode: 0o600 });
      return {
        ...none,
        env: { ...env, GEMINI_CLI_SYSTEM_DEFAULTS_PATH: path },
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      };
    }
    default:
      return none;
  }
}

/** A settings file's object: {} when there is none, undefined when it cannot be read as one. */
function readSettings(path: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "ENOENT" ? {} : undefined;
  }
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // gemini's settings allow comments; such a file is left to gemini
  }
}
