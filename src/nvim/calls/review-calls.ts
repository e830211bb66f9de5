/**
 * :AcpChatReview: every file changed over several turns as one review (checkpoints/
 * review-range.ts), each file's take-back review asked as gd asks it (changes-calls.ts), and
 * the baseline the next review starts after (approve).
 */
import { join } from "node:path";
import { editedSince, rangeStart, reviewRange } from "../../checkpoints/review-range.js";
import type { ChatLookup, Handlers } from "../chat-entry.js";
import type { ReviewFile } from "../contract.js";
import { type ChangesContext, type ChangesView, need, takeBackReview } from "./changes-calls.js";

export interface ReviewList {
  title: string;
  /** The range's first step: the file reviews ask from it. */
  from: number;
  label: string;
  files: ReviewFile[];
}

/** The files of a review since turn `since` (default: after the baseline, else all). */
export async function reviewList(c: ChangesContext, since: number | undefined): Promise<ReviewList> {
  const cp = await need(c);
  const start = rangeStart(cp, since);
  if ("none" in start) throw new Error(start.none);
  const r = await reviewRange(cp, start);
  const why =
    since !== undefined
      ? `since turn ${since}`
      : cp.baseline !== undefined
        ? "since you approved"
        : "since the chat began";
  return {
    title: `${r.step.label} (${why})`,
    from: start.id,
    label: r.step.label,
    files: r.files.map((f) => ({
      path: f.path,
      abs: join(cp.cwd, f.path),
      status: f.status,
      from: f.from,
      added: f.added,
      removed: f.removed,
      binary: f.binary,
      large: f.large,
      steps: f.steps,
    })),
  };
}

/** One file of a review: its take-back review over the whole range (shown in the review's tab). */
export async function reviewFile(
  c: ChangesContext,
  from: number,
  path: string,
): Promise<{ outcome: string; conflicts?: string[] }> {
  const cp = await need(c);
  const step = cp.stepById(from);
  if (!step?.end) throw new Error(`no recorded change ${from}`);
  const r = await reviewRange(cp, step);
  return takeBackReview(c, cp, r.step, path, { loop: true });
}

/** Which of a review's files were changed on disk since its last step (the list marks them). */
export async function reviewEdited(c: ChangesContext, from: number, paths: string[]): Promise<{ paths: string[] }> {
  const cp = await need(c);
  const step = cp.stepById(from);
  if (!step?.end) throw new Error(`no recorded change ${from}`);
  const r = await reviewRange(cp, step);
  return { paths: await editedSince(cp, r.step, paths, (abs) => c.chat.checkPath(abs, "review")) };
}

/** :AcpChatReview approve: the next review starts after the last step recorded now. */
export async function reviewApprove(c: ChangesContext): Promise<{ label: string }> {
  const cp = await need(c);
  const done = cp.steps.filter((s) => s.end);
  const last = done[done.length - 1];
  if (!last) throw new Error("no turn has been recorded yet: nothing to approve");
  cp.baseline = last.id;
  return { label: last.label };
}

export function reviewCalls(
  host: ChangesView & ChatLookup,
): Pick<Handlers, "reviewList" | "reviewFile" | "reviewEdited" | "reviewApprove"> {
  const context = (id: number): ChangesContext => {
    const e = host.get(id);
    return { chat: e.chat, checkpoints: e.checkpoints, live: host.live, review: (q) => host.review(id, q) };
  };
  return {
    reviewList: (p) => reviewList(context(p.chat), p.since),
    reviewFile: (p) => reviewFile(context(p.chat), p.from, p.path),
    reviewEdited: (p) => reviewEdited(context(p.chat), p.from, p.paths),
    reviewApprove: (p) => reviewApprove(context(p.chat)),
  };
}
