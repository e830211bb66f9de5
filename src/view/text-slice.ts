/**
 * How much text one render batch carries. Neovim applies a batch in one piece on its loop:
 * a 15 MB chunk drawn at once held it for a quarter of a second. Text beyond a batch's budget
 * waits for the next frame. The budget counts bytes (UTF-8) and lines, as both cost Neovim.
 */

/** Bytes of text in one batch. */
export const SLICE_BYTES = 256 * 1024;
/** Line breaks in one batch. */
export const SLICE_LINES = 4096;
/**
 * The longest line Lua puts in the transcript buffer (lua/acpchat/transcript/long_line.lua): a longer
 * one goes on as marked continuation lines. Appending to a buffer line copies all of it, so
 * a line of megabytes would make each batch cost its length.
 */
export const LINE_MAX_BYTES = 64 * 1024;

export interface Budget {
  bytes: number;
  lines: number;
}

export const fullBudget = (): Budget => ({ bytes: SLICE_BYTES, lines: SLICE_LINES });

/** UTF-8 bytes of code unit `c` (a surrogate half counts 2: a pair is 4). */
function utf8Units(c: number): number {
  return c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdfff ? 2 : 3;
}

/**
 * The head of `text` that fits `budget` (which it spends) and the rest ("" when all fits).
 * Never cuts a surrogate pair. A non-empty budget always takes at least one character.
 */
export function cut(text: string, budget: Budget): [string, string] {
  // Fast path: clearly within the byte budget (3 bytes per unit at most) and few enough lines.
  if (text.length * 3 <= budget.bytes) {
    const lines = countLines(text, budget.lines + 1);
    if (lines <= budget.lines) {
      budget.bytes -= text.length * 3;
      budget.lines -= lines;
      return [text, ""];
    }
  }
  let bytes = 0;
  let lines = 0;
  let i = 0;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const b = utf8Units(c);
    if (bytes + b > budget.bytes || (c === 10 && lines + 1 > budget.lines)) break;
    bytes += b;
    if (c === 10) lines++;
  }
  const high = (k: number) => {
    const c = text.charCodeAt(k);
    return c >= 0xd800 && c <= 0xdbff;
  };
  if (i === 0 && text.length > 0 && budget.bytes > 0) {
    // One character however big (a budget nearly spent must still move on).
    i = high(0) && text.length > 1 ? 2 : 1;
    bytes = budget.bytes;
  } else if (i > 0 && i < text.length && high(i - 1)) {
    // A high surrogate whose low half did not fit goes with it to the next batch.
    i--;
    bytes -= 2;
  }
  budget.bytes -= bytes;
  budget.lines -= lines;
  return [text.slice(0, i), text.slice(i)];
}

function countLines(text: string, stop: number): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i >= 0 && n < stop; i = text.indexOf("\n", i + 1)) n++;
  return n;
}
