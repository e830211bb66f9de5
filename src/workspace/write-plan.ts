/**
 * What an agent's write does, decided in one place as a pure function of plain data:
 *   - the proposal (path and content),
 *   - the current text as the editor sees it (a loaded buffer: its lines, change tick,
 *     'fileformat', 'fileencoding', 'bomb', 'endofline'...) or as the disk has it (bytes
 *     decoded like Vim, size, mode, link count, a fingerprint of the content),
 *   - the write mode ("review", "buffer", "save"),
 *   - earlier answers (the user accepted this very write hunk by hunk in the permission
 *     question's review, against the text there is now; a review that has to be shown again
 *     because the text changed under it).
 * An "Allow" answer alone is never the approval of a write: the question shows counts, not the
 * diff, so a write that must be reviewed (write mode "review", or a buffer holding the user's
 * unsaved edits) is reviewed after it too.
 * It returns an action: refuse (with the reason for the agent), nothing to do, review, or a
 * commit (apply line edits to the buffer as one undo step, or write bytes to disk), each
 * carrying what it was computed against, so the effect lands only if that is still the text.
 *
 * The effects live at the edge (src/nvim/nvim-port.ts and lua/acpchat/editor/workspace.lua); this
 * module never touches the editor or the disk.
 */
import { hashBytes as hashOf, type DiskSnapshot, type Fingerprint } from "./disk.js";
import { compose, diffTexts, editsFor, type DiffLimits, type Hunk, type LineDiff, type LineEdit } from "./hunks.js";
import type { BufferStateWire, ReviewAnswer, ReviewQuestion } from "../wire/index.js";
import { mergeOnTop } from "./three-way.js";
import {
  encodeText,
  encodingFromVim,
  proposalText,
  sameText,
  splitText,
  unencodable,
  type Encoding,
  type FileFormat,
  type Text,
} from "./text-codec.js";

export type WriteMode = "review" | "buffer" | "save";

/** A loaded buffer, as lua/acpchat/editor/workspace.lua reports it. */
export type BufferState = BufferStateWire;

export type Current =
  | { kind: "buffer"; buffer: BufferState; disk?: DiskSnapshot }
  | { kind: "disk"; disk: DiskSnapshot };

/** The text of a buffer as it would be written: its lines, and a final newline unless 'noeol' (and 'nofixeol'). */
export function bufferText(b: BufferState): Text {
  if (b.empty) return { lines: [], eol: false };
  return { lines: b.lines, eol: writesEol(b) };
}

/** Whether the buffer's text ends with a newline when written: 'eol', or 'fixeol' unless 'binary'. */
export function writesEol(b: { eol: boolean; fixeol: boolean; binary: boolean }): boolean {
  return b.eol || (b.fixeol && !b.binary);
}

/** The buffer as bytes on disk, when its encoding is one this client writes. */
export function bufferBytes(b: BufferState): Buffer | undefined {
  const encoding = encodingFromVim(b.fileencoding);
  if (!encoding) return undefined;
  const format: FileFormat | undefined = b.fileformat === "dos" ? "dos" : b.fileformat === "unix" ? "unix" : undefined;
  if (!format) return undefined;
  try {
    return encodeText({
      ...bufferText(b),
      encoding,
      format,
      bom: b.bomb && encoding !== "latin1" && encoding !== "cp1252",
    });
  } catch {
    return undefined;
  }
}

/**
 * A NUL byte in a line: the buffer holds a binary file. Neovim's API hands a NUL over as "\0"
 * (it keeps it as "\n" inside the line, which is what an earlier version looked for, so the check
 * never fired: tests/e2e/workspace.test.ts reads and writes such a buffer now).
 */
export function hasNul(lines: readonly string[]): boolean {
  return lines.some((l) => l.includes("\0") || l.includes("\n"));
}

/** The text of what is there now, for comparisons across kinds (a review of a disk file, then the buffer opened). */
export function currentText(c: Current): Text | undefined {
  if (c.kind === "buffer") return bufferText(c.buffer);
  if (!c.disk.exists) return { lines: [], eol: false };
  return c.disk.file ? { lines: c.disk.file.lines, eol: c.disk.file.eol } : undefined;
}

