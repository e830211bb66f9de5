/**
 * The commands over a chat's turn checkpoints (src/checkpoints/): the quickfix list of a turn's
 * hunks (:AcpChatChanges), the per-hunk take-back review (gd on a changed file), and rewinds
 * (:AcpChatRewind). What they change is said in the transcript, and to the agent with the next
 * prompt (TurnCheckpoints.takeNotes). What they decide is checkpoints/rewind.ts; this asks the
 * user and reads and writes the editor's buffers.
 */
import { join } from "node:path";
import type { ChangeStep, TurnCheckpoints } from "../../checkpoints/turns.js";
import type { Chat } from "../../session/chat/chat.js";
import type { Hunk } from "../../workspace/hunks.js";
import { oneLine } from "../../session/one-line.js";
import { acceptedHunks, WHOLE_FILE_LINES } from "../../workspace/write-plan.js";
import type { LiveFiles } from "../../checkpoints/apply.js";
import type { QuickfixItem, RewindFile } from "../contract.js";
import type { ChatLookup, Handlers } from "../chat-entry.js";
import {
  chooseRewind,
  conflictsOf,
  markConflict,
  pickSteps,
  reportStep,
  settledCheckpoints,
  waitingConflict,
} from "../../checkpoints/rewind.js";

export interface ChangesContext {
  chat: Pick<Chat, "checkPath" | "notice" | "showStep">;
  checkpoints: TurnCheckpoints | undefined;
  live: LiveFiles;
  /** Ask the user (a review), answered later; undefined when withdrawn. */
  review: (question: unknown) => Promise<unknown>;
}

/** The chat's checkpoints, once the last turn's end snapshot is in (the turn ends before it). */
export function need(c: ChangesContext): Promise<TurnCheckpoints> {
  return settledCheckpoints(c.checkpoints);
}

/** :AcpChatChanges: every hunk of a turn (or of all steps) as quickfix items. */
export async function changesQuickfix(
  c: ChangesContext,
  turn: number | "all" | undefined,
): Promise<{ title: string; items: QuickfixItem[] }> {
  const cp = await need(c);
  const steps = pickSteps(cp, turn);
  const items: QuickfixItem[] = [];
  for (const step of steps) {
    for (const f of step.changes) {
      const filename = join(cp.cwd, f.path);
      const tag = steps.length > 1 ? `${step.label}: ` : "";
      if (f.large) {
        items.push({
          filename,
          lnum: 1,
          text: `${tag}${f.status}: over the size limit for checkpoints (its content was not kept)`,
        });
        continue;
      }
      if (f.binary) {
        items.push({ filename, lnum: 1, text: `${tag}${f.status}: binary file` });
        continue;
      }
      const h = await cp.hunks(step, f.path);
      if (!h || h.hunks.length === 0) {
        items.push({
          filename,
          lnum: 1,
          text: `${tag}${f.status}${f.from ? ` from ${f.from}` : ""}${f.modeChange ? ` (mode ${f.modeChange})` : ""}`,
        });
        continue;
      }
      for (const hunk of h.hunks) {
        const first = hunk.newCount > 0 ? h.after.lines[hunk.newStart] : h.before.lines[hunk.oldStart];
        const what =
          f.status === "deleted"
            ? "deleted"
            : f.status === "added"
              ? "new file"
              : `+${hunk.newCount} -${hunk.oldCount}`;
        items.push({
          filename,
          lnum: Math.max(1, hunk.newStart + (hunk.newCount > 0 ? 1 : 0)),
          text: `${tag}${what}: ${oneLine((first ?? "").trim(), 200)}`,
        });
      }
    }
  }
  const title =
    turn === "all" ? "acpchat: every change since the chat started" : `acpchat: changes in ${steps[0]!.label}`;
  return { title, items };
}

/**
 * gd on a changed file: a review of the step's change (the file as the agent left it, against
 * how it was before); the hunks the user takes back are taken out of the file as it is now.
 */
export async function changesReview(
  c: ChangesContext,
  stepId: number,
  path: string,
): Promise<{ outcome: string; conflicts?: string[] }> {
  const cp = await need(c);
  const step = cp.stepById(stepId);
  if (!step?.end) throw new Error(`no recorded change ${stepId}`);
  return takeBackReview(c, cp, step, path);
}

/**
 * The take-back review of one file's change in `step` (a step of the chat's, or a range of
 * them as one: :AcpChatReview); the hunks marked are taken out of the file as it is now.
 * `extra`: fields added to the question (the review loop shows it in its own tab).
 */
