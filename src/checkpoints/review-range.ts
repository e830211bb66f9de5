/**
 * A review of several steps at once (:AcpChatReview): every file changed from the start of one
 * step to the end of the last, as one step (the files as the steps left them against how they
 * were), with the steps that touched each file. The take-back review and take-backs work on it
 * as on any step; the baseline (approve) says where the next review starts.
 */
import { join } from "node:path";
import { readNow } from "./outcomes.js";
import { sameVersion } from "./restore-plan.js";
import type { Checkpoint } from "./store.js";
import type { FileChange } from "./types.js";
import type { ChangeStep, TurnCheckpoints } from "./turns.js";

/** One file of a review: its change over the whole range, and which steps made it. */
export interface RangeFile extends FileChange {
  /** The steps that changed it, in order ("turn 1", "take-back in a.txt"...). */
  steps: string[];
}

export interface ReviewRange {
  /** The first step of the range (a review's files are asked for again from it). */
  from: ChangeStep;
  /** The range as one step: its start snapshot, the last step's end, the changes between. */
  step: ChangeStep;
  files: RangeFile[];
}

/**
 * The first step a review shows: turn `since` when given, else the one after the approved
 * baseline, else the first. Undefined (with why) when there is nothing to review.
 */
export function rangeStart(cp: TurnCheckpoints, since: number | undefined): ChangeStep | { none: string } {
  const done = cp.steps.filter((s) => s.end);
  if (done.length === 0) return { none: "no turn has been recorded yet" };
  if (since !== undefined) {
    const s = cp.turnStep(since);
    if (!s) {
      const turns = done.filter((x) => x.kind === "turn").map((x) => x.turn);
      return { none: `there is no turn ${since} in this chat (turns: ${turns.join(", ")})` };
    }
    return s;
  }
  const base = cp.baseline;
  const after = done.find((s) => base === undefined || s.id > base);
  if (!after) return { none: `nothing changed since you approved (after ${cp.stepById(base!)?.label ?? "a step"})` };
  return after;
}

/** The label of a range of steps: "turn 3", "turns 1-2", or "3 steps" without turns. */
export function rangeLabel(steps: readonly ChangeStep[]): string {
  const turns = steps.filter((s) => s.kind === "turn").map((s) => s.turn!);
  if (turns.length === 0) return steps.length === 1 ? steps[0]!.label : `${steps.length} steps`;
  if (turns.length === 1) return `turn ${turns[0]}`;
  return `turns ${turns[0]}-${turns[turns.length - 1]}`;
}

/** The range from step `from` to the last step ended: its files and the steps of each. */
export async function reviewRange(cp: TurnCheckpoints, from: ChangeStep): Promise<ReviewRange> {
  const steps = cp.steps.filter((s) => s.id >= from.id && s.end);
  const last = steps[steps.length - 1]!;
  const start = await from.start;
  const changes = start && last.end ? await changesBetween(cp, start, last.end) : [];
  const step: ChangeStep = {
    id: from.id,
    kind: "turn",
    label: rangeLabel(steps),
    start: from.start,
    end: last.end,
    changes,
  };
  const by = new Map<string, string[]>();
  for (const s of steps) {
    for (const c of s.changes) {
      for (const p of c.from ? [c.path, c.from] : [c.path]) {
        const list = by.get(p) ?? by.set(p, []).get(p)!;
        const name = s.kind === "turn" ? `turn ${s.turn}` : s.label;
        if (!list.includes(name)) list.push(name);
      }
    }
  }
  const files = changes
    .map((c) => ({ ...c, steps: by.get(c.path) ?? [] }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { from, step, files };
}

/**
 * The changes between two checkpoints of a chat, remembered: a review asks for the same range
 * with every file shown (]f), and the comparison of hundreds of files is two git runs of a few
 * hundred ms on a loaded machine. Snapshots never change, so neither does the answer.
 */
const known = new WeakMap<TurnCheckpoints, Map<string, Promise<FileChange[]>>>();

function changesBetween(cp: TurnCheckpoints, a: Checkpoint, b: Checkpoint): Promise<FileChange[]> {
  const map = known.get(cp) ?? known.set(cp, new Map()).get(cp)!;
  const key = `${a.n}:${b.n}`;
  let p = map.get(key);
  if (!p) {
    p = cp.store.changes(a, b);
    // A failure is not remembered: the next review tries again.
    p.catch(() => map.delete(key));
    // A few ranges are asked for at a time (the review open now, the one before approve).
    if (map.size >= 8) map.delete(map.keys().next().value!);
    map.set(key, p);
  }
  return p;
}

/**
 * The paths of a range's files that are no longer as its last step left them: changed since by
 * the user (or anyone) on disk. The review marks them: a take-back there is merged three-way.
 * `check` refuses a path out of the session's folder (it is left unmarked, not read).
 */
export async function editedSince(
  cp: TurnCheckpoints,
  step: ChangeStep,
  paths: readonly string[],
  check: (abs: string) => void,
): Promise<string[]> {
  if (!step.end || paths.length === 0) return [];
  const at = await cp.store.filesAt(step.end, paths);
  const max = cp.store.maxFileBytes;
  const edited: string[] = [];
  for (const p of paths) {
    const abs = join(cp.cwd, p);
    try {
      check(abs);
    } catch {
      continue;
    }
    const then = at.get(p);
    // Not a file, link or large file there (a gitlink, say): nothing a take-back would merge.
    if (then?.kind === "other") continue;
    // Read and compared the way a rewind reads the file now and compares it with a version.
    if (!sameVersion(then, await readNow(abs, max))) edited.push(p);
  }
  return edited;
}