/** What a commit was computed against: it lands only if that is still so. */
export type Base =
  | { kind: "buffer"; tick: number; empty: boolean; text: Text }
  | { kind: "disk"; fingerprint: Fingerprint; text: Text };

/** Everything needed to turn accepted hunks into an effect. */
export interface Prepared {
  path: string;
  base: Base;
  next: Text;
  diff: LineDiff;
  /** Disk: how to encode the result (the old file's encoding, line breaks, BOM). */
  file?: { encoding: Encoding; format: FileFormat; bom: boolean };
  /** Buffer: also :write it afterwards (mode "save", and no unsaved edits of the user's in it). */
  save: boolean;
  /** Buffer with save: the disk as it was when this was decided (the save lands only on it). */
  disk?: Fingerprint;
  /** Buffer: the agent's own text as its lines would hold it (before any merge with the user's edits). */
  agentText?: Text;
}

export type Commit =
  | {
      to: "buffer";
      path: string;
      tick: number;
      edits: LineEdit[];
      eol?: boolean;
      save: boolean;
      expectedDisk?: Fingerprint;
      result: Text;
      base: Base;
    }
  | { to: "disk"; path: string; expected: Fingerprint; bytes: Buffer; result: Text; create: boolean; base: Base };

export type WritePlan =
  | { action: "refuse"; message: string }
  /** `kept`: the agent's change, put on top of the user's unsaved edits, changed nothing. */
  | { action: "unchanged"; where: "buffer" | "disk"; kept?: boolean }
  | { action: "review"; reason: "review" | "conflict" | "merged" | "refresh"; prepared: Prepared }
  | { action: "commit"; commit: Commit; prepared: Prepared };

export interface WriteRequest {
  path: string;
  content: string;
  current: Current;
  mode: WriteMode;
  /**
   * The text the user accepted exactly this write against, hunk by hunk, in the permission
   * question's review ("Show the diff first"): no second review while it is still the text.
   */
  reviewedAgainst?: Text;
  /** The text changed under an answered review: show it again, whatever the mode. */
  refresh?: boolean;
  /**
   * What the agent last knew of the file through the client: the text of a whole read of its
   * buffer, or of its own last write; null when it read only part of a buffer with unsaved
   * edits (what it built on is unknown); undefined when it read nothing through the client
   * (it read the disk itself, if at all).
   */
  agentSaw?: Text | null;
  limits?: DiffLimits;
}

/** Decide what a write does. Pure: the same input always gives the same plan. */
export function decideWrite(req: WriteRequest): WritePlan {
  const { path, current, mode } = req;
  if (current.kind === "buffer") return decideBuffer(req, current.buffer, current.disk);
  const disk = current.disk;
  if (!disk.exists) {
    const next = splitText(req.content);
    const bad = unencodable(next.lines, "utf-8");
    if (bad)
      return {
        action: "refuse",
        message: `${path}: line ${bad.line} of the new text has ${bad.char}, which cannot be written as UTF-8; nothing was written`,
      };
    const base: Base = { kind: "disk", fingerprint: disk.fingerprint, text: { lines: [], eol: false } };
    const prepared: Prepared = {
      path,
      base,
      next,
      diff: diffTexts(base.text, next, req.limits),
      file: { encoding: "utf-8", format: next.format, bom: false },
      save: false,
    };
    return finishDecision(req, prepared, mode === "review" ? "review" : undefined);
  }
  if (disk.refused) {
    const why =
      disk.refused.why === "binary"
        ? "binary files are not overwritten"
        : disk.refused.why === "too-large"
          ? "it is not overwritten"
          : "it is not overwritten";
    return { action: "refuse", message: `${disk.refused.message}; ${why}` };
  }
  if (disk.readonly)
    return {
      action: "refuse",
      message: `${path} is read-only (mode ${disk.mode.toString(8).padStart(4, "0")}); it was not written`,
    };
  const file = disk.file!;
  const next = proposalText(req.content, file);
  const bad = unencodable(next.lines, file.encoding);
  if (bad) return { action: "refuse", message: encodingMessage(path, file.encoding, bad) };
  const base: Base = { kind: "disk", fingerprint: disk.fingerprint, text: { lines: file.lines, eol: file.eol } };
  if (sameText(base.text, next)) return { action: "unchanged", where: "disk" };
  const prepared: Prepared = {
    path,
    base,
    next,
    diff: diffTexts(base.text, next, req.limits),
    file: { encoding: file.encoding, format: file.format, bom: file.bom },
    save: false,
  };
  return finishDecision(req, prepared, mode === "review" ? "review" : undefined);
}

