/**
 * The write path's loop over an editor's buffers: a write is decided by write-plan.ts (refuse,
 * nothing to do, review, or commit), reviewed when it must be, and committed only if the text is
 * still the one it was computed against; when the text changed under an answered review (the
 * user typed, the disk changed), the accepted changes are carried over to the new text and
 * shown again, for a few rounds at most. Also: buffers brought in step with the disk after an
 * agent wrote files itself. The editor is reached through a BufferPort (src/nvim/ implements it
 * over Neovim's buffers).
 */
import { basename } from "node:path";
import { ErrorCodes, RpcError } from "../protocol/errors.js";
import { diskSnapshot, stillIs, writeIfUnchanged, type DiskSnapshot } from "./disk.js";
import type { ReviewAnswer, ReviewQuestion } from "../wire/index.js";
import { rebase } from "./three-way.js";
import { decodeBytes, joinText, sameText, type Text } from "./text-codec.js";
import {
  acceptedHunks,
  commitFor,
  currentText,
  decideSync,
  decideWrite,
  reviewQuestion,
  type BufferState,
  type Commit,
  type Current,
  type WriteMode,
} from "./write-plan.js";

/** A buffer as the editor reports it: not loaded, or its state (write-plan.ts) and length. */
export type BufferReport = { loaded: false } | ({ loaded: true; lineCount: number } & BufferState);

/** What the write loop needs of an editor: its buffers' primitives (which answer at once) and the user. */
export interface BufferPort {
  /** A loaded buffer's lines [first, last) and options; `probeDisk`: whether its file changed on disk. */
  state(p: { path: string; first?: number; last?: number; probeDisk?: boolean }): Promise<BufferReport>;
  /** Line edits (bottom first) as one undo step, if the buffer is still at `tick`. */
  apply(p: {
    path: string;
    tick: number;
    edits: { start: number; end: number; lines: string[] }[];
    eol?: boolean;
    acknowledgeDisk?: boolean;
    markSaved?: boolean;
  }): Promise<{ result: "applied"; tick: number } | { result: "not_loaded" | "changed" }>;
  /** Write the buffer to its file if still at `tick`. */
  save(p: {
    path: string;
    tick: number;
  }): Promise<{ result: "saved" | "not_loaded" | "changed" } | { result: "not_saved"; error: string }>;
  /** Reload an unmodified buffer whose file changed on disk. */
  reload(p: { path: string }): Promise<unknown>;
  /** The file was written on disk: buffers of it reload (not waited for). */
  diskChanged(path: string): void;
  /** A review of hunks, answered by the user later (undefined: withdrawn). */
  review(question: ReviewQuestion, signal: AbortSignal): Promise<ReviewAnswer | undefined>;
  /** A warning for the user. */
  warn(message: string): void;
}

/** What a write did, for the agent's response and the user. */
export interface WriteOutcome {
  written: "buffer" | "disk" | "nothing";
  /** The buffer was also written to disk (write mode "save"). */
  saved?: boolean;
  /** Hunks of the proposal that were accepted, of how many (after a review). */
  accepted?: number;
  hunks?: number;
  message: string;
}

/** How many answered rounds a write may take (a review shown again after a concurrent change). */
const MAX_ROUNDS = 4;

/** What the agent knew of the file (agent-seen.ts): read before the write, told what it wrote. */
export interface AgentKnows {
  saw: Text | null | undefined;
  wrote(text: Text): void;
  forget(): void;
}

export class WriteLoop {
  constructor(
    private readonly buffers: BufferPort,
    private readonly mode: WriteMode,
    private readonly maxReadBytes: number,
  ) {}

  /** What the file is now: its buffer when loaded (with the disk too, for "save" and unsaved edits), else the disk. */
  private async current(path: string, withDisk: boolean): Promise<Current> {
    const r = await this.buffers.state({ path });
    if (r.loaded) {
      const { loaded: _, lineCount: __, ...buffer } = r;
      const disk =
        withDisk || r.modified ? await diskSnapshot(path, this.maxReadBytes).catch(() => undefined) : undefined;
      return { kind: "buffer", buffer: buffer as BufferState, disk };
    }
    return { kind: "disk", disk: await diskSnapshot(path, this.maxReadBytes) };
  }

