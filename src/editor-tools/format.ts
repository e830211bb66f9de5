/**
 * What the editor reports (lua/acpchat/editor/editor_tools.lua sends plain data) turned into the compact
 * text a model reads: paths relative to the session's cwd, positions as path:line:column
 * (1-based, columns in characters), nothing outside the session's folders, and a note whenever
 * something was cut. Pure: the channel (channel.ts) reads the lines it needs and passes them in.
 */
import { isAbsolute, relative, sep } from "node:path";
import type { ToolName } from "./tools.js";

export type Encoding = "utf-8" | "utf-16" | "utf-32";

/** A position as Lua reports it: `column` already in characters, or an LSP `character` in `encoding`. */
export interface RawLocation {
  path: string;
  line: number;
  column?: number;
  character?: number;
  encoding?: Encoding;
  /** The line's text, when the file is loaded in the editor. */
  text?: string;
}

export interface RawDiagnostic extends RawLocation {
  severity: "error" | "warning" | "info" | "hint";
  message: string;
  source?: string;
  code?: string | number;
}

export interface RawSymbol {
  name: string;
  kind: string;
  detail?: string;
  line: number;
  end_line?: number;
  depth?: number;
}

export interface RawWorkspaceSymbol extends RawLocation {
  name: string;
  kind: string;
  container?: string;
}

export interface RawBuffer {
  path: string;
  modified: boolean;
  visible: boolean;
  filetype?: string;
  lines: number;
}

export interface RawSelection {
  path: string;
  mode: string;
  start_line: number;
  start_column: number;
  end_line: number;
  end_column: number;
  text: string;
  modified: boolean;
  current: boolean;
}

export interface RawQuickfix {
  title?: string;
  items: (RawLocation & { type?: string; valid?: boolean; path?: string })[];
}

/** What the editor answered, by tool (`items` lists; `note` when Lua has something to add). */
export type RawResult = {
  items?: unknown[];
  text?: string;
  note?: string;
  selection?: RawSelection;
  title?: string;
};

export interface FormatContext {
  cwd: string;
  /** Whether a path lies inside the session's folders. */
  inside: (path: string) => boolean;
  /** The line's text (1-based) of a file inside the folders, when the editor did not send it. */
  lineOf: (path: string, line: number) => string | undefined;
  maxItems: number;
  maxChars: number;
}

const SEVERITY_RANK = { error: 1, warning: 2, info: 3, hint: 4 } as const;

/** A 0-based LSP `character` offset in `encoding` as a 1-based column in characters (code points). */
export function columnOf(text: string, character: number, encoding: Encoding): number {
  if (encoding === "utf-8") return [...Buffer.from(text, "utf8").subarray(0, character).toString("utf8")].length + 1;
  if (encoding === "utf-32") return character + 1;
  return [...text.slice(0, character)].length + 1;
}

/** A path as the answer shows it: relative to the cwd; quoted as JSON when it holds control characters (a line break would start a made-up entry). */
export function shownPath(cwd: string, path: string): string {
  const rel = relative(cwd, path);
  const shown = rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : path;
  // eslint-disable-next-line no-control-regex
  return /[\u0000-\u001f\u007f\u2028\u2029]/.test(shown) ? JSON.stringify(shown) : shown;
}

/** Text of one entry on one line (names, messages and quickfix text can hold line breaks). */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n\u2028\u2029]+\s*/g, " ");
}

function position(ctx: FormatContext, l: RawLocation): { where: string; text: string | undefined } {
  const text = l.text ?? ctx.lineOf(l.path, l.line);
  let col = l.column;
  if (col === undefined && l.character !== undefined)
    col = text !== undefined ? columnOf(text, l.character, l.encoding ?? "utf-16") : l.character + 1;
  return { where: `${shownPath(ctx.cwd, l.path)}:${l.line}:${col ?? 1}`, text };
}

/** Lines, cut to the limits with a note saying what was left out. */
function finish(ctx: FormatContext, head: string | undefined, lines: string[], outside: number, empty: string): string {
  const out: string[] = [];
  if (head) out.push(head);
  if (lines.length === 0 && outside === 0) out.push(empty);
  out.push(...lines.slice(0, ctx.maxItems));
  if (lines.length > ctx.maxItems)
    out.push(`… ${lines.length - ctx.maxItems} more not shown (limit ${ctx.maxItems}); narrow the request.`);
  if (outside > 0) out.push(`(${outside} outside the session's folders not shown)`);
  return clip(out.join("\n"), ctx.maxChars);
}

