/**
 * Disk side of fs/read_text_file and fs/write_text_file, for files no buffer holds.
 * Reads honour `line` (1-based) and `limit` (lines); writes are atomic (temp file + rename in
 * the same directory), so a write that fails half way leaves the old file intact.
 */
import { open, rename, stat, unlink, mkdir, writeFile } from "node:fs/promises";
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
    const buf = await fh.readFile();
    if (buf.subarray(0, 8192).includes(0)) throw new RpcError(ErrorCodes.InvalidParams, `${path} looks binary (it contains NUL bytes); only text files can be read`);
    return sliceLines(buf.toString("utf8"), line, limit);
  } finally {
    await fh.close();
  }
}

/** Write `content` to `path` atomically, creating parent directories. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.acpchat-${randomBytes(4).toString("hex")}.tmp`);
  let mode: number | undefined;
  try {
    mode = (await stat(path)).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  try {
    await writeFile(tmp, content, mode === undefined ? {} : { mode });
    await rename(tmp, path);
  } catch (e) {
    await unlink(tmp).catch(() => undefined);
    throw new RpcError(ErrorCodes.InternalError, `could not write ${path}: ${(e as Error).message}`);
  }
}
