/**
 * Carrying out a RestoreAction (restore-plan.ts) on one file: the disk for files without a
 * buffer, the buffer (one undo step, saved when it had no unsaved edits) for loaded ones.
 * Every path is checked against the session's boundary through links first.
 */
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { encodeText, type Text } from "../workspace/text-codec.js";
import type { Overlap, RestoreAction } from "./restore-plan.js";
import { entryAt, makeFolders, removeEmptyFolder, removeEntry, replaceFile, replaceWithLink } from "./restore-fs.js";

/** The editor's buffers, as far as taking changes back needs them. */
export interface LiveFiles {
  /** The loaded buffer of `path`: whether it holds unsaved edits, its text, its change tick. */
  buffer(path: string): Promise<{ modified: boolean; text: Text; tick: number } | undefined>;
  /** Put `text` into the loaded buffer as one undo step if it is still at `tick` (`save`: then :write it). */
  setBuffer(
    path: string,
    tick: number,
    from: Text,
    text: Text,
    save: boolean,
  ): Promise<"done" | "changed" | "not_saved">;
  /** The file changed on disk: a loaded buffer without edits reloads it. */
  reload(path: string): Promise<void>;
}

/** What happened to the file, for the transcript and the agent. */
export type Applied =
  | { done: true; how: "restored" | "removed" | "merged" | "merged into the buffer (unsaved)" }
  | { done: false; why: string; overlap?: Overlap };

/**
 * Never throws: a rewind or take-back goes file by file, and one file it may not touch (its
 * folder became a link out of the session's folder, say) or cannot write must leave that file
 * with a reason, not stop the others half-way with nothing recorded or told to the agent.
 */
export async function applyRestore(
  abs: string,
  action: RestoreAction,
  live: LiveFiles,
  check: (abs: string) => void,
  /** Told of a change made in a buffer only (unsaved edits there): the step keeps it for its undo. */
  inBuffer?: (before: Text, after: Text) => void,
): Promise<Applied> {
  try {
    return await applyOne(abs, action, live, check, inBuffer);
  } catch (e) {
    return { done: false, why: (e as Error).message };
  }
}

async function applyOne(
  abs: string,
  action: RestoreAction,
  live: LiveFiles,
  check: (abs: string) => void,
  inBuffer?: (before: Text, after: Text) => void,
): Promise<Applied> {
  if (action.action === "none") return { done: true, how: "restored" };
  if (action.action === "conflict") return { done: false, why: action.why, overlap: action.overlap };
  // A first look, for a clear reason before the editor is asked; what counts is the check each
  // write below makes on the folder it writes in (restore-fs.ts), after every await.
  check(deepestExisting(dirname(abs)));
  const buf = await live.buffer(abs);
  if (action.action === "merge") {
    if (buf?.modified) {
      // Into the buffer only (one undo step, unsaved): the user's edits there are not written for them.
      const r = await live.setBuffer(abs, buf.tick, buf.text, action.text, false);
      if (r === "changed") return { done: false, why: "its buffer changed meanwhile" };
      inBuffer?.(buf.text, action.text);
      return { done: true, how: "merged into the buffer (unsaved)" };
    }
    const like = action.like ?? { encoding: "utf-8" as const, format: "unix" as const, bom: false };
    const bytes = encodeText({ ...action.text, encoding: like.encoding, format: like.format, bom: like.bom });
    replaceFile(abs, bytes, "keep", check);
    // A buffer without edits follows the disk (as after any change on disk).
    if (buf) await live.reload(abs);
    return { done: true, how: "merged" };
  }
  if (buf?.modified) return { done: false, why: "its buffer has unsaved edits" };
  const v = action.version;
  if (!v) {
    removeEntry(abs, check);
    return { done: true, how: "removed" };
  }
  if (v.kind === "large")
    return { done: false, why: "it is over the size limit for checkpoints, so its old content was not kept" };
  if (v.kind === "other") return { done: false, why: "it is not a file or a link" };
  makeFolders(abs, check);
  // An empty folder (the agent's, emptied by this rewind's removals) makes way for the file;
  // one with anything in it is left alone.
  if (entryAt(abs, check)?.isDirectory() && !removeEmptyFolder(abs, check))
    return { done: false, why: "a folder is there now" };
  // A link, fifo or socket there now is replaced, never written through (writing into a fifo
  // with no reader would block the host for ever); so is a file with other hard links.
  if (v.kind === "link") replaceWithLink(abs, v.target, check);
  else replaceFile(abs, v.bytes, v.mode === "100755", check);
  if (buf) await live.reload(abs);
  return { done: true, how: "restored" };
}

function deepestExisting(dir: string): string {
  let d = dir;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}
