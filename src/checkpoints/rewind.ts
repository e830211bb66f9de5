/**
 * The decisions of the checkpoint commands, apart from the editor: which steps a turn number
 * names, what a rewind would put back, the transcript's account of a take-back or rewind, and
 * a conflict's text with its markers. The Neovim adapter (nvim/calls/changes-calls.ts) asks
 * the user and reads and writes buffers; this decides and words.
 */
import type { ChangeStep, FileOutcome, TurnCheckpoints } from "./turns.js";
import { mergeWithMarkers } from "./git.js";
import { joinText, splitText, type Text } from "../workspace/text-codec.js";

/** Where the account of a take-back or rewind goes: the chat's transcript. */
export interface StepReporter {
  notice(text: string, level: "info" | "warn"): void;
  showStep(step: ChangeStep): void;
}

/** The chat's checkpoints, once the last turn's end snapshot is in (the turn ends before it). */
export async function settledCheckpoints(cp: TurnCheckpoints | undefined): Promise<TurnCheckpoints> {
  if (!cp) throw new Error("checkpoints are off (setup: checkpoints.enabled)");
  await cp.settled();
  const s = cp.store.state;
  if (s && !s.on) throw new Error(`checkpoints are off for this chat: ${s.why}`);
  return cp;
}

/** The step `turn` names: a turn number, "last" (default) or "all" (every step so far, as one). */
export function pickSteps(cp: TurnCheckpoints, turn: number | "all" | undefined): ChangeStep[] {
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

/** A rewind chosen: the step it goes back from, its words, and each file with the steps it undoes. */
export interface RewindChoice {
  from: ChangeStep;
  title: string;
  /** The rewind's own step, as the transcript names it. */
  label: string;
  /** What it says once done. */
  done: string;
  files: { path: string; steps: string[] }[];
}

/** :AcpChatRewind [turn]: to before `turn` (default the last), or `undo` the last rewind. */
export function chooseRewind(cp: TurnCheckpoints, turn: number | undefined, undo: boolean): RewindChoice {
  let from: ChangeStep | undefined;
  if (undo) {
    from = [...cp.steps].reverse().find((s) => s.kind === "rewind" && s.end);
    if (!from) throw new Error("there is no rewind to undo");
  } else {
    if (turn !== undefined) fromHistory(cp, turn);
    from = turn === undefined ? cp.turnStep() : cp.turnStep(turn);
    if (!from) throw new Error(turn === undefined ? "no turn has ended yet" : `there is no turn ${turn} in this chat`);
  }
  return {
    from,
    title: undo ? `Undo the ${from.label}` : `Rewind to before ${from.label}`,
    label: undo ? `undo of the ${from.label}` : `rewind to before ${from.label}`,
    done: undo ? `Undid the ${from.label}` : `Rewound to before ${from.label}`,
    files: cp.rewindPlan(from).map((p) => ({ path: p.path, steps: p.steps.map((s) => s.label) })),
  };
}

/** Files left because the user's edits touch the agent's lines: the user is asked about each. */
export function conflictsOf(out: FileOutcome[]): string[] | undefined {
  const paths = out.filter((o) => !o.applied.done && o.applied.overlap).map((o) => o.path);
  return paths.length > 0 ? paths : undefined;
}

/** The transcript's account of a take-back or rewind: a note, and the step's changes block. */
export function reportStep(to: StepReporter, out: FileOutcome[], head: string, cp: TurnCheckpoints): string {
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
  to.notice(lines.join("\n"), failed.length ? "warn" : "info");
  if (step && step.changes.length > 0) to.showStep(step);
  return lines[0]!;
}

/** A conflict left by a take-back or rewind, waiting for the user to look at it. */
export type WaitingConflict = NonNullable<ReturnType<TurnCheckpoints["conflicts"]["get"]>>;

/** The conflict waiting for `path` (the user chose to see it), or an error that none is. */
export function waitingConflict(cp: TurnCheckpoints, path: string): WaitingConflict {
  const conflict = cp.conflicts.get(path);
  if (!conflict) throw new Error(`no conflict is waiting for ${path}`);
  return conflict;
}

/**
 * The buffer's text (`ours`) with both other sides of `conflict` and conflict markers, and how
 * many conflicts it marks.
 */
export async function markConflict(
  cp: TurnCheckpoints,
  conflict: WaitingConflict,
  ours: Text,
): Promise<{ text: Text; count: number }> {
  const { overlap } = conflict;
  const merged = await mergeWithMarkers(
    { ours: joinText(ours), base: joinText(overlap.base), theirs: joinText(overlap.theirs) },
    { ours: "yours (now)", base: "the agent's change", theirs: `before ${conflict.label}` },
    cp.store.gitProgram,
  );
  const text = splitText(merged);
  return { text, count: text.lines.filter((l) => l.startsWith("<<<<<<< ")).length };
}
