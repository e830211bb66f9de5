/**
 * The disk side of reads and writes, for files no buffer holds: what a file is now (a
 * snapshot: its bytes decoded like Vim would, with a fingerprint to compare later), and a write
 * that lands only if the file is still what the decision was made against.
 *
 * Writes keep the file's mode (and owner, when allowed), write in place when the file has
 * several hard links (like Vim's 'backupcopy' "auto": every name sees the new content), and are
 * atomic otherwise (a temporary file renamed over the old one). The path comes resolved through
 * its symlinks from the session's boundary, so a symlink keeps pointing at the written file.
 */
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import {
  access,
  chown,
  link,
  lstat,
  mkdir,
  open,
  realpath,
  rename,
  stat,
  unlink,
  type FileHandle,
} from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
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

/**
 * Create `dir` and its missing parents one at a time, each under a parent that is still where
 * the boundary check saw it (a parent swapped for a symlink meanwhile would lead outside).
 */
async function makeParents(dir: string): Promise<void> {
  const missing: string[] = [];
  let cur = dir;
  while (
    !(await access(cur).then(
      () => true,
      () => false,
    ))
  ) {
    const parent = dirname(cur);
    if (parent === cur) break;
    missing.unshift(cur);
    cur = parent;
  }
  await assertUnmoved(cur);
  for (const d of missing) {
    await mkdir(d).catch((e: NodeJS.ErrnoException) => {
      if (e.code !== "EEXIST") throw e;
    });
    await assertUnmoved(d);
  }
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
    bytes = await fh.readFile();
  } finally {
    await fh.close();
  }
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

export type DiskWriteResult = { result: "written"; how: "created" | "replaced" | "in place" } | { result: "changed" };

/**
 * Write `bytes` to `path` if the file is still `expected` (compared right before, and for a
 * replace once more right before the rename). Nothing is written when it changed.
 */
export async function writeIfUnchanged(
  path: string,
  bytes: Uint8Array,
  expected: Fingerprint,
  maxBytes = DEFAULT_MAX_READ_BYTES,
): Promise<DiskWriteResult> {
  const dir = dirname(path);
  if (!expected.exists) await makeParents(dir);
  await assertUnmoved(dir);
  if (!(await stillIs(path, expected, maxBytes))) return { result: "changed" };
  const fail = (e: unknown): never => {
    if (e instanceof RpcError) throw e;
    throw new RpcError(ErrorCodes.InternalError, `could not write ${path}: ${(e as Error).message}`);
  };
  if (!expected.exists) {
    // A new file: created only if nobody created it meanwhile (link() never replaces).
    const tmp = tempName(path);
    try {
      await writeSynced(tmp, bytes);
      await link(tmp, path);
      return { result: "written", how: "created" };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") return { result: "changed" };
      return fail(e);
    } finally {
      await unlink(tmp).catch(() => undefined);
    }
  }
  const st = await lstat(path);
  if (st.nlink > 1) {
    // Every name of the file must see the new content: write in place, as Vim does.
    try {
      const fh = await open(path, "r+");
      try {
        await writeAll(fh, bytes);
        await fh.truncate(bytes.length);
        await fh.sync();
      } finally {
        await fh.close();
      }
      return { result: "written", how: "in place" };
    } catch (e) {
      return fail(e);
    }
  }
  const tmp = tempName(path);
  try {
    await writeSynced(tmp, bytes, st.mode & 0o7777);
    if (process.getuid?.() === 0 && (st.uid !== 0 || st.gid !== 0))
      await chown(tmp, st.uid, st.gid).catch(() => undefined);
    // Checked again right before the rename: the window for a change or a swap is minimal.
    await assertUnmoved(dir);
    if (!(await stillIs(path, expected, maxBytes))) {
      await unlink(tmp).catch(() => undefined);
      return { result: "changed" };
    }
    await rename(tmp, path);
    return { result: "written", how: "replaced" };
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    return fail(e);
  }
}

function tempName(path: string): string {
  return join(dirname(path), `.${basename(path)}.acpchat-${randomBytes(4).toString("hex")}.tmp`);
}

/** Write a new file; with `mode` (the old file's), exactly that mode, else the umask's default. */
/**
 * Every byte, or an error: one write() may write only part (a full disk answers with a short
 * count first, and ENOSPC only on the next call), which must never pass for success.
 */
async function writeAll(fh: FileHandle, bytes: Uint8Array): Promise<void> {
  let done = 0;
  while (done < bytes.length) {
    const { bytesWritten } = await fh.write(bytes, done, bytes.length - done, done);
    if (bytesWritten <= 0) throw new Error(`wrote ${done} of ${bytes.length} bytes`);
    done += bytesWritten;
  }
}

async function writeSynced(file: string, bytes: Uint8Array, mode?: number): Promise<void> {
  const fh = await open(file, "wx", mode ?? 0o666);
  try {
    await writeAll(fh, bytes);
    // open() applies the umask: the old file's mode is set exactly.
    if (mode !== undefined) await fh.chmod(mode);
    await fh.sync();
  } finally {
    await fh.close();
  }
}
