/**
 * What a take-back or rewind came to, in words and records: the note to the agent, one
 * outcome a file, a step's record of what it changed in buffers only, and the disk as it is
 * now, read as a snapshot stores it.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { readSmallFile } from "../workspace/small-file.js";
import type { Text } from "../workspace/text-codec.js";
import type { Applied } from "./apply.js";
import type { FileAt } from "./types.js";

/** One buffer's text before and after a step changed it (relative path). */
export interface BufferChange {
  path: string;
  before: Text;
  after: Text;
}

/** What one file of a take-back or rewind came to. */
export interface FileOutcome {
  path: string;
  applied: Applied;
}

/** A step's record of what it changed in a file's buffer only. */
export function kept(step: { buffers?: BufferChange[] }, path: string): (before: Text, after: Text) => void {
  return (before, after) => {
    step.buffers ??= [];
    step.buffers.push({ path, before, after });
  };
}

/** One outcome a file: a buffer put back and then its disk count as one (the failure, if any). */
export function oneEach(out: FileOutcome[]): void {
  const by = new Map<string, FileOutcome>();
  for (const o of out) {
    const had = by.get(o.path);
    if (!had || had.applied.done) by.set(o.path, o);
  }
  out.splice(0, out.length, ...by.values());
}

/** Files named in a note to the agent: the first ones by name, the rest counted (the note goes with a prompt, and in the transcript). */
const NOTE_FILES = 30;

export function fewOf(paths: readonly string[]): string {
  if (paths.length <= NOTE_FILES) return paths.join(", ");
  return `${paths.slice(0, NOTE_FILES).join(", ")} and ${paths.length - NOTE_FILES} more (the user's :AcpChatChanges lists them)`;
}

/**
 * Said of a file whose take-back went into a buffer with the user's unsaved edits: an agent
 * that reads the disk itself still finds its own version there until the user saves.
 */
export function waiting(a: Applied): string {
  return a.done && a.how === "merged into the buffer (unsaved)"
    ? " (only in the user's unsaved buffer so far: the file on disk still has your version until they save)"
    : "";
}

export async function readNow(abs: string, maxFileBytes: number): Promise<FileAt | undefined> {
  try {
    const st = lstatSync(abs);
    // Over the limit, as a snapshot records it: by size and time, never read whole (a rewind
    // removes one the agent created when it is still as the agent left it).
    if (st.isFile() && st.size > maxFileBytes) return { kind: "large" as const, size: st.size, mtimeMs: st.mtimeMs };
    if (st.isSymbolicLink()) return { kind: "link" as const, target: readlinkSync(abs, "utf8") };
    // A folder (or a fifo...) is not a file here, as a snapshot has no entry at its path: a file
    // that became a folder reads as deleted, and comes back once the folder's files are gone.
    if (!st.isFile()) return undefined;
    // Never a plain read: a FIFO put there since the lstat would block the host.
    const bytes = readSmallFile(abs, maxFileBytes, { follow: false });
    if (!bytes) return undefined;
    return {
      kind: "file" as const,
      mode: st.mode & 0o111 ? ("100755" as const) : ("100644" as const),
      bytes,
    };
  } catch {
    return undefined;
  }
}