function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n… cut at ${maxChars} characters of ${text.length}.`;
}

/** Split items into those inside the folders and a count of the rest. */
function confine<T extends { path?: string }>(ctx: FormatContext, items: T[]): { inside: T[]; outside: number } {
  const inside = items.filter((i) => i.path !== undefined && ctx.inside(i.path));
  return { inside, outside: items.length - inside.length };
}

function codeLine(text: string | undefined): string {
  return text === undefined ? "" : `  ${oneLine(text.trim()).slice(0, 200)}`;
}

export function formatResult(
  tool: ToolName,
  raw: RawResult,
  ctx: FormatContext,
  args: Record<string, unknown>,
): string {
  const note = raw.note ? `${raw.note}\n` : "";
  switch (tool) {
    case "diagnostics": {
      const min = SEVERITY_RANK[(args.severity as keyof typeof SEVERITY_RANK | undefined) ?? "hint"];
      const all = ((raw.items ?? []) as RawDiagnostic[]).filter((d) => (SEVERITY_RANK[d.severity] ?? 4) <= min);
      const { inside, outside } = confine(ctx, all);
      inside.sort(
        (a, b) =>
          (SEVERITY_RANK[a.severity] ?? 4) - (SEVERITY_RANK[b.severity] ?? 4) ||
          a.path.localeCompare(b.path) ||
          a.line - b.line,
      );
      const files = new Set(inside.map((d) => d.path)).size;
      const lines = inside.map((d) => {
        const tag = [d.source, d.code].filter((x) => x !== undefined && x !== "").join(" ");
        return `${position(ctx, { ...d, text: "" }).where}: ${d.severity}: ${oneLine(d.message)}${tag ? ` [${oneLine(tag)}]` : ""}`;
      });
      const head =
        inside.length > 0
          ? `${inside.length} diagnostic${inside.length === 1 ? "" : "s"} in ${files} file${files === 1 ? "" : "s"}:`
          : undefined;
      return (
        note +
        finish(
          ctx,
          head,
          lines,
          outside,
          args.path ? "No diagnostics for this file." : "No diagnostics in the open files.",
        )
      );
    }
    case "definition":
    case "references": {
      const { inside, outside } = confine(ctx, (raw.items ?? []) as RawLocation[]);
      const lines = inside.map((l) => {
        const p = position(ctx, l);
        return `${p.where}${codeLine(p.text)}`;
      });
      const what = tool === "definition" ? "definition" : "reference";
      const head = inside.length > 1 ? `${inside.length} ${what}s:` : undefined;
      return note + finish(ctx, head, lines, outside, `No ${what}s found.`);
    }
    case "hover":
      return note + clip(raw.text?.trim() || "No hover information at this position.", ctx.maxChars);
    case "document_symbols": {
      const lines = ((raw.items ?? []) as RawSymbol[]).map((s) => {
        const range = s.end_line !== undefined && s.end_line !== s.line ? `${s.line}-${s.end_line}` : `${s.line}`;
        return `${"  ".repeat(s.depth ?? 0)}${s.kind} ${oneLine(s.name)}${s.detail ? ` ${s.detail.replace(/\s+/g, " ")}` : ""} (${range})`;
      });
      return note + finish(ctx, undefined, lines, 0, "No symbols in this file.");
    }
    case "workspace_symbols": {
      const { inside, outside } = confine(ctx, (raw.items ?? []) as RawWorkspaceSymbol[]);
      const lines = inside.map(
        (s) =>
          `${s.kind} ${oneLine(s.name)}${s.container ? ` (in ${oneLine(s.container)})` : ""}: ${position(ctx, { ...s, text: s.text ?? "" }).where}`,
      );
      return note + finish(ctx, undefined, lines, outside, "No matching symbols.");
    }
    case "open_buffers": {
      const { inside, outside } = confine(ctx, (raw.items ?? []) as RawBuffer[]);
      const lines = inside.map(
        (b) =>
          `${shownPath(ctx.cwd, b.path)}${b.modified ? " [modified: unsaved changes]" : ""}${b.visible ? " [visible]" : ""}${b.filetype ? ` (${b.filetype}, ${b.lines} lines)` : ` (${b.lines} lines)`}`,
      );
      return note + finish(ctx, undefined, lines, outside, "No files are open in the editor.");
    }
    case "selection": {
      const s = raw.selection;
      if (!s) return note + "The user has not selected anything in the editor.";
      if (!ctx.inside(s.path))
        return "The user's selection is in a file outside the session's folders; it is not shown.";
      const kind = s.mode === "V" ? "lines" : s.mode === "v" ? "characters" : "block";
      const head = `${shownPath(ctx.cwd, s.path)}:${s.start_line}:${s.start_column}-${s.end_line}:${s.end_column} (${s.current ? "current" : "last"} selection, ${kind}${s.modified ? "; the file has unsaved changes" : ""}):`;
      return clip(`${head}\n${s.text}`, ctx.maxChars);
    }
    case "quickfix": {
      const items = ((raw.items ?? []) as RawQuickfix["items"]).filter(
        (i) => i.valid !== false && i.path !== undefined,
      );
      const { inside, outside } = confine(ctx, items);
      const lines = inside.map(
        (i) =>
          `${position(ctx, { ...i, path: i.path!, text: "" }).where}:${i.type ? ` ${i.type}:` : ""} ${oneLine((i.text ?? "").trim())}`,
      );
      const head = raw.title ? `Quickfix list "${raw.title}":` : undefined;
      return finish(ctx, head, lines, outside, "The quickfix list is empty.");
    }
    default:
      // The file tools are answered by the chat's file path (file-tools.ts), never by the editor.
      throw new Error(`${tool} is not answered by the editor`);
  }
}
