/**
 * Line hunks in one convention, from computation to application (like gitsigns, whose hunks
 * from `vim.diff(..., { result_type = "indices" })` drive signs, preview, stage and reset):
 *
 *   { oldStart, oldCount, newStart, newCount }   0-based line indices; a hunk replaces
 *   old[oldStart, oldStart + oldCount) with new[newStart, newStart + newCount).
 *
 * In Neovim that is `nvim_buf_set_lines(buf, oldStart + shift, oldStart + shift + oldCount,
 * false, newLines)`, where `shift` is what the accepted hunks above it added. The same objects
 * drive the review's diff view, its per-hunk keys, the summary counts and the final content.
 *
 * A missing final newline is part of the last line: when only one side has it, the last lines
 * differ, so the last hunk carries the change of the final newline too.
 *
 * The diff is bounded: common prefix and suffix are trimmed, lines found on one side only are
 * set aside (they can never match), and Myers' algorithm runs on the rest up to an edit distance
 * and a time budget. Past either bound the changed middle becomes one hunk (`exact: false`):
 * correct, only coarser.
 */
import type { Text } from "./text-codec.js";
import type { Hunk } from "../wire/index.js";

export type { Hunk };

export interface LineDiff {
  hunks: Hunk[];
  /** false: the diff gave up at a bound and the changed middle is one hunk. */
  exact: boolean;
  /** Lines added and removed, summed over the hunks. */
  added: number;
  removed: number;
}

export interface DiffLimits {
  /** Largest edit distance searched (memory grows with its square). */
  maxEdits?: number;
  /** Time budget in milliseconds. */
  timeoutMs?: number;
}

const DEFAULT_MAX_EDITS = 2000;
const DEFAULT_TIMEOUT_MS = 150;

/** The hunks that turn `a` into `b`. */
export function diffTexts(a: Text, b: Text, limits: DiffLimits = {}): LineDiff {
  const n = a.lines.length;
  const m = b.lines.length;
  // Lines as integers; the last line of a text without a final newline is a different line.
  const ids = new Map<string, number>();
  const idOf = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const A = new Int32Array(n);
  const B = new Int32Array(m);
  for (let i = 0; i < n; i++) A[i] = idOf(i === n - 1 && !a.eol ? "\n" + a.lines[i] : a.lines[i]!);
  for (let j = 0; j < m; j++) B[j] = idOf(j === m - 1 && !b.eol ? "\n" + b.lines[j] : b.lines[j]!);
  return diffIds(A, B, limits);
}

function diffIds(A: Int32Array, B: Int32Array, limits: DiffLimits): LineDiff {
  const n = A.length;
  const m = B.length;
  let pre = 0;
  while (pre < n && pre < m && A[pre] === B[pre]) pre++;
  let suf = 0;
  while (suf < n - pre && suf < m - pre && A[n - 1 - suf] === B[m - 1 - suf]) suf++;
  const a0 = pre;
  const a1 = n - suf;
  const b0 = pre;
  const b1 = m - suf;
  if (a0 === a1 && b0 === b1) return { hunks: [], exact: true, added: 0, removed: 0 };
  if (a0 === a1 || b0 === b1)
    return finish([{ oldStart: a0, oldCount: a1 - a0, newStart: b0, newCount: b1 - b0 }], true);

  // Lines present on one side only can never match: leave them out of the search.
  const inB = new Set<number>();
  for (let j = b0; j < b1; j++) inB.add(B[j]!);
  const inA = new Set<number>();
  for (let i = a0; i < a1; i++) inA.add(A[i]!);
  const ai: number[] = [];
  const bj: number[] = [];
  for (let i = a0; i < a1; i++) if (inB.has(A[i]!)) ai.push(i);
  for (let j = b0; j < b1; j++) if (inA.has(B[j]!)) bj.push(j);
  const SA = Int32Array.from(ai, (i) => A[i]!);
  const SB = Int32Array.from(bj, (j) => B[j]!);

  const pairs = myers(SA, SB, limits.maxEdits ?? DEFAULT_MAX_EDITS, limits.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  if (!pairs) return finish([{ oldStart: a0, oldCount: a1 - a0, newStart: b0, newCount: b1 - b0 }], false);

  // Matched lines, in original indices; the gaps between them are the hunks.
  const hunks: Hunk[] = [];
  let pa = a0;
  let pb = b0;
  for (let k = 0; k < pairs.length; k += 2) {
    const i = ai[pairs[k]!]!;
    const j = bj[pairs[k + 1]!]!;
    if (i > pa || j > pb) hunks.push({ oldStart: pa, oldCount: i - pa, newStart: pb, newCount: j - pb });
    pa = i + 1;
    pb = j + 1;
  }
  if (a1 > pa || b1 > pb) hunks.push({ oldStart: pa, oldCount: a1 - pa, newStart: pb, newCount: b1 - pb });
  return finish(hunks, true);
}

function finish(hunks: Hunk[], exact: boolean): LineDiff {
  let added = 0;
  let removed = 0;
  for (const h of hunks) {
    added += h.newCount;
    removed += h.oldCount;
  }
  return { hunks, exact, added, removed };
}

/**
 * Myers' greedy O((N+M)D) search, keeping each round's frontier to walk the path back.
 * Returns the matched index pairs flattened ([i0, j0, i1, j1, ...], increasing), or undefined
 * past `maxD` edits or `timeoutMs`.
 */
function myers(A: Int32Array, B: Int32Array, maxD: number, timeoutMs: number): number[] | undefined {
  const n = A.length;
  const m = B.length;
  const limit = Math.min(maxD, n + m);
  const off = limit + 1;
  const v = new Int32Array(2 * limit + 3);
  const trace: Int32Array[] = [];
  const started = performance.now();
  let found = -1;
  outer: for (let d = 0; d <= limit; d++) {
    // The frontier before this round, over the diagonals it can use: [-d-1, d+1].
    trace.push(v.slice(off - d - 1, off + d + 2));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[off + k - 1]! < v[off + k + 1]!) ? v[off + k + 1]! : v[off + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && A[x] === B[y]) {
        x++;
        y++;
      }
      v[off + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break outer;
      }
    }
    if ((d & 31) === 31 && performance.now() - started > timeoutMs) return undefined;
  }
  if (found < 0) return undefined;
  // Walk back from (n, m): each round contributes one edit and the diagonal run after it.
  const rev: number[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d]!; // frontier after round d-1; index of diagonal k is k + d + 1
    const at = (k: number) => prev[k + d + 1]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && at(k - 1) < at(k + 1)) ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    const startX = prevK === k + 1 ? prevX : prevX + 1; // after the edit
    while (x > startX && y > startX - k) {
      x--;
      y--;
      rev.push(y, x);
    }
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    rev.push(y, x);
  }
  rev.reverse();
  return rev;
}

