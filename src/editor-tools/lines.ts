/**
 * Newline-delimited JSON over a socket, for the editor channel (channel.ts on the host side,
 * mcp-server.ts on the agent's side). A line longer than `maxBytes` ends the connection: neither
 * side sends such lines, so one is a fault, not data to buffer without end.
 */
import type { Socket } from "node:net";

export function readLines(socket: Socket, maxBytes: number, onLine: (value: unknown) => void, onFault: (why: string) => void): void {
  let pending = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
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
        return onFault("a line that is not JSON");
      }
      onLine(value);
    }
    if (Buffer.byteLength(pending) > maxBytes) onFault(`a line longer than ${maxBytes} bytes`);
  });
}

export function writeLine(socket: Socket, value: unknown): void {
  if (!socket.destroyed && socket.writable) socket.write(`${JSON.stringify(value)}\n`);
}
