/**
 * Three-way merging of line texts: one side's change (base -> result) carried over to another
 * text (base -> now). A review shown again after the user typed, a rewind over later edits, and
 * an agent's write put on top of the user's unsaved edits all merge this one way.
 */
import { diffTexts, type DiffLimits, type Hunk } from "./hunks.js";
import type { Text } from "./text-codec.js";

/**
 * The text changed under an answered review (the user typed in the buffer, or the disk
 * changed): carry the accepted changes (base -> result) over to the new text (base -> now),
 * like a merge. Undefined when both touched the same lines (or lines next to each other),
 * unless both made the very same change there.
 */
export function rebase(base: Text, result: Text, now: Text, limits?: DiffLimits): Text | undefined {
  const mine = diffTexts(base, result, limits).hunks;
  const theirs = diffTexts(base, now, limits).hunks;
  // Both sides made the very same change (the user undid an agent's hunk by hand, and a rewind
  // undoes it too): no conflict, it is taken once, as diff3 does.
  const same = (a: Hunk, b: Hunk) =>
    a.oldStart === b.oldStart &&
    a.oldCount === b.oldCount &&
    a.newCount === b.newCount &&
    result.lines.slice(a.newStart, a.newStart + a.newCount).every((l, k) => l === now.lines[b.newStart + k]);
  const twice = new Set<Hunk>();
  for (const a of mine) {
    for (const b of theirs) {
      if (a.oldStart <= b.oldStart + b.oldCount && b.oldStart <= a.oldStart + a.oldCount) {
        if (!same(a, b)) return undefined;
        twice.add(b);
      }
    }
  }
  // Walk the base once, taking each changed range from whichever side changed it.
  type Take = { h: Hunk; from: Text };
  const takes: Take[] = [
    ...mine.map((h) => ({ h, from: result })),
    ...theirs.filter((h) => !twice.has(h)).map((h) => ({ h, from: now })),
  ].sort((x, y) => x.h.oldStart - y.h.oldStart);
  const lines: string[] = [];
  let pos = 0;
  let eol = base.eol;
  for (const { h, from } of takes) {
    for (let k = pos; k < h.oldStart; k++) lines.push(base.lines[k]!);
    for (let k = 0; k < h.newCount; k++) lines.push(from.lines[h.newStart + k]!);
    pos = h.oldStart + h.oldCount;
    if (pos === base.lines.length && h.newStart + h.newCount === from.lines.length) eol = from.eol;
  }
  for (let k = pos; k < base.lines.length; k++) lines.push(base.lines[k]!);
  return { lines, eol: lines.length > 0 && eol };
}
