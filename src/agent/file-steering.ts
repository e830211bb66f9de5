/**
 * Steering an agent to the editor's file tools (mcp__nvim__read_file, write_file, edit_file):
 * an agent's own read and edit tools read the disk (not the user's unsaved buffers) and write
 * behind the user's back, and they win unless the agent is told otherwise. Each agent has its
 * own switch, found in its source:
 *   - claude-agent-acp: session/new `_meta.claudeCode.options.disallowedTools` (its Read, Write,
 *     Edit, MultiEdit, NotebookEdit; its Bash stays) and `_meta.systemPrompt.append`; the
 *     editor's read-only tools in `allowedTools` (its own Read never asked; a read that asks every
 *     time is worse than the tool it replaces; writes still ask, with their diff).
 *   - gemini-cli (0.61, run behind a fake model server): a policy file of its own (`--policy`,
 *     see geminiPolicy), only in a folder it trusts (elsewhere it starts no MCP server). Not its
 *     settings' `tools.exclude`: a system-defaults file is skipped unless root owns it, and an
 *     excluded `read_file` also takes away the editor's MCP tool of that name.
 *   - codex-acp: `-c developer_instructions=...` (codex reads with shell commands and edits with
 *     apply_patch, which have no switch of their own that keeps its shell: it is told instead;
 *     codex-acp 0.16 behind a fake model: the text reaches the model as a developer message).
 * Any other agent is left as it is (its reads of files with unsaved edits are pointed out).
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, join, resolve, sep } from "node:path";

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
/** gemini-cli's built-in file tools it can do without (see geminiPolicy). */
export const GEMINI_FILE_TOOLS = ["replace", "read_many_files"];

/** Which agent this command line starts (its program, or the script node runs). */
export function steeredAgent(command: string, args: readonly string[]): SteeredAgent | undefined {
  const names = [command, ...(basename(command).startsWith("node") ? args.slice(0, 1) : [])].join(" ");
  if (/claude-agent-acp/.test(names)) return "claude-agent-acp";
  if (/codex-acp/.test(names)) return "codex-acp";
  if (/(^|[/\s])gemini(\s|$)|gemini-cli/.test(names)) return "gemini-cli";
  return undefined;
}

/**
 * The agent's command line, environment and session `_meta` that steer it to the editor's file
 * tools. `readOnly`: the editor's tools that only read, as the agent names them
 * (mcp__nvim__read_file, ...): approved without asking where the agent has an allow list.
 */
export function steerToEditorFiles(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string = process.cwd(),
  baseEnv: NodeJS.ProcessEnv = process.env,
  readOnly: readonly string[] = [],
): FileSteering {
  const agent = steeredAgent(command, args);
  const none = { agent, args: [...args], env: { ...env }, cleanup: () => undefined };
  switch (agent) {
    case "claude-agent-acp":
      return {
        ...none,
        sessionMeta: {
          claudeCode: {
            options: {
              disallowedTools: CLAUDE_FILE_TOOLS,
              ...(readOnly.length > 0 ? { allowedTools: [...readOnly] } : {}),
            },
          },
          systemPrompt: { append: EDITOR_FILES_INSTRUCTION },
        },
      };
    case "codex-acp":
      return { ...none, args: [...args, "-c", `developer_instructions=${JSON.stringify(EDITOR_FILES_INSTRUCTION)}`] };
    case "gemini-cli": {
      const all = { ...baseEnv, ...env };
      if (!geminiTrusts(cwd, all)) return none; // it starts no MCP server there: it keeps its own tools
      const dir = mkdtempSync(join(tmpdir(), "acpchat-gemini-"));
      const path = join(dir, "editor-files.toml");
      writeFileSync(path, geminiPolicy(), { mode: 0o600 });
      // --policy replaces the user's policy folder: it is given back beside this file.
      const own = join(geminiHome(all), ".gemini", "policies");
      const given = args.some((a) => a === "--policy" || a.startsWith("--policy="));
      const keep = !given && existsSync(own) ? ["--policy", own] : [];
      return {
        ...none,
        args: [...args, "--policy", path, ...keep],
        cleanup: () => rmSync(dir, { recursive: true, force: true }),
      };
    }
    default:
      return none;
  }
}

/**
 * gemini-cli's policy (TOML, user tier): `replace` and `read_many_files` are taken away; `read_file`
 * and `write_file` are refused when called, with the editor's tool to use instead. They cannot be
 * taken away: gemini matches an MCP tool's unprefixed name too, so excluding `read_file` would also
 * take away the editor's `mcp_nvim_read_file`.
 */
export function geminiPolicy(): string {
  const refuse = (tool: string, instead: string) =>
    `[[rule]]\ntoolName = "${tool}"\nargsPattern = "[\\\\s\\\\S]*"\ndecision = "deny"\npriority = 990\n` +
    `deny_message = ${JSON.stringify(`Use ${instead} instead: the editor's tool reads the user's unsaved buffers and puts changes through their review.`)}\n`;
  return [
    `[[rule]]\ntoolName = ${JSON.stringify(GEMINI_FILE_TOOLS)}\ndecision = "deny"\npriority = 990\n`,
    refuse("read_file", "mcp_nvim_read_file"),
    refuse("write_file", "mcp_nvim_write_file"),
  ].join("\n");
}

/** The home gemini-cli reads its settings, policies and trusted folders from. */
function geminiHome(env: NodeJS.ProcessEnv): string {
  return env.GEMINI_CLI_HOME || env.HOME || homedir();
}

/**
 * Whether gemini-cli trusts the folder (its folder trust, as its checkPathTrust decides): in a
 * folder it does not trust it starts no MCP server, the editor's among them.
 */
export function geminiTrusts(cwd: string, env: NodeJS.ProcessEnv): boolean {
  if (env.GEMINI_RESTRICTED_MODE === "true" || env.GEMINI_CLI_TRUST_WORKSPACE === "false") return false;
  if (env.GEMINI_CLI_TRUST_WORKSPACE === "true") return true;
  const home = join(geminiHome(env), ".gemini");
  const settings = readJson(join(home, "settings.json")) as { security?: { folderTrust?: { enabled?: unknown } } };
  if (settings?.security?.folderTrust?.enabled === false) return true;
  const folders = readJson(env.GEMINI_CLI_TRUSTED_FOLDERS_PATH || join(home, "trustedFolders.json"));
  const at = realOr(cwd);
  let best: [number, unknown] = [-1, undefined];
  for (const [rule, level] of Object.entries(folders ?? {})) {
    const root = realOr(level === "TRUST_PARENT" ? dirname(rule) : rule);
    const inside = at === root || at.startsWith(root.endsWith(sep) ? root : root + sep);
    if (inside && rule.length > best[0]) best = [rule.length, level];
  }
  return best[1] === "TRUST_FOLDER" || best[1] === "TRUST_PARENT";
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** A JSON object file, or undefined (missing, unreadable, not an object, comments). */
function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(readFileSync(path, "utf8")) as unknown;
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
