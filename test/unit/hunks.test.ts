/**
 * Property tests of the one hunk convention (src/workspace/hunks.ts) over random texts: with and
 * without a final newline, CRLF, empty files, inserted/deleted/changed lines next to each other.
 */
import { describe, expect, it } from "vitest";
import { cpuMsSince } from "../support/cpu-time.js";
import { compose, diffTexts, editsFor, type Hunk } from "../../src/workspace/hunks.js";
import {
  decodeBytes,
  encodeText,
  joinText,
  proposalText,
  splitText,
  type Text,
} from "../../src/workspace/text-codec.js";

/** A small seeded PRNG (mulberry32): failures can be replayed from the seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!,
  };
}

const ALPHABET = ["a", "b", "c", "", "}", "  x = 1", "a\r", "é", "€ sign"];

function randomText(r: ReturnType<typeof rng>, maxLines = 12): Text {
  const n = r.int(maxLines + 1);
  const lines = Array.from({ length: n }, () => r.pick(ALPHABET));
  return { lines, eol: n > 0 && r.next() < 0.7 };
}

/** A random edit of `t`: runs of inserted, deleted and changed lines, often next to each other. */
function mutate(r: ReturnType<typeof rng>, t: Text): Text {
  const lines = [...t.lines];
  const ops = r.int(5);
  for (let k = 0; k < ops; k++) {
    const at = r.int(lines.length + 1);
    const op = r.int(3);
    if (op === 0) lines.splice(at, 0, ...Array.from({ length: 1 + r.int(3) }, () => r.pick(ALPHABET)));
    else if (op === 1) lines.splice(at, 1 + r.int(3));
    else lines.splice(at, 1 + r.int(2), ...Array.from({ length: 1 + r.int(2) }, () => r.pick(ALPHABET) + "!"));
  }
  const eol = lines.length > 0 && (r.next() < 0.2 ? !t.eol || t.lines.length === 0 : t.eol || t.lines.length === 0);
  return { lines, eol };
}

/** Apply edits the way Lua does: bottom first, each one nvim_buf_set_lines. */
function applyEdits(old: Text, next: Text, hunks: Hunk[], accepted: number[]): string[] {
  const lines = [...old.lines];
  for (const e of editsFor(next, hunks, accepted)) lines.splice(e.start, e.end - e.start, ...e.lines);
  return lines;
}

/** Length of a longest common subsequence (reference for small inputs). */
function lcs(a: string[], b: string[]): number {
  const dp = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++)
      dp[i]![j] = a[i - 1] === b[j - 1] ? dp[i - 1]![j - 1]! + 1 : Math.max(dp[i - 1]![j]!, dp[i]![j - 1]!);
  return dp[a.length]![b.length]!;
}
const keyed = (t: Text) => t.lines.map((l, i) => (i === t.lines.length - 1 && !t.eol ? "\n" + l : l));

function subsets(r: ReturnType<typeof rng>, n: number): number[] {
  return Array.from({ length: n }, (_, i) => i).filter(() => r.next() < 0.5);
}

