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
import { numberLines } from "../workspace/files.js";
import { hasNul } from "../workspace/write-plan.js";
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
  const r = await readSlices(bridge, path, opts, async (buf, tick, first, last) => {
    const text = await bridge.bufferText(buf, tick, first, last);
    // One split of the text Neovim joined costs a fraction of decoding each line on its own.
    if (typeof text === "string") return text.split("\n");
    return text === undefined ? undefined : bridge.bufferLines(buf, tick, first, last);
  });
  return "slices" in r ? { ...r.head, lines: r.slices.flat() } : r;
}

/** A buffer's state with its lines as one text (see readBufferText). */
export type BufferTextRead =
  | { loaded: false }
  | (Head & {
      /** The lines joined with "\n", no newline after the last (the state's `eol` says); null when a line holds a NUL byte. */
      text: string | null;
      /** How many lines `text` holds (an empty text is no line or one empty line). */
      count: number;
      /** Each line of `text` numbered (`%6d\t`), as asked with `numberFrom`. */
      numbered: boolean;
    });

/**
 * Like readBuffer, with the lines as one text, as a read hands them to the agent: not split into
 * lines and joined again. `numberFrom`: numbered by the editor as the text is joined, the first
 * line as `numberFrom` (`numbered` says it was; the rare whole read after the buffer changed
 * under every attempt is not).
 */
export async function readBufferText(
  bridge: Bridge,
  path: string,
  opts: { first?: number; last?: number; numberFrom?: number } = {},
): Promise<BufferTextRead> {
  const from = Math.max(0, opts.first ?? 0);
  const numberFrom = opts.numberFrom;
  const r = await readSlices(bridge, path, opts, async (buf, tick, first, last) => {
    const n = numberFrom === undefined ? undefined : numberFrom + first - from;
    const text = await bridge.bufferText(buf, tick, first, last, n);
    if (text !== false) return text;
    // Too big to cross as one string: as lines, numbered here.
    const lines = await bridge.bufferLines(buf, tick, first, last);
    if (!lines) return undefined;
    if (hasNul(lines)) return null;
    return n === undefined ? lines.join("\n") : numberLines(lines, n);
  });
  if (!r.loaded) return r;
  if ("slices" in r) {
    const nul = r.slices.some((t) => t === null);
    const numbered = numberFrom !== undefined;
    return { ...r.head, text: nul ? null : r.slices.join("\n"), count: r.count, numbered };
  }
  const { lines, ...head } = r;
  return { ...head, text: hasNul(lines) ? null : lines.join("\n"), count: lines.length, numbered: false };
}

/** The lines of a text buffer_text numbered (`%6d\t` before each: the first tab ends it). */
export function unnumberedLines(text: string): string[] {
  return text.split("\n").map((l) => l.slice(l.indexOf("\t") + 1));
}

type Loaded = Extract<BufferRead, { loaded: true }>;
type Head = Omit<Loaded, "lines">;

/**
 * The buffer's state, then its lines [first, last) read slice by slice through `slice`
 * (undefined: the buffer changed, so it is read again from the start). Changed under every
 * attempt (the user types on), one bufferState request reads it at once: its answer as it is.
 */
async function readSlices<T>(
  bridge: Bridge,
  path: string,
  opts: { first?: number; last?: number; probeDisk?: boolean },
  slice: (buf: number, tick: number, first: number, last: number) => Promise<T | undefined>,
): Promise<{ loaded: false } | Loaded | { loaded: true; head: Head; slices: T[]; count: number }> {
  let diskChanged: boolean | undefined;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const state = await bridge.request("bufferState", {
      path,
      first: 0,
      last: 0,
      probeDisk: attempt === 0 && opts.probeDisk ? true : undefined,
    });
    if (!state.loaded) return state;
    if (attempt === 0) diskChanged = state.diskChanged;
    const { lines: _, ...head } = state;
    const first = Math.max(0, opts.first ?? 0);
    const last = Math.min(opts.last ?? head.lineCount, head.lineCount);
    const slices: T[] = [];
    for (let row = first; row < last; row += SLICE_LINES) {
      const got = await slice(head.buf, head.tick, row, Math.min(last, row + SLICE_LINES));
      if (got === undefined) break;
      slices.push(got);
    }
    if (slices.length === Math.ceil(Math.max(0, last - first) / SLICE_LINES))
      return {
        loaded: true,
        head: diskChanged !== undefined ? { ...head, diskChanged } : head,
        slices,
        count: Math.max(0, last - first),
      };
  }
  const whole = await bridge.request("bufferState", { path, first: opts.first, last: opts.last });
  return whole.loaded && diskChanged !== undefined ? { ...whole, diskChanged } : whole;
}
