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
  let pending = "";
  let broken = false;
  const fault = (why: string) => {
    // Once: what follows a fault is not read (a flood after it must not keep growing `pending`).
    broken = true;
    pending = "";
    onFault(why);
  };
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    if (broken) return;
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
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
    const max = typeof maxBytes === "number" ? maxBytes : maxBytes();
    if (Buffer.byteLength(pending) > max) fault(`a line longer than ${max} bytes`);
  });
}

export function writeLine(socket: Socket, value: unknown): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(value)}\n`);
}