function decideBuffer(req: WriteRequest, b: BufferState, disk: DiskSnapshot | undefined): WritePlan {
  const { path, mode } = req;
  if (!b.modifiable)
    return {
      action: "refuse",
      message: `${path} is open in a buffer that cannot be modified ('nomodifiable'); nothing was written`,
    };
  if (b.readonly)
    return { action: "refuse", message: `${path} is read-only (its buffer is 'readonly'); nothing was written` };
  if (hasNul(b.lines))
    return {
      action: "refuse",
      message: `${path} looks binary (its buffer holds NUL bytes); binary files are not overwritten`,
    };
  const format: FileFormat = b.fileformat === "dos" ? "dos" : "unix";
  let next: Text = proposalText(req.content, { format, bom: b.bomb });
  const encoding = encodingFromVim(b.fileencoding);
  if (encoding) {
    const bad = unencodable(next.lines, encoding);
    if (bad) return { action: "refuse", message: encodingMessage(path, encoding, bad) };
  }
  const text = bufferText(b);
  const agentText = next;
  const merged = b.modified && !req.refresh ? onTopOfUserEdits(req, text, next, disk) : undefined;
  if (merged) next = merged.text;
  if (sameText(text, next)) return { action: "unchanged", where: "buffer", ...(merged ? { kept: true } : {}) };
  if (mode === "save" && !b.modified && disk?.exists && disk.fingerprint.hash) {
    // The buffer was saved, so it should be the disk: if it is not, someone wrote the file
    // behind it, and saving over that would lose their change.
    const bytes = bufferBytes({ ...b, fixeol: false });
    if (bytes && hashOf(bytes) !== disk.fingerprint.hash) {
      return {
        action: "refuse",
        message: `${path} changed on disk since it was loaded in the editor; nothing was written (the user was asked to compare)`,
      };
    }
  }
  const base: Base = { kind: "buffer", tick: b.tick, empty: b.empty, text };
  // "save", and "review" (an accepted change is on disk before the agent is answered, so its
  // next command sees it): only a buffer without edits of the user's, and for "review" only
  // when the disk is still what the buffer holds (a file written behind it is not overwritten).
  const save = !b.modified && (mode === "save" || (mode === "review" && bufferIsDisk(b, disk)));
  const prepared: Prepared = {
    path,
    base,
    next,
    diff: diffTexts(text, next, req.limits),
    save,
    disk: save && disk?.exists ? disk.fingerprint : undefined,
    agentText,
  };
  // Unsaved edits of the user's are never overwritten without their say.
  const reason = b.modified
    ? merged?.conflicts === 0
      ? "merged"
      : "conflict"
    : mode === "review"
      ? "review"
      : undefined;
  return finishDecision(req, prepared, reason);
}

/**
 * A write over a buffer holding the user's unsaved edits, made from a text without them (the
 * agent read the disk, or the buffer before the user typed, or its text was cut down in a
 * permission review of an older buffer): a whole-file write would take their lines out. The
 * agent's change (what it built on -> its text) is put on top of the buffer instead, region by
 * region (three-way.ts), so the review offers the agent's own hunks; where both changed the same
 * lines (a conflict) the agent's lines are shown against the user's. Undefined when the agent
 * built on the buffer as it is, or what it built on is unknown (its text is shown as it is).
 */
function onTopOfUserEdits(
  req: WriteRequest,
  text: Text,
  next: Text,
  disk: DiskSnapshot | undefined,
): { text: Text; conflicts: number } | undefined {
  const known =
    req.agentSaw !== undefined
      ? req.agentSaw
      : disk?.exists && disk.file
        ? { lines: disk.file.lines, eol: disk.file.eol }
        : undefined;
  if (!known || sameText(known, text)) return undefined;
  const merged = mergeOnTop(known, next, text, req.limits);
  return sameText(merged.text, next) ? undefined : merged;
}

