/**
 * Carrying out a RestoreAction (restore-plan.ts) on one file: the disk for files without a
 * buffer, the buffer (one undo step, saved when it had no unsaved edits) for loaded ones.
 * Every path is checked against the session's boundary through links first.
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname } from "node:path";
import { encodeText, type Text } from "../workspace/text-codec.js";
import type { Overlap, RestoreAction } from "./restore-plan.js";

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
): Promise<Applied> {
  try {
    return await applyOne(abs, action, live, check);
  } catch (e) {
    return { done: false, why: (e as Error).message };
  }
}

async function applyOne(
  abs: string,
  action: RestoreAction,
  live: LiveFiles,
  check: (abs: string) => void,
): Promise<Applied> {
  if (action.action === "none") return { done: true, how: "restored" };
  if (action.action === "conflict") return { done: false, why: action.why, overlap: action.overlap };
  // The folder it is in must be inside the boundary (resolved through links); the entry itself
  // is never followed: a link there is replaced or removed, not written through.
  check(deepestExisting(dirname(abs)));
  const buf = await live.buffer(abs);
  if (action.action === "merge") {
    if (buf) {
      const r = await live.setBuffer(abs, buf.tick, buf.text, action.text, !buf.modified);
      if (r === "changed") return { done: false, why: "its buffer changed meanwhile" };
      return { done: true, how: buf.modified || r === "not_saved" ? "merged into the buffer (unsaved)" : "merged" };
    }
    const like = action.like ?? { encoding: "utf-8" as const, format: "unix" as const, bom: false };
    const bytes = encodeText({ ...action.text, encoding: like.encoding, format: like.format, bom: like.bom });
    writeKeepingMode(abs, bytes);
    return { done: true, how: "merged" };
  }
  if (buf?.modified) return { done: false, why: "its buffer has unsaved edits" };
  const v = action.version;
  if (!v) {
    removeEntry(abs);
    return { done: true, how: "removed" };
  }
  if (v.kind === "large")
    return { done: false, why: "it is over the size limit for checkpoints, so its old content was not kept" };
  if (v.kind === "other") return { done: false, why: "it is not a file or a link" };
  // Folders are made only under one that is inside the boundary (a link on the way is followed
  // by mkdir, so the deepest existing folder is checked first).
  check(deepestExisting(dirname(abs)));
  mkdirSync(dirname(abs), { recursive: true });
  check(dirname(abs));
  let st = lstatOrUndefined(abs);
  if (st?.isDirectory()) {
    // An empty folder (the agent's, emptied by this rewind's removals) makes way for the file;
    // one with anything in it is left alone.
    if (readdirSync(abs).length > 0) return { done: false, why: "a folder is there now" };
    rmdirSync(abs);
    st = undefined;
  }
  if (v.kind === "link") {
    if (st) unlinkSync(abs);
    symlinkSync(v.target, abs);
  } else {
    // A link there now is replaced, never written through; so is a fifo or socket (writing
    // into a fifo with no reader would block the host for ever).
    if (st && !st.isFile()) unlinkSync(abs);
    writeFileSync(abs, v.bytes);
    // Git keeps only "executable or not": the other bits stay as the file has them (a private
    // 0600 file is not made world-readable), and a file made anew gets the umask's.
    const perm = lstatSync(abs).mode & 0o777;
    const mode = v.mode === "100755" ? perm | ((perm & 0o444) >> 2) : perm & ~0o111;
    if (mode !== perm) chmodSync(abs, mode);
  }
  if (buf) await live.reload(abs);
  return { done: true, how: "restored" };
}

function deepestExisting(dir: string): string {
  let d = dir;
  while (!existsSync(d) && dirname(d) !== d) d = dirname(d);
  return d;
}

function lstatOrUndefined(p: string) {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

function removeEntry(abs: string): void {
  const st = lstatOrUndefined(abs);
  if (!st) return;
  if (st.isDirectory()) return; // only files and links are ever removed
  rmSync(abs, { force: true });
}

function writeKeepingMode(abs: string, bytes: Buffer): void {
  const st = lstatOrUndefined(abs);
  // Only a regular file is written in place (a link is never written through, a fifo would block).
  if (st && !st.isFile()) unlinkSync(abs);
  writeFileSync(abs, bytes);
  if (st?.isFile()) chmodSync(abs, st.mode & 0o7777);
}
