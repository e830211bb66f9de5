/**
 * What taking a change back does to one file, decided on plain data (no disk, no editor):
 * the file's versions at the checkpoints involved, and what it is now (the buffer, with the
 * user's unsaved edits, when it is loaded). Three outcomes:
 *
 * - restore: nothing touched the file since the agent's change, so the old version comes back
 *   whole, byte for byte (contents, mode, a link as a link, absence as absence);
 * - merge: the file changed since (the user edited it, or a later turn did); the agent's change
 *   is taken out of today's text as a three-way merge, so only the agent's lines change;
 * - conflict: it cannot be taken out without touching lines someone else changed (or the file
 *   is binary, or was created or removed and then edited): nothing is written, the user is told.
 */
import type { FileAt } from "./store.js";
import { compose, diffTexts, type Hunk } from "../workspace/hunks.js";
import { decodeBytes, sameText, type Text, type TextFile } from "../workspace/text-codec.js";
import { rebase } from "../workspace/three-way.js";

/** A file at a checkpoint, or undefined for "did not exist". */
export type Version = FileAt | undefined;

/** What the file is now: on disk, and the loaded buffer's text when it has unsaved edits. */
export interface Now {
  disk: Version;
  /** A loaded buffer with unsaved edits: its text is what the user has. */
  unsaved?: Text;
}

export type RestoreAction =
  | { action: "none" }
  | { action: "restore"; version: Version }
  | { action: "merge"; text: Text; like: TextFile | undefined }
  | { action: "conflict"; why: string; overlap?: Overlap };

/** Both sides of a conflict in the same lines, for a merge with markers the user resolves. */
export interface Overlap {
  /** The file as it is (the user's edits in it). */
  ours: Text;
  /** The agent's version, both sides' base. */
  base: Text;
  /** What taking the agent's change out would make of the agent's version. */
  theirs: Text;
}

/** One turn's change to the file: its version before and after. */
export interface Step {
  start: Version;
  end: Version;
}

export function sameVersion(a: Version, b: Version): boolean {
  if (!a || !b) return a === b;
  if (a.kind !== b.kind) return false;
  if (a.kind === "file" && b.kind === "file") return a.mode === b.mode && a.bytes.equals(b.bytes);
  if (a.kind === "link" && b.kind === "link") return a.target === b.target;
  if (a.kind === "large" && b.kind === "large")
    return a.size === b.size && (a.mtimeMs === undefined || b.mtimeMs === undefined || a.mtimeMs === b.mtimeMs);
  return false;
}

/** A version's text, when it is a text file (an absent file reads as no text). */
export function textOf(v: Version): (TextFile & { ok: true }) | undefined {
  if (v?.kind !== "file") return undefined;
  const d = decodeBytes(v.bytes);
  return d.ok ? { ...d.file, ok: true } : undefined;
}

/**
 * Take back `steps` (oldest first; each a turn's change to this file) from the file as it is
 * `now`: with nothing else in between, the first step's start comes back whole.
 */
export function planRewind(steps: readonly Step[], now: Now): RestoreAction {
  if (steps.length === 0) return { action: "none" };
  const target = steps[0]!.start;
  const last = steps[steps.length - 1]!.end;
  // Already as it was (the user removed what the agent created, or put it back by hand, a
  // binary file included): nothing to do, and nothing to call a conflict.
  if (!now.unsaved && sameVersion(now.disk, target)) return { action: "none" };
  const untouched =
    !now.unsaved &&
    sameVersion(now.disk, last) &&
    steps.every((s, i) => i === 0 || sameVersion(steps[i - 1]!.end, s.start));
  if (untouched) return sameVersion(now.disk, target) ? { action: "none" } : { action: "restore", version: target };
  // Changed since: undo each step, newest first, on today's text.
  const current = now.unsaved ?? textOf(now.disk);
  if (!current)
    return {
      action: "conflict",
      why: now.disk
        ? "it is not a text file and changed after the agent's change"
        : "it was removed after the agent's change",
    };
  let text: Text = current;
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i]!;
    const before = s.start ? textOf(s.start) : { lines: [], eol: false };
    const after = s.end ? textOf(s.end) : { lines: [], eol: false };
    if (!before || !after)
      return { action: "conflict", why: "the agent's version is not a text file, and the file changed after it" };
    if (!s.start || !s.end)
      return {
        action: "conflict",
        why: s.start
          ? "the agent removed it, and it was made again after"
          : "the agent created it, and it was edited after",
      };
    // Already as before the step (the user undid it by hand): nothing of it to take out. rebase
    // would call the same change made on both sides a conflict.
    const next = sameText(text, after) || sameText(text, before) ? before : rebase(after, before, text);
    if (!next)
      return {
        action: "conflict",
        why: "it was edited after the agent's change, in the same lines",
        overlap: { ours: text, base: after, theirs: before },
      };
    text = next;
  }
  if (sameText(text, current)) return { action: "none" };
  return { action: "merge", text, like: textOf(now.disk) ?? textOf(target) };
}

/**
 * Take back some hunks of one turn's change (`hunks` of diffTexts(start, end); `back`: the
 * indices to take back) from the file as it is now.
 */
export function planTakeback(step: Step, hunks: readonly Hunk[], back: readonly number[], now: Now): RestoreAction {
  const before = textOf(step.start);
  const after = textOf(step.end);
  if (back.length === 0) return { action: "none" };
  if (back.length === hunks.length) return planRewind([step], now);
  if (!before || !after) return { action: "conflict", why: "only a text file can be taken back hunk by hunk" };
  const keep = hunks.map((_, i) => i).filter((i) => !back.includes(i));
  const result = compose(before, after, hunks, keep);
  const current = now.unsaved ?? textOf(now.disk);
  if (!current) return { action: "conflict", why: "it is no longer a text file" };
  const merged = sameText(current, after) || sameText(current, result) ? result : rebase(after, result, current);
  if (!merged)
    return {
      action: "conflict",
      why: "it was edited after the agent's change, in the same lines",
      overlap: { ours: current, base: after, theirs: result },
    };
  if (sameText(merged, current)) return { action: "none" };
  return { action: "merge", text: merged, like: textOf(now.disk) ?? after };
}

/** The hunks of one turn's change to a text file (empty for anything else). */
export function stepHunks(step: Step): { before: Text; after: Text; hunks: Hunk[] } | undefined {
  const before = step.start ? textOf(step.start) : { lines: [], eol: false };
  const after = step.end ? textOf(step.end) : { lines: [], eol: false };
  if (!before || !after) return undefined;
  return { before, after, hunks: diffTexts(before, after, { maxEdits: 20_000, timeoutMs: 500 }).hunks };
}
