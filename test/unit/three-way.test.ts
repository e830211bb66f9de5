/** One side's change put on top of another's (src/workspace/three-way.ts), on plain texts. */
import { describe, expect, it } from "vitest";
import { mergeOnTop } from "../../src/workspace/three-way.js";
import type { Text } from "../../src/workspace/text-codec.js";

const t = (...lines: string[]): Text => ({ lines, eol: true });
const base = t("1", "2", "3", "4", "5", "6", "7", "8");
const at = (i: number, s: string, from = base): Text => ({
  ...from,
  lines: from.lines.map((l, k) => (k === i ? s : l)),
});

describe("mergeOnTop", () => {
  it("changes in different places: both kept, no conflict", () => {
    const r = mergeOnTop(base, at(0, "AGENT"), at(7, "MINE"));
    expect(r).toEqual({ text: at(7, "MINE", at(0, "AGENT")), conflicts: 0 });
  });

  it("a conflict takes the agent's lines there only; the user's edits elsewhere stay", () => {
    // The agent changed line 5, next to the user's line 6; the user also changed line 2.
    const ours = at(5, "U2", at(1, "U1"));
    const r = mergeOnTop(base, at(4, "T"), ours);
    expect(r.conflicts).toBe(1);
    expect(r.text.lines).toEqual(["1", "U1", "3", "4", "T", "6", "7", "8"]);
  });

  it("the same change on both sides is taken once; insertions and deletions shift the rest", () => {
    const theirs: Text = t("1", "2", "new", "3", "4", "5", "6", "8");
    const ours: Text = t("0", "1", "2", "3", "4", "5", "6", "8");
    const r = mergeOnTop(base, theirs, ours);
    expect(r).toEqual({ text: t("0", "1", "2", "new", "3", "4", "5", "6", "8"), conflicts: 0 });
  });

  it("one side unchanged gives the other; the final newline follows the side that changed the end", () => {
    expect(mergeOnTop(base, at(2, "X"), base).text).toEqual(at(2, "X"));
    expect(mergeOnTop(base, base, at(2, "Y")).text).toEqual(at(2, "Y"));
    const noEol = { ...at(7, "END"), eol: false };
    expect(mergeOnTop(base, noEol, at(0, "MINE")).text).toEqual({ ...at(0, "MINE", noEol), eol: false });
    expect(mergeOnTop(t(), t("a"), t()).text).toEqual(t("a"));
  });

  it("the final newline counts: a user who dropped it and an agent who kept it differ there", () => {
    const b: Text = t("d", "d");
    const r = mergeOnTop(b, t("d"), { lines: ["d"], eol: false });
    expect(r.conflicts).toBe(1);
    expect(r.text).toEqual(t("d"));
  });

  it("random edits: what only one side touched is that side's, and nothing else moves", () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    for (let round = 0; round < 300; round++) {
      const b = t(...Array.from({ length: 3 + rnd(20) }, (_, i) => `l${i}`));
      // Theirs changes lines in the first half, ours in the second: never next to each other.
      const half = Math.floor(b.lines.length / 2);
      const theirs = t(...b.lines.map((l, i) => (i < half - 1 && rnd(3) === 0 ? `T${i}` : l)));
      const ours = t(...b.lines.map((l, i) => (i > half && rnd(3) === 0 ? `U${i}` : l)));
      const want = b.lines.map((l, i) => (theirs.lines[i] !== l ? theirs.lines[i] : ours.lines[i]));
      expect(mergeOnTop(b, theirs, ours)).toEqual({ text: t(...want), conflicts: 0 });
    }
  });
});
