/**
 * Every change a rewind or take-back makes on disk, in one place, so that none of them can
 * write outside the session's folder or into someone else's file:
 *
 * - The folder an entry is in is opened first, and the folder that was opened is what is
 *   checked against the boundary and written in (on Linux through /proc/self/fd/N, which does
 *   not resolve the path again: a folder swapped for a link after the check is not followed).
 *   Elsewhere the folder is resolved, checked, and used by its resolved path, with nothing
 *   awaited between the check and the write.
 * - A file is never written in place: a new file is written beside it and renamed over it, so
 *   a hard link to a file outside (`rm f && ln ~/x f`) loses its name here and keeps its text.
 *   The new file keeps the mode of the project's file it replaces (one with a single link).
 */
import {
  fchmodSync,
  fstatSync,
  lstatSync,
  readdirSync,
  renameSync,
  rmdirSync,
  symlinkSync,
  unlinkSync,
  type Stats,
} from "node:fs";
import { type BoundaryCheck, inFolder, makeFolders, tempName, writeNewFile } from "../workspace/pinned-folder.js";

export type { BoundaryCheck };
export { makeFolders };

function lstatOr(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/** What is at `abs` now (not following a link there), after its folder is checked. */
export function entryAt(abs: string, check: BoundaryCheck): Stats | undefined {
  return inFolder(abs, check, (f, name) => lstatOr(f.at(name)));
}

/**
 * Put `bytes` at `abs` as a new file renamed over whatever is there (a file, a link, a fifo).
 * `exec`: the file's executable bits as git keeps them, or "keep" (a merge: as the file has them).
 */
export function replaceFile(abs: string, bytes: Uint8Array, exec: boolean | "keep", check: BoundaryCheck): void {
  inFolder(abs, check, (f, name) => {
    const old = lstatOr(f.at(name));
    if (old?.isDirectory()) throw new Error("a folder is there now");
    // The mode of the project's own file; a file with other links may be anyone's (not copied).
    const own = old?.isFile() && old.nlink === 1 ? old.mode & 0o777 : undefined;
    const tmp = tempName();
    writeNewFile(f, tmp, bytes, own ?? 0o666, (fd) => {
      // A file made anew gets the umask's bits (as open left them); git keeps only "executable
      // or not", so the other bits stay as they are (a private 0600 file stays private).
      const perm = own ?? fstatSync(fd).mode & 0o777;
      const mode = exec === "keep" ? perm : exec ? perm | ((perm & 0o444) >> 2) : perm & ~0o111;
      fchmodSync(fd, mode);
    });
    try {
      renameSync(f.at(tmp), f.at(name));
    } catch (e) {
      unlinkSync(f.at(tmp));
      throw e;
    }
  });
}

/** Put a symbolic link to `target` at `abs`, renamed over whatever is there. */
export function replaceWithLink(abs: string, target: string, check: BoundaryCheck): void {
  inFolder(abs, check, (f, name) => {
    if (lstatOr(f.at(name))?.isDirectory()) throw new Error("a folder is there now");
    const tmp = tempName();
    symlinkSync(target, f.at(tmp));
    try {
      renameSync(f.at(tmp), f.at(name));
    } catch (e) {
      unlinkSync(f.at(tmp));
      throw e;
    }
  });
}

/** Remove the file or link at `abs` (never a folder, never what a link points to). */
export function removeEntry(abs: string, check: BoundaryCheck): void {
  inFolder(abs, check, (f, name) => {
    const st = lstatOr(f.at(name));
    if (!st || st.isDirectory()) return;
    unlinkSync(f.at(name));
  });
}

/** Remove the empty folder at `abs`; false when it holds anything. */
export function removeEmptyFolder(abs: string, check: BoundaryCheck): boolean {
  return inFolder(abs, check, (f, name) => {
    if (readdirSync(f.at(name)).length > 0) return false;
    rmdirSync(f.at(name));
    return true;
  });
}
