/**
 * The commands over a chat's turn checkpoints (src/checkpoints/): the quickfix list of a turn's
 * hunks (:AcpChatChanges), the per-hunk take-back review (gd on a changed file), and rewinds
 * (:AcpChatRewind). What they change is said in the transcript, and to the agent with the next
 * prompt (TurnCheckpoints.takeNotes).
 */
import { join } from "node:path";
import type { ChangeStep, FileOutcome, TurnCheckpoints } from "../../checkpoints/turns.js";
import type { Chat } from "../../session/chat/chat.js";
import type { Hunk } from "../../workspace/hunks.js";
import { oneLine } from "../../session/one-line.js";
import { acceptedHunks, WHOLE_FILE_LINES } from "../../workspace/write-plan.js";
import type { LiveFiles } from "../../checkpoints/apply.js";
import type { QuickfixItem, RewindFile } from "../contract.js";
import type { ReviewAnswer, ReviewQuestion } from "../../wire/index.js";
import type { ChatLookup, Handlers } from "../chat-entry.js";
import { mergeWithMarkers } from "../../checkpoints/git.js";
import { joinText, splitText } from "../../workspace/text-codec.js";

export interface ChangesContext {
  chat: Pick<Chat, "checkPath" | "notice" | "showStep">;
  checkpoints: TurnCheckpoints | undefined;
  live: LiveFiles;
  /** Ask the user (a review), answered later; undefined when withdrawn. */
  review: (question: ReviewQuestion) => Promise<ReviewAnswer | undefined>;
}

/** The chat's checkpoints, once the last turn's end snapshot is in (the turn ends before it). */
export async function need(c: ChangesContext): Promise<TurnCheckpoints> {
  const cp = c.checkpoints;
  if (!cp) throw new Error("checkpoints are off (setup: checkpoints.enabled)");
  await cp.settled();
  const s = cp.store.state;
  if (s && !s.on) throw new Error(`checkpoints are off for this chat: ${s.why}`);
  return cp;
}

/** The step `turn` names: a turn number, "last" (default) or "all" (every step so far, as one). */
function pick(cp: TurnCheckpoints, turn: number | "all" | undefined): ChangeStep[] {
  if (typeof turn === "number") fromHistory(cp, turn);
  const done = cp.steps.filter((s) => s.end);
  if (done.length === 0) throw new Error("no turn has been recorded yet");
  if (turn === "all") return done;
  const s = cp.turnStep(turn);
  if (!s)
    throw new Error(
      turn === undefined
        ? "no turn has ended yet"
        : `there is no turn ${turn} in this chat (turns: ${done
            .filter((x) => x.kind === "turn")
            .map((x) => x.turn)
            .join(", ")})`,
    );
  return [s];
}

/** A turn of the local history shown after a resume: its checkpoints stayed with the chat that ran it. */
function fromHistory(cp: TurnCheckpoints, turn: number): void {
  if (turn >= 1 && turn <= cp.historyTurns)
    throw new Error(
      `turn ${turn} is local history from before the resume: its checkpoints stayed with the chat that ran it (this chat's turns start at ${cp.historyTurns + 1})`,
    );
}

