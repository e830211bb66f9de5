/**
 * A folder opened once and written in through its descriptor, so a check and the write that
 * follows it are about the same folder: on Linux the opened folder is named /proc/self/fd/N,
 * which does not resolve the path again (a folder swapped for a link after the open is not
 * followed). Elsewhere the folder is resolved, checked, and used by its resolved path; callers
 * do everything between the check and the write synchronously (nothing awaited in between).
 * Used by the agent's writes (disk.ts) and by rewinds (checkpoints/restore-fs.ts).
 */
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  unlinkSync,
  writeSync,
  type Stats,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";

/** Throws unless the (resolved) path is allowed. */
export type BoundaryCheck = (abs: string) => void;

const PROC_FD = process.platform === "linux" && existsSync("/proc/self/fd");

/** An opened folder, checked: `at(name)` names an entry in it without resolving its path again. */
export interface OpenFolder {
  at(name: string): string;
  close(): void;
}

export function openFolder(dir: string, check: BoundaryCheck): OpenFolder {
  if (PROC_FD) {
    const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      // The folder this descriptor is, wherever links led the open.
      check(readlinkSync(`/proc/self/fd/${fd}`));
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return { at: (name) => `/proc/self/fd/${fd}/${name}`, close: () => closeSync(fd) };
  }
  const real = realpathSync(dir);
  check(real);
  return { at: (name) => join(real, name), close: () => undefined };
}

/** Run `run` in the opened, checked folder of `abs` with the entry's name; the folder is closed after. */
export function inFolder<T>(abs: string, check: BoundaryCheck, run: (f: OpenFolder, name: string) => T): T {
  const f = openFolder(dirname(abs), check);
  try {
    return run(f, basename(abs));
  } finally {
    f.close();
  }
}

/** A name for a new entry in a folder (short: a long name plus a suffix may not fit). */
export function tempName(): string {
  return `.acpchat-${process.pid}-${randomBytes(6).toString("hex")}.tmp`;
}

/**
 * A new file `tmp` in `f` holding `bytes`, made with O_EXCL|O_NOFOLLOW (never an existing file
 * or a link's target); `sync`: flushed to disk before it is closed; `prepare` runs on its descriptor before it is closed (chmod, chown).
 * Removed again when anything fails.
 */
export function writeNewFile(
  f: OpenFolder,
  tmp: string,
  bytes: Uint8Array,
  mode: number,
  prepare?: (fd: number) => void,
  sync = false,
): void {
  const fd = openSync(
    f.at(tmp),
    constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
    mode,
  );
  try {
    // Every byte, or an error: a short count (a full disk) must never pass for success.
    for (let off = 0; off < bytes.length; ) {
      const n = writeSync(fd, bytes, off, bytes.length - off);
      if (n <= 0) throw new Error(`wrote ${off} of ${bytes.length} bytes`);
      off += n;
    }
    prepare?.(fd);
    // The agent's writes are flushed as Vim's are; a rewind of many files is not held up by it.
    if (sync) fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    unlinkQuiet(f.at(tmp));
    throw e;
  }
  closeSync(fd);
}

export function unlinkQuiet(p: string): void {
  try {
    unlinkSync(p);
  } catch {
    // already gone
  }
}

function lstatOr(p: string): Stats | undefined {
  try {
    return lstatSync(p);
  } catch {
    return undefined;
  }
}

/**
 * The folders of `abs` made where missing, each inside a folder checked first (mkdir follows
 * links on the way, so each existing folder is opened and checked before one is made in it).
 */
export function makeFolders(abs: string, check: BoundaryCheck): void {
  const missing: string[] = [];
  let d = dirname(abs);
  while (!lstatOr(d) && dirname(d) !== d) {
    missing.unshift(basename(d));
    d = dirname(d);
  }
  for (const name of missing) {
    inFolder(join(d, name), check, (f, n) => {
      try {
        mkdirSync(f.at(n));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
    });
    d = join(d, name);
  }
}
