/**
 * The `git_patch` text of an ACP v2 structured diff: split by file, and each file's hunks
 * applied to the file's current text, so that the client can show and review the whole file
 * before and after as it does for a v1 diff. Pure: the caller reads the file.
 */

/** One file's part of a patch: its paths as the headers name them (no `a/` or `b/`), its hunks. */
export interface PatchFile {
  oldPath?: string;
  newPath?: string;
  hunks: PatchHunk[];
}

/** A hunk: where it starts in the old file (1-based), and its lines with their ` `, `-`, `+` marks. */
export interface PatchHunk {
  oldStart: number;
  lines: string[];
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

function headerPath(rest: string): string | undefined {
  const p = rest.split("\t")[0]!.trim();
  if (p === "/dev/null") return undefined;
  return p.replace(/^"|"$/g, "").replace(/^[ab]\//, "");
}

/**
 * The files of a unified or git patch, in order. A hunk's lines are counted by its header (a
 * removed line `-- x` reads `--- x`, which is not a file header there); other lines are skipped.
 */
export function parsePatch(text: string): PatchFile[] {
  const files: PatchFile[] = [];
  let file: PatchFile | undefined;
  let hunk: { h: PatchHunk; old: number; new: number } | undefined;
  const fresh = () => {
    file = { hunks: [] };
    files.push(file);
    return file;
  };
  for (const line of text.split("\n")) {
    if (hunk && (hunk.old > 0 || hunk.new > 0)) {
      const mark = line[0] ?? " ";
      if (mark === "\\") continue; // "\ No newline at end of file"
      if (mark === " " || mark === "-") hunk.old--;
      if (mark === " " || mark === "+") hunk.new--;
      if (mark === " " || mark === "-" || mark === "+") hunk.h.lines.push(line === "" ? " " : line);
      continue;
    }
    hunk = undefined;
    if (line.startsWith("diff --git ")) {
      const f = fresh();
      const m = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
      if (m) [f.oldPath, f.newPath] = [m[1], m[2]];
    } else if (line.startsWith("--- ")) {
      const f = file && file.hunks.length === 0 ? file : fresh();
      f.oldPath = headerPath(line.slice(4));
    } else if (line.startsWith("+++ ") && file) {
      file.newPath = headerPath(line.slice(4));
    } else {
      const m = HUNK.exec(line);
      if (m && file) {
        const h: PatchHunk = { oldStart: Number(m[1]), lines: [] };
        file.hunks.push(h);
        hunk = { h, old: m[2] === undefined ? 1 : Number(m[2]), new: m[3] === undefined ? 1 : Number(m[3]) };
      }
    }
  }
  return files;
}

/** The part of `files` about `path` (absolute): the one whose new (else old) path it ends with. */
export function patchFor(files: PatchFile[], path: string, oldPath?: string): PatchFile | undefined {
  const ends = (p: string | undefined, abs: string | undefined) =>
    p !== undefined && abs !== undefined && (abs === p || abs.endsWith(`/${p}`));
  return files.find((f) => ends(f.newPath, path)) ?? files.find((f) => ends(f.oldPath, oldPath ?? path));
}

/** The text of the file's new side when it did not exist before: every added line. */
export function addedText(file: PatchFile): string {
  const lines = file.hunks.flatMap((h) => h.lines.filter((l) => l.startsWith("+")).map((l) => l.slice(1)));
  return lines.length ? `${lines.join("\n")}\n` : "";
}

/**
 * `old` with the file's hunks applied; undefined when a hunk's old lines are not where it says
 * nor anywhere else in the file (the file changed since the agent made the patch).
 */
export function applyPatch(old: string, file: PatchFile): string | undefined {
  const eol = old.endsWith("\n");
  const lines = old === "" ? [] : (eol ? old.slice(0, -1) : old).split("\n");
  const out: string[] = [];
  let at = 0;
  for (const h of file.hunks) {
    const before = h.lines.filter((l) => !l.startsWith("+")).map((l) => l.slice(1));
    const after = h.lines.filter((l) => !l.startsWith("-")).map((l) => l.slice(1));
    const fits = (i: number) =>
      i >= at && i + before.length <= lines.length && before.every((l, k) => lines[i + k] === l);
    let start = Math.max(0, h.oldStart - 1);
    if (before.length === 0) start = Math.max(at, h.oldStart);
    else if (!fits(start)) {
      start = -1;
      for (let i = at; i + before.length <= lines.length; i++)
        if (fits(i)) {
          start = i;
          break;
        }
      if (start < 0) return undefined;
    }
    out.push(...lines.slice(at, start), ...after);
    at = start + before.length;
  }
  out.push(...lines.slice(at));
  if (out.length === 0) return "";
  return `${out.join("\n")}${eol || lines.length === 0 ? "\n" : ""}`;
}
