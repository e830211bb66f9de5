/**
 * ACP v2 structured file changes (`{ changes, patch? }`) as the v1 diffs the session shows and
 * reviews (`{ path, oldText, newText }`, whole files): the file's current text (the caller's
 * reader: its buffer or the disk) with the `git_patch` hunks applied. What has no text (binary
 * files, directories, symlinks, a change without a patch, an operation this client does not
 * know) becomes a line of text in the tool call instead. Spec: the v2 draft's tool-call content.
 */
import { addedText, applyPatch, parsePatch, patchFor, type PatchFile } from "./git-patch.js";

/** The current text of a file (undefined: it does not exist or cannot be read as text). */
export type FileReader = (path: string) => Promise<string | undefined>;

/** A v1 tool call content item. */
export type V1Content =
  | { type: "diff"; path: string; oldText: string | null; newText: string }
  | { type: "content"; content: { type: "text"; text: string } };

const note = (text: string): V1Content => ({ type: "content", content: { type: "text", text } });

function inverted(f: PatchFile): PatchFile {
  return {
    oldPath: f.newPath,
    newPath: f.oldPath,
    hunks: f.hunks.map((h) => ({
      oldStart: h.oldStart,
      lines: h.lines.map((l) => (l[0] === "+" ? `-${l.slice(1)}` : l[0] === "-" ? `+${l.slice(1)}` : l)),
    })),
  };
}

/** The hunks' two sides as snippets (the file could not be read or the patch does not fit it). */
function snippets(path: string, f: PatchFile): V1Content & { type: "diff" } {
  const side = (drop: string) =>
    f.hunks.flatMap((h) => h.lines.filter((l) => l[0] !== drop).map((l) => l.slice(1))).join("\n");
  return { type: "diff", path, oldText: side("+"), newText: side("-") };
}

/**
 * The file before and after `f`: applied to the current text, or, when the agent has applied it
 * already (a diff reported after the edit), taken back from it.
 */
function sides(now: string, f: PatchFile): { oldText: string; newText: string } | undefined {
  const after = applyPatch(now, f);
  if (after !== undefined) return { oldText: now, newText: after };
  const before = applyPatch(now, inverted(f));
  return before === undefined ? undefined : { oldText: before, newText: now };
}

const NO_TEXT = new Set(["binary", "directory", "symlink"]);

/** One v2 `Diff` as v1 tool call content items, in the order of its changes. */
export async function diffContents(diff: unknown, read: FileReader): Promise<V1Content[]> {
  const d = (diff ?? {}) as { changes?: unknown; patch?: { format?: unknown; text?: unknown } | null };
  const changes = Array.isArray(d.changes) ? d.changes : [];
  // Only `git_patch` is defined; another format's text is not read (the changes still show).
  const files =
    d.patch && d.patch.format === "git_patch" && typeof d.patch.text === "string" ? parsePatch(d.patch.text) : [];
  const out: V1Content[] = [];
  for (const raw of changes) {
    const c = (raw ?? {}) as { operation?: unknown; path?: unknown; oldPath?: unknown; fileType?: unknown };
    if (typeof c.path !== "string" || typeof c.operation !== "string") continue;
    const { path, operation } = c;
    const oldPath = typeof c.oldPath === "string" ? c.oldPath : undefined;
    if (typeof c.fileType === "string" && NO_TEXT.has(c.fileType)) {
      out.push(note(`${operation} ${c.fileType} ${oldPath ? `${oldPath} -> ` : ""}${path}`));
      continue;
    }
    // One change and one file in the patch belong together whatever the patch calls it.
    const f = patchFor(files, path, oldPath) ?? (changes.length === 1 && files.length === 1 ? files[0] : undefined);
    switch (operation) {
      case "add":
        out.push({ type: "diff", path, oldText: null, newText: f ? addedText(f) : ((await read(path)) ?? "") });
        break;
      case "delete":
        out.push({
          type: "diff",
          path,
          oldText: (await read(path)) ?? (f ? snippets(path, f).oldText : ""),
          newText: "",
        });
        out.push(note(`delete ${path}`));
        break;
      case "modify": {
        if (!f) {
          out.push(note(`modify ${path} (the agent sent no patch text)`));
          break;
        }
        const now = await read(path);
        const s = now === undefined ? undefined : sides(now, f);
        out.push(s ? { type: "diff", path, ...s } : snippets(path, f));
        break;
      }
      case "move":
      case "copy": {
        const from = oldPath ?? path;
        out.push(note(`${operation} ${from} -> ${path}`));
        // Before the operation the text is at the old path; after a move, only at the new one.
        const now = (await read(from)) ?? (await read(path)) ?? "";
        const s = f ? sides(now, f) : undefined;
        out.push({
          type: "diff",
          path,
          oldText: operation === "copy" ? null : (s?.oldText ?? now),
          newText: s?.newText ?? now,
        });
        break;
      }
      default:
        // `_`-prefixed (an extension) or a future operation: said, not guessed at.
        out.push(note(`${operation} ${path}`));
    }
  }
  return out;
}
