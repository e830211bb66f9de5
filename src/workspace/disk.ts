/**
 * The disk side of reads and writes, for files no buffer holds: what a file is now (a
 * snapshot: its bytes decoded like Vim would, with a fingerprint to compare later), and a write
 * that lands only if the file is still what the decision was made against.
 *
 * Writes are atomic (a new file written in the file's folder and renamed over the old one, or
 * linked in place of a missing one) and keep the file's mode (and owner, when allowed). The last
 * step is one synchronous block in the folder opened by descriptor (workspace/pinned-folder.ts):
 * the opened folder is checked, the file's fingerprint compared again, and the file put in
 * place, with nothing awaited in between, so a folder swapped for a link is never written in.
 * A file is never written in place: a hard link to a file outside gets a file of its own here
 * and the outside file keeps its text (its mode is not copied: it may be anyone's). The path
 * comes resolved through its symlinks from the session's boundary, so a symlink keeps pointing
 * at the written file.
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fchownSync,
  fstatSync,
  linkSync,
  lstatSync,
  openSync,
  renameSync,
  type Stats,
} from "node:fs";
import { access, open, realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import { inFolder, makeFolders, tempName, unlinkQuiet, writeNewFile } from "./pinned-folder.js";
import { readUpTo } from "./small-file.js";
import { decodeBytes, type TextFile } from "./text-codec.js";

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

/** What the content of a file was: compared again right before a write. */
export interface Fingerprint {
  exists: boolean;
  /** sha1 of the bytes (exists only). */
  hash?: string;
}

export type DiskSnapshot =
  | { exists: false; fingerprint: Fingerprint }
  | {
      exists: true;
      fingerprint: Fingerprint;
      size: number;
      mode: number;
      nlink: number;
      /** Neither the user nor anyone may write it (mode without write bits, or access denied). */
      readonly: boolean;
      /** The decoded text, or why the file is not one this client reads or overwrites. */
      file?: TextFile;
      refused?: { why: "binary" | "too-large" | "not-file"; message: string };
    };

export function hashBytes(b: Uint8Array): string {
  return createHash("sha1").update(b).digest("hex");
}

/**
 * `path` was resolved through its symlinks when the boundary checked it. If a component has
 * been swapped for a symlink since, it no longer resolves to itself: refuse rather than follow.
 */
export async function assertUnmoved(path: string, ino?: number): Promise<void> {
  const real = await realpath(path).catch(() => undefined);
  if (real !== path || (ino !== undefined && (await stat(path)).ino !== ino)) {
    throw new RpcError(
      ErrorCodes.InvalidParams,
      `Access denied: ${path} changed (a symlink was swapped in) after it was checked`,
    );
  }
}

/** Throws unless the folder that was opened is `dir` itself or a folder above it. */
function sameFolder(dir: string): (real: string) => void {
  return (real) => {
    if (real !== dir && !dir.startsWith(real.endsWith("/") ? real : `${real}/`))
      throw new RpcError(
        ErrorCodes.InvalidParams,
        `Access denied: ${dir} changed (a symlink was swapped in) after it was checked`,
      );
  };
}

/** The file as it is now. Missing files are `{ exists: false }`; other failures throw. */
export async function diskSnapshot(path: string, maxBytes = DEFAULT_MAX_READ_BYTES): Promise<DiskSnapshot> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { exists: false, fingerprint: { exists: false } };
    throw new RpcError(ErrorCodes.InternalError, `cannot read ${path}: ${(e as Error).message}`);
  }
  const base = {
    exists: true as const,
    size: st.size,
    mode: st.mode & 0o7777,
    nlink: st.nlink,
    readonly: await isReadonly(path, st.mode),
  };
  if (st.isDirectory())
    return {
      ...base,
      fingerprint: { exists: true },
      refused: { why: "not-file", message: `${path} is a directory, not a text file` },
    };
  if (!st.isFile())
    return {
      ...base,
      fingerprint: { exists: true },
      refused: { why: "not-file", message: `${path} is not a regular file` },
    };
  if (st.size > maxBytes) {
    return {
      ...base,
      fingerprint: { exists: true, hash: `size:${st.size}:${st.mtimeMs}` },
      refused: {
        why: "too-large",
        message: `${path} is ${st.size} bytes, over the ${maxBytes}-byte read limit (fs.max_read_bytes)`,
      },
    };
  }
  // O_NONBLOCK: a FIFO put in its place since the stat opens at once (and is refused below)
  // instead of holding a thread of the host's pool for ever.
  const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let bytes: Buffer;
  try {
    const opened = await fh.stat();
    if (!opened.isFile()) throw new RpcError(ErrorCodes.InternalError, `${path} is not a regular file`);
    await assertUnmoved(path, opened.ino);
    // At most maxBytes + 1: a file that grew since the stat is not read to its end.
    bytes = readUpTo(fh.fd, maxBytes);
  } finally {
    await fh.close();
  }
  if (bytes.length > maxBytes)
    return {
      ...base,
      fingerprint: { exists: true, hash: `size:${st.size}:${st.mtimeMs}` },
      refused: { why: "too-large", message: `${path} is over the ${maxBytes}-byte read limit (fs.max_read_bytes)` },
    };
  const fingerprint = { exists: true, hash: hashBytes(bytes) };
  const d = decodeBytes(bytes);
  if (!d.ok) return { ...base, fingerprint, refused: { why: "binary", message: `${path} ${d.message}` } };
  return { ...base, fingerprint, file: d.file };
}