  /**
   * A write, with what it did. `partial`: the write as cut down to the hunks the user accepted
   * in a permission review (`exact`: it is what the review showed, against `before`, so it is
   * approved while the file still holds `before`).
   */
  async write(
    path: string,
    content: string,
    partial: { content: string; exact: boolean; before: Text } | undefined,
    signal: AbortSignal,
    knows?: AgentKnows,
  ): Promise<WriteOutcome> {
    let refresh = false;
    if (partial) content = partial.content;
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const current = await this.current(path, this.mode !== "buffer");
      // Approved in the permission review only when the write is what was shown there.
      const reviewedAgainst = partial?.exact === true && round === 0 ? partial.before : undefined;
      // Cut down in a permission review: built on the text that review showed.
      const agentSaw = partial ? partial.before : knows?.saw;
      const plan = decideWrite({ path, content, current, mode: this.mode, reviewedAgainst, refresh, agentSaw });
      if (plan.action === "refuse") throw new RpcError(ErrorCodes.InternalError, plan.message);
      if (plan.action === "unchanged")
        return {
          written: "nothing",
          message: plan.kept
            ? `${path} was not changed: its buffer holds unsaved edits of the user's that your text did not have, and your change put on top of them changes nothing. Read the file again to see the user's text.`
            : `${path} already has this content; nothing to write`,
        };
      let commit: Commit;
      let accepted: number | undefined;
      const total = plan.prepared.diff.hunks.length;
      if (plan.action === "review") {
        const answer = await this.buffers.review(reviewQuestion(plan.prepared, plan.reason), signal);
        if (signal.aborted) throw new RpcError(ErrorCodes.RequestCancelled, `the write to ${path} was cancelled`);
        const chosen = acceptedHunks(plan.prepared.diff.hunks, answer);
        if (chosen.length === 0)
          throw new RpcError(ErrorCodes.InternalError, `The user rejected the change to ${path}; nothing was written`);
        commit = commitFor(plan.prepared, chosen);
        accepted = chosen.length;
      } else {
        commit = plan.commit;
      }
      const done = await this.perform(commit);
      const why =
        current.kind === "buffer" && current.buffer.modified
          ? "its buffer holds the user's own unsaved edits"
          : this.mode === "buffer"
            ? 'the client writes to buffers only (write = "buffer")'
            : "the file changed on disk behind its buffer";
      // From now on the agent takes the file to hold what it wrote (a buffer's text, as its lines hold it).
      // A write to the disk: the file now is what the disk holds (the base when none is known).
      if (done && current.kind === "buffer" && plan.prepared.agentText) knows?.wrote(plan.prepared.agentText);
      else if (done) knows?.forget();
      if (done)
        return {
          ...done,
          accepted,
          hunks: plan.action === "review" ? total : undefined,
          message: describe(path, done, accepted, total, why),
        };
      if (plan.action !== "review") continue; // raced with a change: decide again on the new text
      // The text changed while the user reviewed: carry what they accepted over to it.
      const fresh = currentText(await this.current(path, false));
      const merged = fresh && rebase(commit.base.text, commit.result, fresh);
      if (!merged) {
        const why = `${path} changed while its review was open, in the same lines as the agent's change; nothing was written`;
        // The note leads with what happened: a narrow command line keeps only its start.
        this.buffers.warn(
          `not written, the agent was told: ${basename(path)} changed in the same lines during the review`,
        );
        throw new RpcError(ErrorCodes.InternalError, `${why}. Read the file again and redo the change.`);
      }
      if (sameText(merged, fresh))
        return { written: "nothing", message: `${path} already has the accepted changes; nothing to write` };
      content = joinText(merged);
      refresh = true;
    }
    throw new RpcError(
      ErrorCodes.InternalError,
      `${path} kept changing while it was being written; nothing was written`,
    );
  }

  /** Carry out a commit; undefined when the text is no longer the one it was computed against. */
  private async perform(c: Commit): Promise<Omit<WriteOutcome, "message"> | undefined> {
    if (c.to === "buffer") {
      const r = await this.buffers.apply({ path: c.path, tick: c.tick, edits: c.edits, eol: c.eol });
      if (r.result !== "applied") return undefined;
      if (!c.save) return { written: "buffer" };
      // Vim's :write would ask (y/n) when the file's time changed, and stop the editor: Node
      // checks the disk instead, right before the save, which then skips Vim's check.
      if (c.expectedDisk && !(await stillIs(c.path, c.expectedDisk, this.maxReadBytes))) {
        return {
          written: "buffer",
          saved: false,
          error: `${c.path} changed on disk meanwhile; the change is in the buffer, not saved`,
        } as Omit<WriteOutcome, "message">;
      }
      const s = await this.buffers.save({ path: c.path, tick: r.tick });
      if (s.result === "saved") return { written: "buffer", saved: true };
      return { written: "buffer", saved: false, ...("error" in s ? { error: s.error } : {}) } as Omit<
        WriteOutcome,
        "message"
      >;
    }
    // A buffer opened on the file meanwhile holds the editor's text now: decide again.
    const b = await this.buffers.state({ path: c.path, first: 0, last: 0 });
    if (b.loaded) return undefined;
    const w = await writeIfUnchanged(c.path, c.bytes, c.expected, this.maxReadBytes);
    if (w.result === "changed") return undefined;
    this.buffers.diskChanged(c.path);
    return { written: "disk" };
  }

  /**
   * After a tool call that touched these files ended: buffers that fell behind the disk (the
   * agent wrote the file itself) are reloaded when they hold no edits of the user's; with
   * edits, the user gets one review of their buffer against the disk and chooses. Resolves
   * when every file is settled (a question answered, or withdrawn by `signal`).
   */
  async syncBuffers(
    paths: readonly string[],
    signal: AbortSignal,
    before?: (path: string) => Promise<Uint8Array | undefined>,
  ): Promise<void> {
    for (const path of new Set(paths)) {
      const st = await this.buffers.state({ path, probeDisk: true });
      if (!st.loaded) continue;
      let disk: DiskSnapshot;
      try {
        disk = await diskSnapshot(path, this.maxReadBytes);
      } catch {
        continue;
      }
      const { loaded: _, lineCount: __, ...buffer } = st;
      const b = buffer as BufferState;
      // What the file held before the agent wrote it: its change goes on top of the user's edits.
      const old = b.modified && before ? await before(path).catch(() => undefined) : undefined;
      const decoded = old && decodeBytes(old);
      const was = decoded?.ok ? { lines: decoded.file.lines, eol: decoded.file.eol } : undefined;
      const plan = decideSync(path, b, disk, undefined, was);
      if (plan.action === "reload") await this.buffers.reload({ path });
      if (plan.action !== "review") continue;
      const answer = await this.buffers.review(reviewQuestion(plan.prepared, plan.reason), signal);
      if (answer === undefined || signal.aborted) continue;
      const chosen = acceptedHunks(plan.prepared.diff.hunks, answer);
      const c = commitFor(plan.prepared, chosen);
      if (c.to !== "buffer") continue;
      // Unmodified again only when the buffer now is the file on disk (not its edits plus the agent's).
      const markSaved = disk.exists && disk.file !== undefined && sameText(c.result, disk.file);
      const r = await this.buffers.apply({
        path,
        tick: c.tick,
        edits: c.edits,
        eol: c.eol,
        acknowledgeDisk: true,
        markSaved,
      });
      if (r.result !== "applied")
        this.buffers.warn(`${path} changed while you compared it with the disk; nothing was taken from the disk`);
    }
  }
}

/** What a write did, in words: the agent reads this (not _meta), so a change not on disk says so. */
function describe(
  path: string,
  done: Omit<WriteOutcome, "message"> & { error?: string },
  accepted: number | undefined,
  total: number,
  why: string,
): string {
  const part =
    accepted !== undefined && accepted < total
      ? ` (the user accepted ${accepted} of ${total} hunks; the rest was not written)`
      : "";
  if (done.written === "disk") return `wrote ${path}${part}`;
  if (done.saved) return `applied to the buffer of ${path} and saved${part}`;
  const waits =
    "The change waits in the editor's buffer, unsaved: the file on disk, which commands and tests read, still has the old content until the user saves it.";
  if (done.saved === false)
    return `applied to the buffer of ${path}, but not saved: ${done.error ?? "the write failed"}${part}. ${waits}`;
  return `applied to the buffer of ${path}, not saved (${why})${part}. ${waits}`;
}