/** The disk holds what the buffer was read from (or no file yet); false when unknown. */
function bufferIsDisk(b: BufferState, disk: DiskSnapshot | undefined): boolean {
  if (!disk) return false;
  if (!disk.exists) return true;
  const bytes = bufferBytes({ ...b, fixeol: false });
  return bytes !== undefined && hashOf(bytes) === disk.fingerprint.hash;
}

function finishDecision(
  req: WriteRequest,
  prepared: Prepared,
  reason: "review" | "conflict" | "merged" | undefined,
): WritePlan {
  if (req.refresh) return { action: "review", reason: "refresh", prepared };
  // Only a review of this very write against this very text approves it: an edit the user made
  // since (or unsaved edits the question never showed) is reviewed again, never overwritten.
  const approved = req.reviewedAgainst !== undefined && sameText(req.reviewedAgainst, prepared.base.text);
  if (reason && !approved) return { action: "review", reason, prepared };
  return {
    action: "commit",
    prepared,
    commit: commitFor(
      prepared,
      prepared.diff.hunks.map((_, i) => i),
    ),
  };
}

function encodingMessage(path: string, encoding: Encoding, bad: { line: number; char: string }): string {
  return `${path} is ${encoding}, and line ${bad.line} of the new text has ${bad.char}, which ${encoding} cannot hold; nothing was written (write only characters the file's encoding has, or ask the user to convert it)`;
}

/** The effect of accepting these hunks (indices into prepared.diff.hunks). */
export function commitFor(p: Prepared, accepted: readonly number[]): Commit {
  const { base, next, diff } = p;
  const result = compose(base.text, next, diff.hunks, accepted);
  if (base.kind === "buffer") {
    let edits = editsFor(next, diff.hunks, accepted);
    // Vim's empty buffer shows one empty line: replace it rather than add to it.
    if (base.empty) edits = [{ start: 0, end: 1, lines: result.lines }];
    const eol = result.eol !== base.text.eol && result.lines.length > 0 ? result.eol : undefined;
    return {
      to: "buffer",
      path: p.path,
      tick: base.tick,
      edits,
      eol,
      save: p.save,
      expectedDisk: p.disk,
      result,
      base,
    };
  }
  const f = p.file!;
  const bytes = encodeText({ ...result, ...f });
  return {
    to: "disk",
    path: p.path,
    expected: base.fingerprint,
    bytes,
    result,
    create: !base.fingerprint.exists,
    base,
  };
}

/** The indices of the hunks a review's answer accepted (anything else is dropped). */
export function acceptedHunks(hunks: readonly Hunk[], answer: ReviewAnswer | undefined): number[] {
  // From Lua: each entry is checked (anything else is dropped).
  const list: unknown = answer?.accepted;
  if (!Array.isArray(list)) return [];
  return [...new Set(list.filter((i): i is number => Number.isInteger(i) && i >= 0 && i < hunks.length))].sort(
    (a, b) => a - b,
  );
}

/** Above this many lines (both sides), the review shows the files side by side without diff mode. */
export const WHOLE_FILE_LINES = 50_000;
/** Bytes of both sides together past which the same holds: one huge line is as heavy as many. */
export const WHOLE_FILE_BYTES = 4 * 1024 * 1024;
/**
 * Bytes of one line past which the same holds: Neovim's diff mode redraws a window with a long
 * line in time that grows faster than its length (17 ms at 64 KiB, 100 ms at 1 MiB a line).
 */
export const WHOLE_FILE_LINE_BYTES = 64 * 1024;

/** Whether two sides are too large for Neovim's diff mode (the review shows the whole new file instead). */
export function tooLargeToCompare(a: Text, b: Text): boolean {
  if (a.lines.length + b.lines.length > WHOLE_FILE_LINES) return true;
  let bytes = 0;
  for (const side of [a.lines, b.lines]) {
    for (const l of side) {
      const n = Buffer.byteLength(l);
      bytes += n + 1;
      if (bytes > WHOLE_FILE_BYTES || n > WHOLE_FILE_LINE_BYTES) return true;
    }
  }
  return false;
}