/** :AcpChatChanges: every hunk of a turn (or of all steps) as quickfix items. */
export async function changesQuickfix(
  c: ChangesContext,
  turn: number | "all" | undefined,
): Promise<{ title: string; items: QuickfixItem[] }> {
  const cp = await need(c);
  const steps = pick(cp, turn);
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
  extra: Partial<ReviewQuestion> = {},
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
    outcome: report(
      c,
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
  let from: ChangeStep | undefined;
  if (undo) {
    from = [...cp.steps].reverse().find((s) => s.kind === "rewind" && s.end);
    if (!from) throw new Error("there is no rewind to undo");
  } else {
    if (turn !== undefined) fromHistory(cp, turn);
    from = turn === undefined ? cp.turnStep() : cp.turnStep(turn);
    if (!from) throw new Error(turn === undefined ? "no turn has ended yet" : `there is no turn ${turn} in this chat`);
  }
  const title = undo ? `Undo the ${from.label}` : `Rewind to before ${from.label}`;
  const plan = cp.rewindPlan(from);
  const files: RewindFile[] = plan.map((p) => ({ path: p.path, steps: p.steps.map((s) => s.label) }));
  if (dryRun || files.length === 0) return { title, files };
  const label = undo ? `undo of the ${from.label}` : `rewind to before ${from.label}`;
  const out = await cp.rewind(from, c.live, (abs) => c.chat.checkPath(abs, "rewind"), label);
  return {
    title,
    files,
    outcome: report(c, out, undo ? `Undid the ${from.label}` : `Rewound to before ${from.label}`, cp),
    conflicts: conflictsOf(out),
  };
}

/** Files left because the user's edits touch the agent's lines: the user is asked about each. */
export function conflictsOf(out: FileOutcome[]): string[] | undefined {
  const paths = out.filter((o) => !o.applied.done && o.applied.overlap).map((o) => o.path);
  return paths.length > 0 ? paths : undefined;
}

/**
 * The user chose to see a conflict: the file's buffer (loaded by Lua first) gets both sides,
 * with conflict markers, as one undoable change, unsaved; they resolve it and write.
 */
export async function changesConflict(c: ChangesContext, path: string): Promise<{ path: string; conflicts: number }> {
  const cp = await need(c);
  const conflict = cp.conflicts.get(path);
  if (!conflict) throw new Error(`no conflict is waiting for ${path}`);
  const abs = join(cp.cwd, path);
  const buf = await c.live.buffer(abs);
  if (!buf) throw new Error(`${path} is not loaded in a buffer`);
  const { overlap } = conflict;
  const merged = await mergeWithMarkers(
    { ours: joinText(buf.text), base: joinText(overlap.base), theirs: joinText(overlap.theirs) },
    { ours: "yours (now)", base: "the agent's change", theirs: `before ${conflict.label}` },
    cp.store.gitProgram,
  );
  const text = splitText(merged);
  const r = await c.live.setBuffer(abs, buf.tick, buf.text, { lines: text.lines, eol: text.eol }, false);
  if (r === "changed") throw new Error(`${path} changed meanwhile; nothing was put in it`);
  cp.conflicts.delete(path);
  const count = text.lines.filter((l) => l.startsWith("<<<<<<< ")).length;
  c.chat.notice(
    `${path}: ${count} conflict${count === 1 ? "" : "s"} marked in its buffer (yours, the agent's, and before ${conflict.label}); resolve and :write, or u to undo.`,
    "warn",
  );
  return { path: abs, conflicts: count };
}

/** The transcript's account of a take-back or rewind: a note, and the step's changes block. */
function report(c: ChangesContext, out: FileOutcome[], head: string, cp: TurnCheckpoints): string {
  const done = out.filter((o) => o.applied.done);
  const failed = out.filter((o) => !o.applied.done);
  // The count is the step's, which its changes block lists: a file that already was as it had
  // been counts for nothing, and one merged into its buffer (unsaved) is said on its own line.
  const step = cp.steps[cp.steps.length - 1];
  const n = step?.changes.length ?? done.length;
  const lines = [
    `${head}: ${n} file${n === 1 ? "" : "s"} changed${failed.length ? `, ${failed.length} left as they are` : ""}.`,
  ];
  for (const o of out) {
    if (o.applied.done) {
      // Said only when it is not what was asked for plainly: the change waits in the buffer.
      if (o.applied.how === "merged into the buffer (unsaved)") lines.push(`  ${o.path}: ${o.applied.how}`);
    } else {
      lines.push(`  ${o.path}: left as it is: ${o.applied.why}`);
    }
  }
  if (done.length > 0) lines.push("The agent is told with your next prompt.");
  c.chat.notice(lines.join("\n"), failed.length ? "warn" : "info");
  if (step && step.changes.length > 0) c.chat.showStep(step);
  return lines[0]!;
}

/** What the change calls need of the host. */
export interface ChangesView extends ChatLookup {
  live: LiveFiles;
  /** Ask the user on chat `id`'s behalf (withdrawn when it closes). */
  review(id: number, question: ReviewQuestion): Promise<ReviewAnswer | undefined>;
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