describe("hunks: one convention from diff to application", () => {
  for (const limits of [{}, { maxEdits: 2 }]) {
    it(`accept all = proposal, reject all = original, any subset = that subset applied, counts match (${limits.maxEdits ? "bounded" : "exact"})`, () => {
      for (let seed = 1; seed <= 3000; seed++) {
        const r = rng(seed);
        const old = randomText(r);
        const next = mutate(r, old);
        const d = diffTexts(old, next, limits);
        const ctx = `seed ${seed}: ${JSON.stringify(old)} -> ${JSON.stringify(next)}: ${JSON.stringify(d.hunks)}`;
        expect(
          compose(
            old,
            next,
            d.hunks,
            d.hunks.map((_, i) => i),
          ),
          ctx,
        ).toEqual(next.lines.length === 0 ? { lines: [], eol: false } : next);
        expect(compose(old, next, d.hunks, []), ctx).toEqual(old.lines.length === 0 ? { lines: [], eol: false } : old);
        const some = subsets(r, d.hunks.length);
        expect(compose(old, next, d.hunks, some).lines, ctx).toEqual(applyEdits(old, next, d.hunks, some));
        // Counts are the hunks' sums; the unchanged lines are the same on both sides.
        expect(d.added, ctx).toBe(d.hunks.reduce((s, h) => s + h.newCount, 0));
        expect(d.removed, ctx).toBe(d.hunks.reduce((s, h) => s + h.oldCount, 0));
        expect(old.lines.length - d.removed, ctx).toBe(next.lines.length - d.added);
        // Hunks are sorted, separate, never empty, and what lies between them is equal.
        let pa = 0;
        let pb = 0;
        for (const h of d.hunks) {
          expect(h.oldCount + h.newCount, ctx).toBeGreaterThan(0);
          expect(h.oldStart - pa, ctx).toBe(h.newStart - pb);
          expect(h.oldStart, ctx).toBeGreaterThanOrEqual(pa);
          for (let k = 0; k < h.oldStart - pa; k++) expect(keyed(old)[pa + k], ctx).toBe(keyed(next)[pb + k]);
          pa = h.oldStart + h.oldCount;
          pb = h.newStart + h.newCount;
        }
        if (!limits.maxEdits) {
          // Exact: a shortest edit (n + m - 2 * LCS changed lines).
          expect(d.exact).toBe(true);
          expect(d.added + d.removed, ctx).toBe(
            old.lines.length + next.lines.length - 2 * lcs(keyed(old), keyed(next)),
          );
        }
      }
    });
  }

  it("the final newline belongs to the last line: no newline added or removed is one hunk, counted once", () => {
    const a = splitText("x\ny\n");
    const b = splitText("x\ny");
    const d = diffTexts(a, b);
    expect(d.hunks).toEqual([{ oldStart: 1, oldCount: 1, newStart: 1, newCount: 1 }]);
    expect(joinText(compose(a, b, d.hunks, [0]))).toBe("x\ny");
    expect(joinText(compose(a, b, d.hunks, []))).toBe("x\ny\n");
    // An insertion at the end of a file without a final newline: one hunk, not a new file.
    const c = splitText("x\ny\nz\n");
    expect(diffTexts(b, c).hunks).toEqual([{ oldStart: 1, oldCount: 1, newStart: 1, newCount: 2 }]);
    expect(diffTexts(splitText(""), splitText("new\n"))).toMatchObject({
      added: 1,
      removed: 0,
      hunks: [{ oldStart: 0, oldCount: 0, newStart: 0, newCount: 1 }],
    });
  });

  it("inserted lines land where the proposal has them (Neovim's set_lines convention)", () => {
    const a = splitText("1\n2\n3\n");
    const b = splitText("1\nnew\n2\n3\n");
    const d = diffTexts(a, b);
    expect(d.hunks).toEqual([{ oldStart: 1, oldCount: 0, newStart: 1, newCount: 1 }]);
    expect(applyEdits(a, b, d.hunks, [0])).toEqual(["1", "new", "2", "3"]);
  });

  it("round trips through the codec: CRLF, BOM and encodings stay as they were", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const r = rng(seed);
      const old = randomText(r);
      const next = mutate(r, old);
      for (const format of ["unix", "dos"] as const) {
        const encoding = r.pick(["utf-8", "utf-16le", "utf-16", "cp1252"] as const);
        const bom = encoding.startsWith("utf-16") || r.next() < 0.5;
        // In a dos file a line cannot end with "\r" (Vim would read it as part of the break).
        // Bytes never end in an unterminated empty line: that is the same text with a final newline.
        const clean = (t: Text): Text => {
          const lines = format === "dos" ? t.lines.map((l) => l.replace(/\r$/, "")) : [...t.lines];
          let eol = t.eol;
          if (!eol && lines.at(-1) === "") {
            lines.pop();
            eol = true;
          }
          return { lines, eol: lines.length > 0 && eol };
        };
        const o = clean(old);
        const bytes = encodeText({ ...o, encoding, format, bom });
        const read = decodeBytes(bytes);
        if (!read.ok) throw new Error(`seed ${seed}: ${read.message}`);
        // A "unix" text whose every line ends in "\r" reads back as "dos", as in Vim: same bytes.
        if (read.file.format === format) expect(read.file.lines, `seed ${seed}`).toEqual(o.lines);
        expect(encodeText(read.file).equals(bytes), `seed ${seed}`).toBe(true);
        // The agent's text (with "\n") becomes the file's line breaks again.
        const p = proposalText(joinText(clean(next)), read.file);
        const d = diffTexts(read.file, p);
        const all = compose(
          read.file,
          p,
          d.hunks,
          d.hunks.map((_, i) => i),
        );
        const none = compose(read.file, p, d.hunks, []);
        expect(encodeText({ ...read.file, ...none }).equals(bytes), `seed ${seed}`).toBe(true);
        expect(joinText(all), `seed ${seed}`).toBe(joinText(p));
      }
    }
  });

  it("is bounded: 10,000 lines all changed, and 100,000 lines with 1% changed, stay fast", () => {
    const big = (n: number) => ({
      lines: Array.from({ length: n }, (_, i) => `line ${i} of the file ${i * 7}`),
      eol: true,
    });
    const a = big(10_000);
    const b = { lines: a.lines.map((l) => "  " + l), eol: true };
    // CPU time, not the clock (test/support/cpu-time.ts).
    let t = process.cpuUsage();
    const d = diffTexts(a, b);
    expect(cpuMsSince(t)).toBeLessThan(500);
    expect(d).toMatchObject({ added: 10_000, removed: 10_000 });
    const c = big(100_000);
    const e = { lines: c.lines.map((l, i) => (i % 100 === 0 ? l + " changed" : l)), eol: true };
    t = process.cpuUsage();
    const d2 = diffTexts(c, e);
    expect(cpuMsSince(t)).toBeLessThan(1000);
    expect(d2.hunks.length).toBe(1000);
    // Shuffled lines (a worst case for Myers) give up at the bound and make one hunk.
    const r = rng(7);
    const shuffled = { lines: [...a.lines].sort(() => r.next() - 0.5), eol: true };
    t = process.cpuUsage();
    const d3 = diffTexts(a, shuffled);
    expect(cpuMsSince(t)).toBeLessThan(1000);
    expect(
      compose(
        a,
        shuffled,
        d3.hunks,
        d3.hunks.map((_, i) => i),
      ),
    ).toEqual(shuffled);
  });
});
