/**
 * The editor's tools as agents see them: names, descriptions written for a model, and
 * input shapes. Shared by the MCP server the agent starts (mcp-server.ts registers them) and by
 * the host's channel (channel.ts validates what arrives): one list, so the two cannot disagree.
 * Every tool answers within the session's folders. The file tools (read_file, write_file,
 * edit_file, list_files) are the agent's file system through the editor: reads see unsaved
 * buffers, writes take the client's write path (the user's review), as fs/* do.
 */
import { z } from "zod";
import { lazy } from "../protocol/lazy-schema.js";
import type { ToolName } from "../wire/index.js";

/** Where in a file: the line, and either the identifier on it or a column. */
const position = () => ({
  path: z.string().min(1).max(4096).describe("File path, relative to the project root (or absolute inside it)."),
  line: z.number().int().min(1).describe("1-based line number."),
  symbol: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe("The identifier on that line to ask about (its first occurrence). Preferred over column."),
  column: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("1-based column in characters, when no symbol is given. Defaults to the first non-blank character."),
});

export const TOOLS = {
  diagnostics: {
    title: "Diagnostics",
    description:
      "Errors, warnings and hints that the editor's language servers and linters report, as the user sees them (including files with unsaved changes). Give a path for one file, or none for every file open in the editor. Each line: path:line:column: severity: message [source code].",
    input: lazy(() => ({
      path: z
        .string()
        .min(1)
        .max(4096)
        .optional()
        .describe("File path relative to the project root; omit for all open files."),
      severity: z
        .enum(["error", "warning", "info", "hint"])
        .optional()
        .describe("Only this severity and worse (default: all)."),
    })),
  },
  definition: {
    title: "Go to definition",
    description:
      "Where the symbol at a position is defined, answered by the language server attached in the editor. Returns path:line:column and the line's text for each definition.",
    input: lazy(position),
  },
  references: {
    title: "Find references",
    description:
      "Every reference to the symbol at a position, answered by the language server attached in the editor. Returns path:line:column and the line's text for each one.",
    input: lazy(() => ({
      ...position(),
      include_declaration: z.boolean().optional().describe("Include the declaration itself (default true)."),
    })),
  },
  hover: {
    title: "Hover",
    description: "The language server's hover for the symbol at a position: its type, signature and documentation.",
    input: lazy(position),
  },
  document_symbols: {
    title: "Document symbols",
    description:
      "The outline of one file from its language server: classes, functions, methods, variables, with their kind and line range, nested by indentation.",
    input: lazy(() => ({ path: position().path })),
  },
  workspace_symbols: {
    title: "Workspace symbols",
    description:
      "Search the project's symbols by name through the language servers running in the editor. Returns kind, name, container and path:line:column.",
    input: lazy(() => ({
      query: z.string().max(500).describe("The name or part of it (fuzzy matching is up to the language server)."),
    })),
  },
  open_buffers: {
    title: "Open files",
    description:
      "The files open in the editor, with a mark for unsaved changes and for those visible in a window. Unsaved changes are what fs/read_text_file returns for that path.",
    input: {},
  },
  selection: {
    title: "Selection",
    description:
      "The text the user selected in the editor (the current visual selection, or the last one), with its path and line/column range.",
    input: {},
  },
  read_file: {
    title: "Read file",
    description:
      "Read a text file as the editor sees it: when the file is open with unsaved changes, its buffer's text (the result says so), else the file on disk. Use this instead of reading files with other tools: the disk may be stale. Lines are numbered like `cat -n` (number, tab, text); at most 2000 lines unless `limit` says more. Give `line` and `limit` to read a part of a long file.",
    input: lazy(() => ({
      path: position().path,
      line: z.number().int().min(1).optional().describe("1-based line to start at (default 1)."),
      limit: z.number().int().min(1).optional().describe("How many lines to read (default 2000)."),
    })),
    writes: false,
  },
  write_file: {
    title: "Write file",
    description:
      "Create a file or replace its whole content. The user reviews the change in the editor (they may accept only part of it) before it is written; the result says what was written. Prefer edit_file for changes to an existing file.",
    input: lazy(() => ({
      path: position().path,
      content: z
        .string()
        .max(16 * 1024 * 1024)
        .describe("The file's new content, in full."),
    })),
    writes: true,
  },
  edit_file: {
    title: "Edit file",
    description:
      "Replace text in a file as the editor sees it (unsaved changes included). `old_string` must appear exactly once unless `replace_all` is true; include enough surrounding lines to make it unique. Give the text without the line numbers read_file shows. The user reviews the change in the editor before it is written; the result says what was written.",
    input: lazy(() => ({
      path: position().path,
      old_string: z
        .string()
        .min(1)
        .max(4 * 1024 * 1024)
        .describe("The exact text to replace."),
      new_string: z
        .string()
        .max(4 * 1024 * 1024)
        .describe("The text to put in its place (must differ)."),
      replace_all: z.boolean().optional().describe("Replace every occurrence (default false)."),
    })),
    writes: true,
  },
  list_files: {
    title: "List files",
    description:
      "The project's files (those git does not ignore; every file when the folder is not a git repository), one path a line. Give `path` for a folder inside the project, `pattern` for a glob (`*.lua`, `src/**/*.ts`).",
    input: lazy(() => ({
      path: z.string().min(1).max(4096).optional().describe("A folder inside the project (default: the project root)."),
      pattern: z.string().min(1).max(500).optional().describe("A glob the paths must match, relative to `path`."),
    })),
    writes: false,
  },
  quickfix: {
    title: "Quickfix list",
    description:
      "The editor's current quickfix list (compiler errors, grep results, ...): its title and each entry as path:line:column: type: text.",
    input: {},
  },
} as const satisfies Record<ToolName, unknown>;

// The names are the wire's (the config names them): TOOLS has each, and no other.
export type { ToolName };
export const TOOL_NAMES = Object.keys(TOOLS) as ToolName[];

/** The file tools: answered by the host itself (the chat's file path), not asked of Lua. */
export const FILE_TOOLS = ["read_file", "write_file", "edit_file", "list_files"] as const satisfies readonly ToolName[];
export type FileToolName = (typeof FILE_TOOLS)[number];

export function isFileTool(t: ToolName): t is FileToolName {
  return (FILE_TOOLS as readonly string[]).includes(t);
}

/** Whether a tool changes files (its MCP annotation says so; the rest are read-only). */
export function writesFiles(t: ToolName): boolean {
  return (TOOLS[t] as { writes?: boolean }).writes === true;
}

export function isToolName(s: unknown): s is ToolName {
  return typeof s === "string" && Object.hasOwn(TOOLS, s);
}

/** The arguments of `tool`, checked; an Error with a message for the model otherwise. */
export function parseArgs(tool: ToolName, args: unknown): Record<string, unknown> {
  const r = z
    .object(TOOLS[tool].input)
    .strict()
    .safeParse(args ?? {});
  if (!r.success)
    throw new Error(
      `invalid arguments for ${tool}: ${r.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ")}`,
    );
  return r.data as Record<string, unknown>;
}

/** The name of the MCP server in each session's mcpServers (agents show tools as mcp__nvim__<tool>). */
export const SERVER_NAME = "nvim";
/** The environment variables that hand the server its channel. */
export const ENV_SOCKET = "ACPCHAT_EDITOR_SOCKET";
export const ENV_TOKEN = "ACPCHAT_EDITOR_TOKEN";
