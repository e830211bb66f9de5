/**
 * One JSON message as a line on a stream. A large message (a whole file read) is written as it
 * is, then its newline, corked into one write: `json + "\n"` would copy the whole text into a
 * fresh string once more (a large one, with its own allocation) only to add one byte.
 */
import type { Writable } from "node:stream";

/** Below this a message is joined to its newline: two writes cost more than copying a small one. */
const JOIN_BELOW = 64 << 10;

export function writeJsonLine(out: Writable, json: string, done?: (error?: Error | null) => void): void {
  if (json.length < JOIN_BELOW) {
    out.write(`${json}\n`, done);
    return;
  }
  out.cork();
  out.write(json);
  out.write("\n", done);
  out.uncork();
}
