/**
 * Newline-delimited JSON over a socket, for the editor channel's host side (channel.ts): the
 * token's line, then the MCP messages the server process pipes. A line longer than `maxBytes`
 * ends the connection: no agent sends such lines, so one is a fault, not data to buffer without end.
 *
 * Read as bytes and joined once per line: a whole file crosses in one line (read_file's answer),
 * in dozens of socket chunks, and searching or measuring the whole pending text on every chunk
 * cost more than the rest of the hop (quadratic in the line's length). A newline byte never
 * occurs inside a UTF-8 character, so lines are split on bytes and decoded whole.
 */
import type { Socket } from "node:net";

const NEWLINE = 0x0a;

export function readLines(
  socket: Socket,
  /** The longest line (or body) taken; a function when it depends on what came before (a handshake). */
  maxBytes: number | (() => number),
  onLine: (value: unknown) => void,
  onFault: (why: string) => void,
): void {
  let parts: Buffer[] = [];
  let size = 0;
  let broken = false;
  const max = () => (typeof maxBytes === "number" ? maxBytes : maxBytes());
  const fault = (why: string) => {
    // Once: what follows a fault is not read (a flood after it must not keep growing `parts`).
    broken = true;
    parts = [];
    size = 0;
    onFault(why);
  };
  const take = (): Buffer => {
    const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    return all;
  };
  socket.on("data", (chunk: Buffer | string) => {
    if (broken) return;
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start < bytes.length) {
      const nl = bytes.indexOf(NEWLINE, start);
      if (nl < 0) {
        parts.push(bytes.subarray(start));
        size += bytes.length - start;
        break;
      }
      parts.push(bytes.subarray(start, nl));
      size += nl - start;
      start = nl + 1;
      if (size > max()) return fault(`a line longer than ${max()} bytes`);
      const text = take().toString("utf8");
      if (text.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return fault("a line that is not JSON");
      }
      onLine(value);
      if (broken) return;
    }
    if (size > max()) fault(`a line longer than ${max()} bytes`);
  });
}

export function writeLine(socket: Socket, value: unknown): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(value)}\n`);
}
