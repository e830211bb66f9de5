/**
 * Disk side of fs/read_text_file, for files no buffer holds, and a plain atomic write.
 * Reads honour `line` (1-based) and `limit` (lines) and decode the bytes like Vim (see
 * text-codec.ts): the agent reads lines joined with "\n", whatever the file's encoding and line
 * breaks. Binary files and files over the limit are refused, never shown empty.
 */
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import { DEFAULT_MAX_READ_BYTES, diskSnapshot, writeIfUnchanged } from "./disk.js";
import { joinText, type Text } from "./text-codec.js";

export { DEFAULT_MAX_READ_BYTES };

/** A line as the agents' own read tools show it: its number right-aligned in 6 and a tab before it (`cat -n`). */
export function numberedLine(n: number, line: string): string {
  const s = String(n);
  return `${s.length < 6 ? "      ".slice(s.length) : ""}${s}\t${line}`;
}

/** Lines numbered from `from` (numberedLine), joined with "\n". */
export function numberLines(lines: readonly string[], from: number): string {
  let out = "";
  for (let i = 0; i < lines.length; i++) out += `${i === 0 ? "" : "\n"}${numberedLine(from + i, lines[i]!)}`;
  return out;
}

/** Select lines `line..line+limit-1` (1-based) of `text`. */
export function sliceLines(text: string, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return text;
  const lines = text.split("\n");
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit ? start + limit : lines.length;
  return lines.slice(start, end).join("\n");
}

/**
 * Lines `line..line+limit-1` (1-based; all when neither is given) of a text, as the agent reads
 * them: joined with "\n", and ending with a newline when the window reaches a final newline.
 */
export function textWindow(t: Text, line?: number | null, limit?: number | null): string {
  if (!line && !limit) return joinText(t);
  const start = Math.max(0, (line ?? 1) - 1);
  const end = limit ? Math.min(t.lines.length, start + limit) : t.lines.length;
  if (start >= t.lines.length) return "";
  const s = t.lines.slice(start, end).join("\n");
  return end === t.lines.length && t.eol && !limit ? s + "\n" : s;
}

export async function readFileWindow(
  path: string,
  line?: number | null,
  limit?: number | null,
  maxBytes = DEFAULT_MAX_READ_BYTES,
): Promise<string> {
  const snap = await diskSnapshot(path, maxBytes);
  if (!snap.exists) throw new RpcError(ErrorCodes.ResourceNotFound, `Resource not found: ${path}`);
  if (snap.refused) throw new RpcError(ErrorCodes.InvalidParams, snap.refused.message);
  return textWindow(snap.file!, line, limit);
}

/** Write `content` (UTF-8) to `path` atomically, keeping the file's mode, creating parent directories. */
export async function writeFileAtomic(path: string, content: string, maxBytes = DEFAULT_MAX_READ_BYTES): Promise<void> {
  const snap = await diskSnapshot(path, maxBytes);
  const r = await writeIfUnchanged(path, Buffer.from(content, "utf8"), snap.fingerprint, maxBytes);
  if (r.result === "changed")
    throw new RpcError(ErrorCodes.InternalError, `${path} changed while it was being written; nothing was written`);
}
