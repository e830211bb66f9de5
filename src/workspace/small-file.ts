/**
 * Reading a small file whose path comes from the project (an ignore file, a `.git` file, a file
 * being compared): anyone who can write there can put a FIFO in its place, and a plain read of
 * a FIFO with no writer blocks the host for ever. So: stat first (a regular file of bounded
 * size, or nothing), open without blocking, and check again what was opened.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, statSync } from "node:fs";

/**
 * The bytes of `path` when it is a regular file of at most `maxBytes`; undefined otherwise (not
 * there, a folder, a FIFO or device, too large, unreadable). `follow: false` refuses a link too.
 */
export function readSmallFile(path: string, maxBytes: number, opts: { follow?: boolean } = {}): Buffer | undefined {
  const follow = opts.follow !== false;
  let fd: number;
  try {
    const st = follow ? statSync(path) : lstatSync(path);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    // O_NONBLOCK: a FIFO put there since the stat opens at once instead of waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (follow ? 0 : constants.O_NOFOLLOW));
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    // At most maxBytes, even when the file grows while it is read.
    const buf = Buffer.alloc(st.size);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** readSmallFile as UTF-8 text ("" when there is none). */
export function readSmallText(path: string, maxBytes: number): string {
  return readSmallFile(path, maxBytes)?.toString("utf8") ?? "";
}

/**
 * At most `limit + 1` bytes from `fd` (from its start): more than `limit` means "too large",
 * whatever a stat said before (a file may grow while it is read; /proc files say size 0).
 */
export function readUpTo(fd: number, limit: number): Buffer {
  const chunks: Buffer[] = [];
  let got = 0;
  while (got <= limit) {
    const buf = Buffer.alloc(Math.min(1 << 16, limit + 1 - got));
    const n = readSync(fd, buf, 0, buf.length, got);
    if (n === 0) break;
    chunks.push(buf.subarray(0, n));
    got += n;
  }
  return Buffer.concat(chunks, got);
}