/** Hunks of `all` chosen by index (accepted), in order. */
function chosen(hunks: readonly Hunk[], accepted: ReadonlySet<number> | readonly number[]): Set<number> {
  const s = new Set<number>(accepted as Iterable<number>);
  for (const i of s) if (!Number.isInteger(i) || i < 0 || i >= hunks.length) s.delete(i);
  return s;
}

/**
 * `old` with the accepted hunks applied. The final newline is the new text's when the last
 * hunk reaches the end of both texts and is accepted, the old text's otherwise.
 */
export function compose(
  old: Text,
  next: Text,
  hunks: readonly Hunk[],
  accepted: ReadonlySet<number> | readonly number[],
): Text {
  const take = chosen(hunks, accepted);
  const out: string[] = [];
  let pos = 0;
  hunks.forEach((h, i) => {
    for (let k = pos; k < h.oldStart; k++) out.push(old.lines[k]!);
    if (take.has(i)) for (let k = 0; k < h.newCount; k++) out.push(next.lines[h.newStart + k]!);
    else for (let k = 0; k < h.oldCount; k++) out.push(old.lines[h.oldStart + k]!);
    pos = h.oldStart + h.oldCount;
  });
  for (let k = pos; k < old.lines.length; k++) out.push(old.lines[k]!);
  return { lines: out, eol: out.length === 0 ? false : finalEol(old, next, hunks, take) };
}

function finalEol(old: Text, next: Text, hunks: readonly Hunk[], take: Set<number>): boolean {
  const last = hunks.length - 1;
  const h = hunks[last];
  if (
    h &&
    take.has(last) &&
    h.oldStart + h.oldCount === old.lines.length &&
    h.newStart + h.newCount === next.lines.length
  )
    return next.eol;
  return old.eol;
}

/** A replacement of old lines [start, end) by `lines`: one nvim_buf_set_lines call. */
export interface LineEdit {
  start: number;
  end: number;
  lines: string[];
}

/** The accepted hunks as edits of the old text, bottom first (so no edit moves another). */
export function editsFor(
  next: Text,
  hunks: readonly Hunk[],
  accepted: ReadonlySet<number> | readonly number[],
): LineEdit[] {
  const take = chosen(hunks, accepted);
  const edits: LineEdit[] = [];
  for (let i = hunks.length - 1; i >= 0; i--) {
    if (!take.has(i)) continue;
    const h = hunks[i]!;
    edits.push({
      start: h.oldStart,
      end: h.oldStart + h.oldCount,
      lines: next.lines.slice(h.newStart, h.newStart + h.newCount),
    });
  }
  return edits;
}

export function allHunks(hunks: readonly Hunk[]): number[] {
  return hunks.map((_, i) => i);
}
