/**
 * Newline-delimited JSON over a socket, for the editor channel (channel.ts on the host side,
 * mcp-server.ts on the agent's side). A line longer than `maxBytes` ends the connection: neither
 * side sends such lines, so one is a fault, not data to buffer without end.
 */
import type { Socket } from "node:net";

export function readLines(
  socket: Socket,
  /** The longest line taken; a function when it depends on what came before (a handshake). */
  maxBytes: number | (() => number),
  onLine: (value: unknown) => void,
  onFault: (why: string) => void,
): void {
  // The unfinished line, in pieces: each chunk is searched once, and a long line is joined
  // once (`pending += chunk` then indexOf over all of it was quadratic: a 15 MB line in 64 KB
  // chunks scanned and copied gigabytes).
  let parts: string[] = [];
  let partBytes = 0;
  let broken = false;
  const fault = (why: string) => {
    // Once: what follows a fault is not read (a flood after it must not keep growing `parts`).
    broken = true;
    parts = [];
    partBytes = 0;
    onFault(why);
  };
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    if (broken) return;
    let start = 0;
    let nl: number;
    while ((nl = chunk.indexOf("\n", start)) >= 0) {
      const tail = chunk.slice(start, nl);
      const line = parts.length > 0 ? parts.join("") + tail : tail;
      parts = [];
      partBytes = 0;
      start = nl + 1;
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return fault("a line that is not JSON");
      }
      onLine(value);
      if (broken) return;
    }
    if (start < chunk.length) {
      const rest = start === 0 ? chunk : chunk.slice(start);
      parts.push(rest);
      partBytes += Buffer.byteLength(rest);
    }
    const max = typeof maxBytes === "number" ? maxBytes : maxBytes();
    if (partBytes > max) fault(`a line longer than ${max} bytes`);
  });
}

export function writeLine(socket: Socket, value: unknown): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(value)}\n`);
}
