/**
 * Disk side of fs/read_text_file and fs/write_text_file, for files no buffer holds.
 * Reads honour `line` (1-based) and `limit` (lines); writes are atomic (temp file + rename in
 * the same directory), so a write that fails half way leaves the old file intact.
 */
import { open, realpath, rename, stat, unlink, mkdir, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";
import { ErrorCodes, RpcError } from "../protocol/errors.js";

export const DEFAULT_MAX_READ_BYTES = 10 * 1024 * 1024;

/** Select lines `line..line+limit-1` (1-based) of `text`. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit ? start + limit : lines.length;
  return lines.slice(start, end).join("\n");
}

export async function readFileWindow(path: string, line?: number | null, limit?: number | null, maxBytes = DEFAULT_MAX_READ_BYTES): Promise<string> {
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") throw new RpcError(ErrorCodes.ResourceNotFound, `Resource not found: ${path}`);
    throw new RpcError(ErrorCodes.InternalError, `cannot read ${path}: ${(e as Error).message}`);
  }
  if (st.isDirectory()) throw new RpcError(ErrorCodes.InvalidParams, `${path} is a directory, not a text file`);
  if (!st.isFile()) throw new RpcError(ErrorCodes.InvalidParams, `${path} is not a regular file`);
  if (st.size > maxBytes) throw new RpcError(ErrorCodes.InvalidParams, `${path} is ${st.size} bytes, over the ${maxBytes}-byte read limit (fs.max_read_bytes)`);
  const fh = await open(path, "r");
  try {
    await assertUnmoved(path, (await fh.stat()).ino);
    const buf = await fh.readFile();
    if (buf.subarray(0, 8192).includes(0)) throw new RpcError(ErrorCodes.InvalidParams, `${path} looks binary (it contains NUL bytes); only text files can be read`);
    return sliceLines(buf.toString("utf8"), line, limit);
  } finally {
    await fh.close();
  }
}

/**
 * `path` was resolved through its symlinks when the boundary checked it. If a component has
 * been swapped for a symlink since, it no longer resolves to itself: refuse rather than follow.
 */
async function assertUnmoved(path: string, ino?: number): Promise<void> {
  const real = await realpath(path).catch(() => undefined);
  if (real !== path || (ino !== undefined && (await stat(path)).ino !== ino)) {
    throw new RpcError(ErrorCodes.InvalidParams, `Access denied: ${path} changed (a symlink was swapped in) after it was checked`);
  }
}

/** Write `content` to `path` atomically, creating parent directories. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await assertUnmoved(dirname(path));
  const tmp = join(dirname(path), `.${basename(path)}.acpchat-${randomBytes(4).toString("hex")}.tmp`);
  let mode: number | undefined;
  try {
    mode = (await stat(path)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  try {
    await writeFile(tmp, content, mode === undefined ? {} : { mode });
    // Checked again right before the rename: the window for a swap is as small as it gets.
    await assertUnmoved(dirname(path));
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    if (e instanceof RpcError) throw e;
    throw new RpcError(ErrorCodes.InternalError, `could not write ${path}: ${(e as Error).message}`);
  }
}