/**
 * Characters of a line shown in a review: a longer line (a minified file) is cut there, with a
 * note, so that neither the question's event nor the review's buffers carry megabytes of one
 * line. Only the view is cut: the text written is composed in Node from the whole texts.
 */
export const SHOWN_LINE_CHARS = 256 * 1024;

/** Lines joined with "\n" as a review shows them (see SHOWN_LINE_CHARS), and how many were cut. */
export function shownLines(lines: readonly string[]): { text: string; cut: number } {
  let cut = 0;
  const shown = lines.map((l) => {
    if (l.length <= SHOWN_LINE_CHARS) return l;
    cut++;
    // Never between the two halves of a surrogate pair.
    const at = /[\uD800-\uDBFF]/.test(l[SHOWN_LINE_CHARS - 1]!) ? SHOWN_LINE_CHARS - 1 : SHOWN_LINE_CHARS;
    return `${l.slice(0, at)} … [line cut for the review: ${Buffer.byteLength(l).toLocaleString("en")} bytes in all]`;
  });
  return { text: shown.join("\n"), cut };
}

export function reviewQuestion(p: Prepared, reason: ReviewQuestion["reason"]): ReviewQuestion {
  const { base, next, diff } = p;
  const eolChange =
    base.text.eol === next.eol || base.text.lines.length === 0 || next.lines.length === 0
      ? undefined
      : next.eol
        ? "added"
        : "removed";
  const current = shownLines(base.text.lines);
  const proposed = shownLines(next.lines);
  return {
    path: p.path,
    reason,
    current: current.text,
    currentLines: base.text.lines.length,
    proposed: proposed.text,
    proposedLines: next.lines.length,
    cut: current.cut + proposed.cut,
    hunks: diff.hunks,
    added: diff.added,
    removed: diff.removed,
    whole: !diff.exact || tooLargeToCompare(base.text, next),
    eolChange,
  };
}

export type SyncPlan =
  | { action: "none" }
  | { action: "reload" }
  | { action: "review"; prepared: Prepared; reason: "merged" | "conflict" | "disk" };

/**
 * After the agent touched a file (a tool call ended): a buffer that fell behind the disk is
 * reloaded when it has no edits of the user's; with edits, the user compares and chooses
 * (a review of the buffer against the disk, or against the agent's change put on top of the
 * buffer when `was`, the file before the agent wrote it, is known). Like :checktime, decided here.
 */
export function decideSync(
  path: string,
  b: BufferState,
  disk: DiskSnapshot,
  limits?: DiffLimits,
  was?: Text,
): SyncPlan {
  if (!disk.exists || !disk.file) return { action: "none" };
  const raw = bufferBytes({ ...b, fixeol: false });
  const same = raw ? hashOf(raw) === disk.fingerprint.hash : sameText(bufferText(b), disk.file);
  if (same) return { action: "none" };
  if (!b.modified) return { action: "reload" };
  // The buffer holds the user's edits: it differs from the disk because of them unless Vim saw
  // the file change behind it (the agent wrote it). Only then is there something to compare.
  if (b.diskChanged === false) return { action: "none" };
  const text = bufferText(b);
  let next: Text = { lines: disk.file.lines, eol: disk.file.eol };
  // The file is back to what it was before the agent wrote it (every hunk rejected and taken
  // out again): nothing of the agent's to bring in, and comparing would only offer the user's
  // own lines back.
  if (was && sameText(was, next)) return { action: "none" };
  // Known what the file held before the agent wrote it: its change (was -> disk) goes on top of
  // the user's edits, so the review offers only the agent's hunks (unless they touch the same lines).
  const merged = was && !sameText(was, text) && !sameText(was, next) ? mergeOnTop(was, next, text, limits) : undefined;
  if (merged) next = merged.text;
  if (sameText(text, next)) return { action: "none" };
  const base: Base = { kind: "buffer", tick: b.tick, empty: b.empty, text };
  return {
    action: "review",
    prepared: { path, base, next, diff: diffTexts(text, next, limits), save: false },
    reason: !merged ? "disk" : merged.conflicts === 0 ? "merged" : "conflict",
  };
}
