/**
 * A loaded buffer's lines read in bounded slices, one request per slice, so the editor answers
 * between them whatever the buffer's size. The buffer's state comes from Lua's bufferState (no
 * lines); the lines from Neovim's own API (Bridge.bufferLines), which hands them over without a
 * Lua string per line. Every slice names the change tick the read started at; a buffer that
 * changes meanwhile is read again from the start, so the text is always one state of the
 * buffer, never a mix of two.
 *
 * Slices rather than a copy kept in step through buffer change events: nothing is held in Node
 * for buffers the agent never reads, no event is sent per keystroke, and there is no second copy
 * that could drift from the buffer.
 */
import type { Bridge } from "./bridge.js";
import type { NodeRequests } from "./contract.js";

export type BufferRead = NodeRequests["bufferState"]["result"];

/** Lines of one slice: well under a frame even on a loaded machine. */
export const SLICE_LINES = 10_000;
/** Reads started again after the buffer changed, before one request takes it all at once. */
const ATTEMPTS = 3;

/**
 * The buffer holding `path` (not loaded: `{ loaded: false }`) with its lines [first, last)
 * (0-based; all by default), as bufferState answers, read in slices. `probeDisk`: also ask Vim
 * whether the file changed on disk since the buffer read it.
 */
export async function readBuffer(
  bridge: Bridge,
  path: string,
  opts: { first?: number; last?: number; probeDisk?: boolean } = {},
): Promise<BufferRead> {
  let diskChanged: boolean | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const head = await bridge.request("bufferState", {
      path,
      first: 0,
      last: 0,
      probeDisk: attempt === 0 && opts.probeDisk ? true : undefined,
    });
    if (!head.loaded) return head;
    if (attempt === 0) diskChanged = head.diskChanged;
    const first = Math.max(0, opts.first ?? 0);
    const last = Math.min(opts.last ?? head.lineCount, head.lineCount);
    const lines = await readLines(bridge, head.buf, head.tick, first, last);
    if (lines) return { ...head, lines, ...(diskChanged !== undefined ? { diskChanged } : {}) };
  }
  // Changed under every attempt (the user types on): one request reads it at once.
  const whole = await bridge.request("bufferState", { path, first: opts.first, last: opts.last });
  return whole.loaded && diskChanged !== undefined ? { ...whole, diskChanged } : whole;
}

/** Lines [first, last) of buffer `buf` at change tick `tick`; undefined when it changed or went away. */
async function readLines(
  bridge: Bridge,
  buf: number,
  tick: number,
  first: number,
  last: number,
): Promise<string[] | undefined> {
  const out: string[] = [];
  for (let row = first; row < last; row += SLICE_LINES) {
    const lines = await bridge.bufferLines(buf, tick, row, Math.min(last, row + SLICE_LINES));
    if (!lines) return undefined;
    for (const l of lines) out.push(l);
  }
  return out;
}
