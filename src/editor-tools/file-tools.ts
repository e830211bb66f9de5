/**
 * The editor's file tools (read_file, write_file, edit_file, list_files) on the host's side of
 * the channel. Reads and writes are the chat's own fs/read_text_file and fs/write_text_file
 * path (EditorFiles, given by the host): the buffer's text when it holds unsaved edits, writes
 * reviewed by the user, the session's boundary, the same limits. This module shapes what the
 * model reads: numbered lines like the agents' own read tools, and edits in the shape of theirs
 * (an `old_string` that must be found exactly once).
 */
import { execFile } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { numberedLine } from "../workspace/files.js";
import { shownPath } from "./format.js";

/** The chat's file path, as fs/* take it (paths are checked there, against the session's folders). */
export interface EditorFiles {
  /**
   * Lines [line, line+limit) (1-based; all when neither is given) as fs/read_text_file reads
   * them, and whether they are a buffer's unsaved edits. `numbered`: numbered on the way when the
   * editor can (a buffer's lines, numbered as Neovim joins them), which the answer says.
   */
  read(
    path: string,
    line: number | undefined,
    limit: number | undefined,
    signal: AbortSignal,
    numbered?: boolean,
  ): Promise<{ content: string; unsaved: boolean; path: string; numbered?: boolean }>;
  /** fs/write_text_file: the user's review, then the buffer and the disk; what was written, in words. */
  write(path: string, content: string, signal: AbortSignal): Promise<string>;
}

/** Lines a read shows when the model gives no limit (as Claude's own Read does). */
export const DEFAULT_READ_LINES = 2000;

/** A read's answer: the lines numbered like `cat -n`, and notes on what was left out or where the text came from. */
export function formatRead(
  cwd: string,
  r: { content: string; unsaved: boolean; path: string; numbered?: boolean },
  first: number,
  limit: number,
): string[] {
  const shown = shownPath(cwd, r.path);
  const { body, shownLines, more } = r.numbered
    ? numberedBody(r.content, first, limit)
    : numberBody(r.content, first, limit);
  const notes: string[] = [];
  if (r.unsaved)
    notes.push(
      `[${shown} is open in the editor with unsaved changes: this is the buffer's text, which the file on disk does not have yet.]`,
    );
  if (shownLines === 0) {
    notes.push(first > 1 ? `[${shown} has fewer than ${first} lines.]` : `[${shown} is empty.]`);
    return [notes.join("\n")];
  }
  // The body is never joined to the notes: that copies the whole file once more (a fresh large
  // string, milliseconds for a big read). The pieces go as consecutive text blocks: Claude reads
  // them as one text (the line breaks are here); gemini-cli and codex show each block on its own.
  const out = notes.length > 0 ? [`${notes.join("\n")}\n`, body] : [body];
  if (more)
    out.push(
      `\n[Lines ${first}-${first + limit - 1} shown; the file goes on: read_file with line=${first + limit} reads the rest.]`,
    );
  return out;
}

/**
 * Lines numbered here, one pass over the text (no split, map and join of every line: a whole
 * file is read in one call). The read asked for one line more than `limit`: its presence says
 * the file goes on.
 */
function numberBody(text: string, first: number, limit: number) {
  let body = "";
  let shownLines = 0;
  for (let at = 0; at < text.length; ) {
    let nl = text.indexOf("\n", at);
    if (nl < 0) nl = text.length;
    if (shownLines === limit) return { body, shownLines, more: true };
    body += `${shownLines === 0 ? "" : "\n"}${numberedLine(first + shownLines, text.slice(at, nl))}`;
    shownLines++;
    at = nl + 1;
  }
  return { body, shownLines, more: false };
}

/**
 * Lines the editor numbered (numberedLine's shape, from `first`): the last line's number says how
 * many there are, so the text is not scanned; the one past `limit` is cut.
 */
function numberedBody(text: string, first: number, limit: number) {
  if (text === "") return { body: "", shownLines: 0, more: false };
  const nl = text.lastIndexOf("\n");
  const last = Number.parseInt(text.slice(nl + 1, text.indexOf("\t", nl + 1)), 10);
  const count = last - first + 1;
  if (count > limit) return { body: text.slice(0, nl), shownLines: limit, more: true };
  return { body: text, shownLines: count, more: false };
}

