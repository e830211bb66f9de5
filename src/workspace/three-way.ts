/**
 * Three-way merging of line texts: one side's change (base -> result) carried over to another
 * text (base -> now). A review shown again after the user typed, a rewind over later edits, and
 * an agent's write put on top of the user's unsaved edits all merge this one way.
 */
import { diffTexts, type DiffLimits } from "./hunks.js";
import type { Text } from "./text-codec.js";

/**
 * The text changed under an answered review (the user typed in the buffer, or the disk
 * changed): carry the accepted changes (base -> result) over to the new text (base -> now),
 * like a merge. Undefined when both touched the same lines (or lines next to each other),
 * unless both made the very same change there.
 */
export function rebase(base: Text, result: Text, now: Text, limits?: DiffLimits): Text | undefined {
  // The accepted change put on top of the new text, all or nothing: a region both changed
  // differently (or next to each other) leaves it to the caller.
  const merged = mergeOnTop(base, result, now, limits);
  return merged.conflicts > 0 ? undefined : merged.text;
}

/**
 * One side's change put on top of another's, region by region (diff3): `theirs` (base -> theirs,
 * an agent's write) over `ours` (base -> ours, the user's unsaved edits). A region only one side
 * changed takes that side's lines; one both changed the same way is taken once; one both changed
 * differently (or next to each other) is a conflict and takes `theirs`' lines, so a review of
 * ours -> the result shows exactly there what the agent's text does to the user's.
 */
export function mergeOnTop(
  base: Text,
  theirs: Text,
  ours: Text,
  limits?: DiffLimits,
): { text: Text; conflicts: number } {
  const tagged = [
    ...diffTexts(base, theirs, limits).hunks.map((h) => ({ h, mine: false })),
    ...diffTexts(base, ours, limits).hunks.map((h) => ({ h, mine: true })),
  ].sort((x, y) => x.h.oldStart - y.h.oldStart);
  // Clusters of hunks whose base ranges overlap or touch.
  type Tagged = (typeof tagged)[number];
  const clusters: { start: number; end: number; members: Tagged[] }[] = [];
  for (const t of tagged) {
    const last = clusters[clusters.length - 1];
    if (last && t.h.oldStart <= last.end) {
      last.end = Math.max(last.end, t.h.oldStart + t.h.oldCount);
      last.members.push(t);
    } else clusters.push({ start: t.h.oldStart, end: t.h.oldStart + t.h.oldCount, members: [t] });
  }
  // Where a side's text is, for a base position: the lines its earlier hunks added or took out.
  const shift = { theirs: 0, ours: 0 };
  const lines: string[] = [];
  let pos = 0;
  let eol = base.eol;
  let conflicts = 0;
  for (const c of clusters) {
    const grow = { theirs: 0, ours: 0 };
    for (const m of c.members) grow[m.mine ? "ours" : "theirs"] += m.h.newCount - m.h.oldCount;
    const region = (which: "theirs" | "ours") => {
      const side = which === "theirs" ? theirs : ours;
      const from = c.start + shift[which];
      const to = c.end + shift[which] + grow[which];
      return { lines: side.lines.slice(from, to), atEnd: to === side.lines.length, eol: side.eol };
    };
    const t = region("theirs");
    const o = region("ours");
    const hasTheirs = c.members.some((m) => !m.mine);
    const hasOurs = c.members.some((m) => m.mine);
    // The very same lines, and (at the end) the same final newline.
    const same =
      hasTheirs &&
      hasOurs &&
      t.lines.length === o.lines.length &&
      t.lines.every((l, k) => l === o.lines[k]) &&
      (c.end < base.lines.length || (t.atEnd === o.atEnd && t.eol === o.eol));
    if (hasTheirs && hasOurs && !same) conflicts++;
    const take = hasTheirs ? t : o;
    for (let k = pos; k < c.start; k++) lines.push(base.lines[k]!);
    for (const l of take.lines) lines.push(l);
    pos = c.end;
    if (pos === base.lines.length && take.atEnd) eol = take.eol;
    shift.theirs += grow.theirs;
    shift.ours += grow.ours;
  }
  for (let k = pos; k < base.lines.length; k++) lines.push(base.lines[k]!);
  return { text: { lines, eol: lines.length > 0 && eol }, conflicts };
}
