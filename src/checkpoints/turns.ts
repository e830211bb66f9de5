/**
 * Turn checkpoints of one chat: a snapshot before each prompt is sent, after each
 * tool call that may change files, and at the end of the turn, whichever way the agent wrote
 * (the client's fs/write_text_file, its own file system, a shell command). From them: what a
 * turn changed, its hunks, and taking any of it back (a hunk, a file, everything since a turn).
 *
 * Every change of the folder lives in a step: a turn, a take-back or a rewind, each with the
 * snapshot before and after it. A rewind undoes steps newest first (restore-plan.ts), so the
 * user's own edits in between are kept by three-way merges, and is itself a step (undoable).
 */
import { realpathSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { applyRestore, type Applied, type LiveFiles } from "./apply.js";
import { type BufferChange, type FileOutcome, fewOf, kept, oneEach, readNow, waiting } from "./outcomes.js";

export type { BufferChange, FileOutcome };
import {
  planRewind,
  planTakeback,
  stepHunks,
  type Now,
  type Overlap,
  type RestoreAction,
  type Step,
} from "./restore-plan.js";
import type { Checkpoint, CheckpointStore, FileAt, FileChange } from "./store.js";
import type { Hunk } from "../workspace/hunks.js";
import { encodeText, type Text } from "../workspace/text-codec.js";

export interface ChangeStep {
  /** 1-based, in the order steps began. */
  id: number;
  kind: "turn" | "takeback" | "rewind";
  /** The chat's turn number (kind "turn"). */
  turn?: number;
  label: string;
  start: Promise<Checkpoint | undefined>;
  end?: Checkpoint;
  changes: FileChange[];
  /**
   * What a take-back or rewind changed in buffers only (merged into unsaved edits, so the disk
   * and its snapshots never saw it): undoing the step puts these back too.
   */
  buffers?: BufferChange[];
}

/** A file's bytes as a snapshot has them (absolute path; undefined: not a file there, or unknown). */
export type FileBefore = (abs: string) => Promise<Uint8Array | undefined>;

export class TurnCheckpoints {
  readonly steps: ChangeStep[] = [];
  /** Said to the agent with the next prompt: what the user took back. */
  private pendingNotes: string[] = [];
  private offSaid = false;
  /** End-of-turn snapshots under way (see settled()). */
  private readonly ending = new Set<Promise<void>>();
  /**
   * Turns begun and not ended (an agent may be changing files right now), and the take-back or
   * rewind being carried out (one at a time, each before a turn starts): of every chat of this
   * folder in this Neovim, as their agents write the same files.
   */
  private readonly folder: Folder;
  /** Take-backs that met the user's edits in the same lines, by path: offered as a merge with markers. */
  readonly conflicts = new Map<string, { overlap: Overlap; label: string }>();
  /**
   * The review's baseline (:AcpChatReview approve): the id of the last step the user approved;
   * a review shows the steps after it. Kept here, with the steps it names, so it lives as long
   * as they do (across restarts and resumes of the agent).
   */
  baseline: number | undefined;

  /**
   * The chat's first snapshot, started with the chat (the agent's start takes seconds anyway):
   * prompts stay queued until it is done (the chat's winbar says so), so no turn begins
   * before its folder was recorded once.
   */
  readonly first: Promise<Checkpoint | undefined>;
  private firstTaken = false;

  /** Turns up to this one are local history shown after a resume: no checkpoint of them here. */
  historyTurns = 0;

  constructor(
    readonly store: CheckpointStore,
    readonly cwd: string,
  ) {
    this.folder = folderOf(cwd);
    this.first = store.take("chat started");
    void this.first.then(() => (this.firstTaken = true));
  }

  /** The first snapshot is done (or failed: checkpoints are off then, and say so). */
  get firstDone(): boolean {
    return this.firstTaken;
  }

  get on(): boolean {
    return this.store.state?.on !== false;
  }

  /** Why checkpoints are off, once per chat (undefined while they are on, or once said). */
  offNote(): string | undefined {
    const s = this.store.state;
    if (!s || s.on || this.offSaid) return undefined;
    this.offSaid = true;
    return `Checkpoints are off for this chat: ${s.why}. Turns are not recorded, so :AcpChatChanges and :AcpChatRewind have nothing to show (:checkhealth acpchat says more).`;
  }

  /**
   * A turn is about to be sent: its start snapshot, waited for (a turn is never counted from a
   * snapshot taken after the agent began; every git call of the store has a time limit, and one
   * that runs over turns checkpoints off, which the chat says).
   */
  async beginTurn(turn: number): Promise<ChangeStep> {
    // A rewind still writing files: the turn starts from what it leaves (else its start snapshot
    // catches it half-way and the rest of the rewind counts as the agent's change).
    await this.folder.restoring;
    // The turn before ended without waiting for its end snapshot: its changes are counted (and
    // its block drawn) before this turn begins.
    await this.settled();
    const start = this.store.take(`before turn ${turn}`);
    const step: ChangeStep = {
      id: this.steps.length + 1,
      kind: "turn",
      turn,
      label: `turn ${turn}`,
      start,
      changes: [],
    };
    this.steps.push(step);
    this.folder.running.add(step);
    await start;
    return step;
  }

  /**
   * A tool call ended: a snapshot (its changes are the turn's). Resolves with the files it
   * changed since the snapshot before it (absolute paths), so buffers showing them can follow.
   */
  async toolEnded(label: string): Promise<{ paths: string[]; before: FileBefore }> {
    const before = this.filesBefore();
    const list = this.store.checkpoints;
    const prev = list[list.length - 1];
    const cp = await this.store.take(label);
    if (!prev || !cp || prev.tree === cp.tree) return { paths: [], before };
    const changes = await this.store.changes(prev, cp);
    const paths = changes
      .filter((c) => c.status !== "deleted" && !c.large && !c.binary)
      .map((c) => join(this.cwd, c.path));
    return { paths, before };
  }

  /**
   * The files as the newest snapshot has them: before the tool call that just ended wrote them
   * (taken now, before its own snapshot lands). A buffer holding the user's edits then gets the
   * agent's change on top of them (write-plan.ts decideSync) rather than the file whole.
   */
  filesBefore(): FileBefore {
    const list = this.store.checkpoints;
    const cp = list[list.length - 1];
    return async (abs) => {
      const rel = relative(this.cwd, abs);
      if (!cp || rel.startsWith("..")) return undefined;
      const f = await this.store.fileAt(cp, rel).catch(() => undefined);
      return f?.kind === "file" ? f.bytes : undefined;
    };
  }

  /**
   * The turn ended: its end snapshot and what changed. The chat declares the turn over before
   * this resolves; what reads the steps (the changes commands) waits for it through settled().
   */
  endTurn(step: ChangeStep): Promise<FileChange[]> {
    const p = (async () => {
      try {
        return await this.finish(step);
      } finally {
        this.folder.running.delete(step);
      }
    })();
    const done = p.then(
      () => undefined,
      () => undefined,
    );
    this.ending.add(done);
    void done.then(() => this.ending.delete(done));
    return p;
  }

  /** Every end-of-turn snapshot under way is done (its step has its end and its changes). */
  async settled(): Promise<void> {
    while (this.ending.size > 0) await Promise.all([...this.ending]);
  }

  /** A turn begun but never sent (cancelled while it was prepared): nothing runs any more. */
  abandonTurn(step: ChangeStep): void {
    this.folder.running.delete(step);
  }

  /**
   * Take-backs and rewinds wait for the turn to end: the agent may be writing the same files
   * (a three-way merge against a file changing under it loses one side), and the turn's
   * snapshots would count the user's take-back as the agent's change.
   */
  private idle(): void {
    if (this.folder.running.size > 0)
      throw new Error(
        "a turn is running: take-backs and rewinds wait until it ends (or :AcpChatCancel it), as the agent may be changing these files now",
      );
  }

  private async finish(step: ChangeStep): Promise<FileChange[]> {
    const end = await this.store.take(`after ${step.label}`);
    const start = await step.start;
    if (!start || !end) return [];
    step.end = end;
    step.changes = await this.store.changes(start, end);
    return step.changes;
  }

  /** Steps of turn `n` and after (`undefined`: the last turn only), for :AcpChatChanges and :AcpChatRewind. */
  turnStep(turn?: number): ChangeStep | undefined {
    const turns = this.steps.filter((s) => s.kind === "turn" && s.end);
    return turn === undefined ? turns[turns.length - 1] : turns.find((s) => s.turn === turn);
  }

  stepById(id: number): ChangeStep | undefined {
    return this.steps.find((s) => s.id === id);
  }

  /** A file (relative path) as it was before and after a step. */
  async versions(step: ChangeStep, path: string): Promise<Step> {
    const start = await step.start;
    if (!start || !step.end) return { start: undefined, end: undefined };
    const change = step.changes.find((c) => c.path === path);
    const [before, after] = await Promise.all([
      this.store.fileAt(start, change?.from ?? path),
      this.store.fileAt(step.end, path),
    ]);
    return { start: before, end: after };
  }

  /** The hunks of one file's change in a step (for the quickfix list and the review). */
  async hunks(step: ChangeStep, path: string): Promise<{ before: Text; after: Text; hunks: Hunk[] } | undefined> {
    return stepHunks(await this.versions(step, path));
  }

  /**
   * Take back the hunks `back` (indices into hunks()) of one file's change in a step; all of
   * them puts the file back as it was before the step. A step of its own.
   */
  async takeBack(
    step: ChangeStep,
    path: string,
    back: readonly number[] | "all",
    live: LiveFiles,
    check: (abs: string) => void,
  ): Promise<FileOutcome[]> {
    this.idle();
    const v = await this.versions(step, path);
    const change = step.changes.find((c) => c.path === path);
    const whole = back === "all" || back.length >= (stepHunks(v)?.hunks.length ?? 0);
    if (change?.from && whole) {
      // A rename taken back whole: the new name goes, the old one comes back.
      return this.asStep("takeback", `take-back of ${path}`, async (self) => {
        const out: FileOutcome[] = [];
        for (const p of [path, change.from!]) {
          const action = planRewind([await this.versionsOf(step, p)], await this.now(p, live));
          out.push({ path: p, applied: await applyRestore(join(this.cwd, p), action, live, check, kept(self, p)) });
        }
        if (out.every((o) => o.applied.done))
          this.pendingNotes.push(`took back the rename of ${change.from} to ${path} (${step.label})`);
        return out;
      });
    }
    return this.asStep("takeback", `take-back in ${path}`, async (self) => {
      const now = await this.now(path, live);
      const h = stepHunks(v);
      const all = back === "all" || !h || back.length >= h.hunks.length;
      const action = all ? planRewind([v], now) : planTakeback(v, h.hunks, back, now);
      const applied = await applyRestore(join(this.cwd, path), action, live, check, kept(self, path));
      if (!applied.done && applied.overlap) this.conflicts.set(path, { overlap: applied.overlap, label: step.label });
      const what = all
        ? `${path} (the whole change of ${step.label})`
        : `${path} (${back.length} of ${h.hunks.length} hunks of ${step.label})`;
      if (applied.done) this.pendingNotes.push(`took back ${what}${waiting(applied)}`);
      return [{ path, applied }];
    });
  }

  /** Every file changed since step `from` began put back as it was then (oldest first). */
  rewindPlan(from: ChangeStep): { path: string; steps: ChangeStep[] }[] {
    const later = this.steps.filter((s) => s.id >= from.id && s.end);
    const files = new Map<string, ChangeStep[]>();
    for (const s of later) {
      // Files a step changed only in their buffers (unsaved edits there).
      for (const b of s.buffers ?? [])
        if (!s.changes.some((c) => c.path === b.path)) files.set(b.path, [...(files.get(b.path) ?? []), s]);
      for (const c of s.changes) {
        files.set(c.path, [...(files.get(c.path) ?? []), s]);
        // A rename: the old name comes back too.
        if (c.from) files.set(c.from, [...(files.get(c.from) ?? []), s]);
      }
    }
    return [...files.entries()].map(([path, steps]) => ({ path, steps })).sort((a, b) => (a.path < b.path ? -1 : 1));
  }

  async rewind(from: ChangeStep, live: LiveFiles, check: (abs: string) => void, label: string): Promise<FileOutcome[]> {
    this.idle();
    return this.asStep("rewind", label, async (self) => {
      // Decided when its turn comes (a rewind queued behind another sees that one's step).
      const plan = this.rewindPlan(from);
      const out: FileOutcome[] = [];
      // What steps changed in buffers only goes back first, newest first (as the disk's steps
      // are undone): the files' plans below then start from those buffers as they were.
      for (const s of this.steps.filter((x) => x.id >= from.id && x !== self && x.buffers).reverse())
        for (const b of [...s.buffers!].reverse())
          out.push({ path: b.path, applied: await this.unBuffer(b, live, check, self) });
      // Every file's action is decided first, then removals are carried out before the rest,
      // deepest first: a file that became a folder (or the reverse) comes back only once what
      // the agent put at its place is gone.
      const planned: { path: string; action: RestoreAction }[] = [];
      let versionsOf: (s: ChangeStep, path: string) => Step;
      try {
        versionsOf = await this.versionsMany(plan);
      } catch (e) {
        // The private repository failing: every file is left, with why.
        const why = `its checkpoints cannot be read: ${(e as Error).message}`;
        versionsOf = () => {
          throw new Error(why);
        };
      }
      for (const { path, steps } of plan) {
        // Steps that changed it on disk (those that changed only its buffer are undone above).
        const onDisk = steps.filter((s) => s.changes.some((c) => c.path === path || c.from === path));
        if (onDisk.length === 0) continue;
        try {
          planned.push({
            path,
            action: planRewind(
              onDisk.map((s) => versionsOf(s, path)),
              await this.now(path, live),
            ),
          });
        } catch (e) {
          planned.push({ path, action: { action: "conflict", why: (e as Error).message } });
        }
      }
      const removal = (a: RestoreAction) => a.action === "restore" && a.version === undefined;
      const order = [
        ...planned.filter((p) => removal(p.action)).reverse(),
        ...planned.filter((p) => !removal(p.action)),
      ];
      for (const { path, action } of order) {
        const applied = await applyRestore(join(this.cwd, path), action, live, check, kept(self, path));
        if (!applied.done && applied.overlap) this.conflicts.set(path, { overlap: applied.overlap, label: from.label });
        out.push({ path, applied });
      }
      oneEach(out);
      out.sort((a, b) => (a.path < b.path ? -1 : 1));
      const done = out.filter((o) => o.applied.done).map((o) => `${o.path}${waiting(o.applied)}`);
      if (done.length > 0)
        this.pendingNotes.push(`${label}: ${fewOf(done)} put back as they were before ${from.label}`);
      return out;
    });
  }

  /**
   * Every file's versions around every step of a rewind plan, read per step in a few git runs
   * (store.filesAt) rather than four per file and step.
   */
  private async versionsMany(
    plan: readonly { path: string; steps: ChangeStep[] }[],
  ): Promise<(s: ChangeStep, path: string) => Step> {
    const byStep = new Map<ChangeStep, Set<string>>();
    for (const { path, steps } of plan)
      for (const s of steps) (byStep.get(s) ?? byStep.set(s, new Set()).get(s)!).add(path);
    const got = new Map<ChangeStep, { start: Map<string, FileAt | undefined>; end: Map<string, FileAt | undefined> }>();
    for (const [s, paths] of byStep) {
      const start = await s.start;
      if (!start || !s.end) continue;
      const [a, b] = await Promise.all([this.store.filesAt(start, paths), this.store.filesAt(s.end, paths)]);
      got.set(s, { start: a, end: b });
    }
    return (s, path) => ({ start: got.get(s)?.start.get(path), end: got.get(s)?.end.get(path) });
  }

  /** A file's versions around a step, by its own name at both ends (renames are two files). */
  private async versionsOf(step: ChangeStep, path: string): Promise<Step> {
    const start = await step.start;
    if (!start || !step.end) return { start: undefined, end: undefined };
    const [a, b] = await Promise.all([this.store.fileAt(start, path), this.store.fileAt(step.end, path)]);
    return { start: a, end: b };
  }

  /** Run a take-back or rewind as a step of its own: snapshots around it, its changes kept. */
  private asStep(
    kind: "takeback" | "rewind",
    label: string,
    run: (step: ChangeStep) => Promise<FileOutcome[]>,
  ): Promise<FileOutcome[]> {
    const go = async (): Promise<FileOutcome[]> => {
      this.idle();
      const step: ChangeStep = {
        id: this.steps.length + 1,
        kind,
        label,
        start: this.store.take(`before ${label}`),
        changes: [],
      };
      this.steps.push(step);
      await step.start;
      try {
        return await run(step);
      } finally {
        // Even when it failed half-way: what it did change is a step of its own (undoable).
        await this.finish(step);
      }
    };
    // One after another: a second one starts from what the first left.
    const p = this.folder.restoring.then(go, go);
    this.folder.restoring = p.catch(() => undefined);
    return p;
  }

  /**
   * Put back what a step changed in a buffer only: the step's change taken out of the buffer
   * as it is now (a three-way merge, so what the user typed since stays).
   */
  private async unBuffer(
    b: BufferChange,
    live: LiveFiles,
    check: (abs: string) => void,
    self: ChangeStep,
  ): Promise<Applied> {
    const abs = join(this.cwd, b.path);
    if (!(await live.buffer(abs)))
      return { done: false, why: "its buffer was closed, and what was put back in it went with it" };
    const now = await this.now(b.path, live);
    const mode = now.disk?.kind === "file" ? now.disk.mode : "100644";
    const at = (t: Text): FileAt => ({
      kind: "file",
      mode,
      bytes: encodeText({ ...t, encoding: "utf-8", format: "unix", bom: false }),
    });
    const action = planRewind([{ start: at(b.before), end: at(b.after) }], now);
    return applyRestore(abs, action, live, check, kept(self, b.path));
  }

  private async now(path: string, live: LiveFiles): Promise<Now> {
    const abs = join(this.cwd, path);
    const buf = await live.buffer(abs);
    // The disk as it is now, read the way a snapshot stores it.
    const disk = await readNow(abs, this.store.maxFileBytes);
    return { disk, unsaved: buf?.modified ? buf.text : undefined };
  }

  /** What the agent should hear before its next prompt (and is then forgotten). */
  takeNotes(): string | undefined {
    if (this.pendingNotes.length === 0) return undefined;
    const notes = this.pendingNotes.splice(0);
    return `[acp-chat.nvim] Since your last turn the user took back some of your changes: ${notes.join("; ")}. These files are not as you left them: read them again before you change them.`;
  }

  relative(abs: string): string {
    return relative(this.cwd, abs);
  }
}

interface Folder {
  running: Set<ChangeStep>;
  restoring: Promise<unknown>;
}

const folders = new Map<string, Folder>();

/** The shared state of the chats of one folder (by its real path). */
function folderOf(cwd: string): Folder {
  let key = resolve(cwd);
  try {
    key = realpathSync(cwd);
  } catch {
    // not there (yet): its path as given
  }
  let f = folders.get(key);
  if (!f) folders.set(key, (f = { running: new Set(), restoring: Promise.resolve() }));
  return f;
}