/** The text after an edit_file, or an Error whose message tells the model what to do instead. */
export function applyEdit(
  shown: string,
  text: string,
  oldString: string,
  newString: string,
  replaceAll: boolean,
): string {
  if (oldString === newString) throw new Error("old_string and new_string are the same; nothing to change");
  let count = 0;
  for (let at = text.indexOf(oldString); at >= 0; at = text.indexOf(oldString, at + oldString.length)) count++;
  if (count === 0)
    throw new Error(
      `old_string was not found in ${shown}. Read the file again with read_file (the user's unsaved edits count) and copy the text exactly, without the line numbers.`,
    );
  if (count > 1 && !replaceAll)
    throw new Error(
      `old_string appears ${count} times in ${shown}. Include more of the surrounding lines to make it unique, or set replace_all to change every occurrence.`,
    );
  return replaceAll ? text.split(oldString).join(newString) : text.replace(oldString, () => newString);
}

/** How many paths list_files shows at most. */
const MAX_LISTED = 2000;
/** How many entries a walk of a folder that git does not know looks at, at most. */
const MAX_WALKED = 50_000;

/** A glob (`*`, `**`, `?`, `{a,b}`) as a regular expression over "/"-separated relative paths; a pattern without "/" matches the file's name anywhere. */
export function globRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          re += "(?:.*/)?";
        } else re += ".*";
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) re += "\\{";
      else {
        re += `(?:${glob
          .slice(i + 1, end)
          .split(",")
          .map((p) => p.replace(/[.+^$()|[\]\\*?]/g, "\\$&"))
          .join("|")})`;
        i = end;
      }
    } else re += c.replace(/[.+^$()|[\]\\{}]/g, "\\$&");
  }
  return new RegExp(glob.includes("/") ? `^${re}$` : `(?:^|/)${re}$`);
}

/**
 * The files under `dir` (inside the session's folders, checked by the caller), relative to it:
 * what `git ls-files` lists (tracked and untracked, .gitignore honoured), or a walk of the folder
 * when it is not in a git repository.
 */
export async function listFiles(
  cwd: string,
  dir: string,
  pattern: string | undefined,
  signal: AbortSignal,
): Promise<string> {
  let files = await gitFiles(dir, signal);
  const fromGit = files !== undefined;
  files ??= await walk(dir);
  const re = pattern ? globRegExp(pattern) : undefined;
  const matched = re ? files.filter((f) => re.test(f)) : files;
  matched.sort();
  const where = dir === cwd ? "." : shownPath(cwd, dir);
  const out = matched.slice(0, MAX_LISTED);
  const head =
    matched.length === 0
      ? `No files${pattern ? ` match ${pattern}` : ""} in ${where}.`
      : `${matched.length} file${matched.length === 1 ? "" : "s"} in ${where}${pattern ? ` matching ${pattern}` : ""}${fromGit ? " (.gitignore honoured)" : ""}:`;
  const tail =
    matched.length > MAX_LISTED
      ? [`… ${matched.length - MAX_LISTED} more not shown; narrow the request with path or pattern.`]
      : [];
  return [head, ...out, ...tail].join("\n");
}

function gitFiles(dir: string, signal: AbortSignal): Promise<string[] | undefined> {
  return new Promise((resolve) => {
    execFile(
      "git",
      ["ls-files", "--cached", "--others", "--exclude-standard", "-z", "--", "."],
      { cwd: dir, signal, maxBuffer: 64 << 20, env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } },
      (err, stdout) => {
        if (err) return resolve(undefined);
        resolve([...new Set(stdout.split("\0").filter(Boolean))]);
      },
    );
  });
}

async function walk(root: string): Promise<string[]> {
  const out: string[] = [];
  const queue = [root];
  let seen = 0;
  while (queue.length > 0 && seen < MAX_WALKED) {
    const dir = queue.shift()!;
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (++seen > MAX_WALKED) break;
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== ".git" && e.name !== "node_modules") queue.push(p);
      } else if (e.isFile() || (e.isSymbolicLink() && (await stat(p).catch(() => undefined))?.isFile())) {
        out.push(relative(root, p).split(sep).join("/"));
      }
    }
  }
  return out;
}