export async function takeBackReview(
  c: ChangesContext,
  cp: TurnCheckpoints,
  step: ChangeStep,
  path: string,
  extra: Record<string, unknown> = {},
): Promise<{ outcome: string; conflicts?: string[] }> {
  const change = step.changes.find((f) => f.path === path);
  if (!change) throw new Error(`${path} did not change in ${step.label}`);
  const h = await cp.hunks(step, path);
  if (!h || change.large || change.binary)
    throw new Error(
      `${path} is ${change.large ? "over the size limit for checkpoints" : "not a text file"}: it has no hunks to show (:AcpChatRewind puts it back whole)`,
    );
  // Reversed: the left side is the file as the agent left it, the right how it was before; a
  // hunk "accepted" from the right is a hunk taken back.
  const reverse: Hunk[] = h.hunks.map((x) => ({
    oldStart: x.newStart,
    oldCount: x.newCount,
    newStart: x.oldStart,
    newCount: x.oldCount,
  }));
  const answer = await c.review({
    path: join(cp.cwd, path),
    reason: "changes",
    step: step.label,
    current: h.after.lines.join("\n"),
    currentLines: h.after.lines.length,
    proposed: h.before.lines.join("\n"),
    proposedLines: h.before.lines.length,
    hunks: reverse,
    added: reverse.reduce((n, x) => n + x.newCount, 0),
    removed: reverse.reduce((n, x) => n + x.oldCount, 0),
    whole: h.after.lines.length + h.before.lines.length > WHOLE_FILE_LINES,
    ...extra,
  });
  const back = acceptedHunks(reverse, answer);
  if (back.length === 0) return { outcome: "nothing taken back" };
  const out = await cp.takeBack(step, path, back, c.live, (abs) => c.chat.checkPath(abs, "take back"));
  return {
    outcome: reportStep(
      c.chat,
      out,
      `Took back ${back.length} of ${h.hunks.length} hunk${h.hunks.length === 1 ? "" : "s"} of ${step.label} in ${path}`,
      cp,
    ),
    conflicts: conflictsOf(out),
  };
}

/** :AcpChatRewind: what it would do (`dryRun`), or do it. `undo`: take back the last rewind. */
export async function rewind(
  c: ChangesContext,
  turn: number | undefined,
  undo: boolean,
  dryRun: boolean,
): Promise<{ title: string; files: RewindFile[]; outcome?: string; conflicts?: string[] }> {
  const cp = await need(c);
  const { from, title, label, done, files } = chooseRewind(cp, turn, undo);
  if (dryRun || files.length === 0) return { title, files };
  const out = await cp.rewind(from, c.live, (abs) => c.chat.checkPath(abs, "rewind"), label);
  return { title, files, outcome: reportStep(c.chat, out, done, cp), conflicts: conflictsOf(out) };
}

/**
 * The user chose to see a conflict: the file's buffer (loaded by Lua first) gets both sides,
 * with conflict markers, as one undoable change, unsaved; they resolve it and write.
 */
export async function changesConflict(c: ChangesContext, path: string): Promise<{ path: string; conflicts: number }> {
  const cp = await need(c);
  const conflict = waitingConflict(cp, path);
  const abs = join(cp.cwd, path);
  const buf = await c.live.buffer(abs);
  if (!buf) throw new Error(`${path} is not loaded in a buffer`);
  const { text, count } = await markConflict(cp, conflict, buf.text);
  const r = await c.live.setBuffer(abs, buf.tick, buf.text, { lines: text.lines, eol: text.eol }, false);
  if (r === "changed") throw new Error(`${path} changed meanwhile; nothing was put in it`);
  cp.conflicts.delete(path);
  c.chat.notice(
    `${path}: ${count} conflict${count === 1 ? "" : "s"} marked in its buffer (yours, the agent's, and before ${conflict.label}); resolve and :write, or u to undo.`,
    "warn",
  );
  return { path: abs, conflicts: count };
}

/** What the change calls need of the host. */
export interface ChangesView extends ChatLookup {
  live: LiveFiles;
  /** Ask the user on chat `id`'s behalf (withdrawn when it closes). */
  review(id: number, question: unknown): Promise<unknown>;
}

export function changesCalls(
  host: ChangesView,
): Pick<Handlers, "changes" | "changesReview" | "changesConflict" | "rewind"> {
  const context = (id: number): ChangesContext => {
    const e = host.get(id);
    return { chat: e.chat, checkpoints: e.checkpoints, live: host.live, review: (q) => host.review(id, q) };
  };
  return {
    changes: (p) => changesQuickfix(context(p.chat), p.turn),
    changesReview: (p) => changesReview(context(p.chat), p.step, p.path),
    changesConflict: (p) => changesConflict(context(p.chat), p.path),
    rewind: (p) => rewind(context(p.chat), p.turn, p.undo === true, p.dryRun === true),
  };
}