async function isReadonly(path: string, mode: number): Promise<boolean> {
  if ((mode & 0o222) === 0) return true; // even root: Vim treats such a file as 'readonly' too
  try {
    await access(path, constants.W_OK);
    return false;
  } catch {
    return true;
  }
}

/** Whether the file's content is still the one of `expected`. */
export async function stillIs(
  path: string,
  expected: Fingerprint,
  maxBytes = DEFAULT_MAX_READ_BYTES,
): Promise<boolean> {
  const now = await diskSnapshot(path, maxBytes).catch(() => undefined);
  if (!now) return false;
  return now.fingerprint.exists === expected.exists && now.fingerprint.hash === expected.hash;
}

export type DiskWriteResult = { result: "written"; how: "created" | "replaced" } | { result: "changed" };

/**
 * Write `bytes` to `path` if the file is still `expected`: compared once ahead, and again in
 * the same synchronous block that puts the new file in place. Nothing is written when it changed.
 */
export async function writeIfUnchanged(
  path: string,
  bytes: Uint8Array,
  expected: Fingerprint,
  maxBytes = DEFAULT_MAX_READ_BYTES,
): Promise<DiskWriteResult> {
  const dir = dirname(path);
  try {
    if (!expected.exists) makeFolders(path, sameFolder(dir));
    if (!(await stillIs(path, expected, maxBytes))) return { result: "changed" };
    return putInPlace(path, bytes, expected, maxBytes);
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw new RpcError(ErrorCodes.InternalError, `could not write ${path}: ${(e as Error).message}`);
  }
}

/** The last step, synchronous from the folder's check to the link or rename. */
function putInPlace(path: string, bytes: Uint8Array, expected: Fingerprint, maxBytes: number): DiskWriteResult {
  return inFolder(path, sameFolder(dirname(path)), (f, name) => {
    const now = fingerprintAt(f.at(name), maxBytes);
    if (now.exists !== expected.exists || now.hash !== expected.hash) return { result: "changed" };
    // The mode and owner of the project's own file; one with other links may be anyone's.
    const own = now.st?.nlink === 1 ? now.st : undefined;
    const tmp = tempName();
    writeNewFile(
      f,
      tmp,
      bytes,
      own ? own.mode & 0o7777 : 0o666,
      (fd) => {
        if (!own) return;
        fchmodSync(fd, own.mode & 0o7777); // open() applied the umask
        if (process.getuid?.() === 0 && (own.uid !== 0 || own.gid !== 0)) {
          try {
            fchownSync(fd, own.uid, own.gid);
          } catch {
            // kept as root's
          }
        }
      },
      true,
    );
    try {
      if (!expected.exists) {
        // link() never replaces: a file created by anyone meanwhile is left alone.
        linkSync(f.at(tmp), f.at(name));
        return { result: "written", how: "created" };
      }
      renameSync(f.at(tmp), f.at(name));
      return { result: "written", how: "replaced" };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return { result: "changed" };
      throw e;
    } finally {
      unlinkQuiet(f.at(tmp));
    }
  });
}

/** The fingerprint of the entry at `p` (not following a link there), read with at most maxBytes + 1 bytes. */
function fingerprintAt(p: string, maxBytes: number): Fingerprint & { st?: Stats } {
  let st: Stats;
  try {
    st = lstatSync(p);
  } catch {
    return { exists: false };
  }
  // A link or anything but a file here now: not what the decision was made against.
  if (!st.isFile()) return { exists: true, hash: "not-a-file" };
  const fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const fst = fstatSync(fd);
    if (!fst.isFile()) return { exists: true, hash: "not-a-file" };
    const bytes = readUpTo(fd, maxBytes);
    if (bytes.length > maxBytes) return { exists: true, hash: `size:${fst.size}:${fst.mtimeMs}`, st: fst };
    return { exists: true, hash: hashBytes(bytes), st: fst };
  } finally {
    closeSync(fd);
  }
}
