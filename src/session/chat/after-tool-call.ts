/**
 * What follows a tool call's progress: buffers of the files it touched are checked against the
 * disk (agents may write with their own file system), hunks the user rejected are taken out
 * again, a checkpoint is taken, and a read of a file with unsaved edits is pointed out.
 */
import { errorMessage } from "../../protocol/errors.js";
import { isOpen, type ToolCallState } from "../blocks.js";
import type { ChatCore } from "./context.js";

/** What the follow-up needs of the turns. */
export interface FollowUpNeeds {
  /** The agent hears this with the next prompt. */
  tellAgent(note: string): void;
  /** The turn's end waits for this. */
  waitFor(work: Promise<void>): void;
}

export class ToolCallFollowUp {
  /** Tool calls whose end was checkpointed. */
  private readonly checkpointed = new WeakSet<object>();
  /** Tool calls whose files were checked against the disk. */
  private readonly synced = new WeakSet<object>();
  /** Tool calls' hunks rejected in a permission review, being taken out of the files again. */
  private readonly cutBacks = new WeakMap<object, Promise<unknown>>();
  /** Files the agent read through fs/read_text_file (path: when, a counter) and read tool calls
   * (when first seen; -1 once checked): an agent's own reads are told apart from the client's. */
  private readonly reads = { seq: 0, byClient: new Map<string, number>(), calls: new WeakMap<object, number>() };

  constructor(
    private readonly core: ChatCore,
    private readonly needs: FollowUpNeeds,
  ) {}

  /** The agent read `path` through the client (fs/read_text_file). */
  readByClient(path: string): void {
    this.reads.byClient.set(path, ++this.reads.seq);
  }

  /** A tool call was announced or updated. */
  changed(toolCallId: string): void {
    const call = this.core.state.toolCalls.get(toolCallId);
    if (!call) return;
    // The file before the call is read from the newest snapshot now, before the call's own.
    const before = this.core.opts.checkpoints?.on ? this.core.opts.checkpoints.filesBefore() : undefined;
    const cutBack = this.checkpointAfter(call);
    this.syncAfter(call, cutBack, before);
  }

  /**
   * A tool call that touched files (an edit, delete or move, or one with a diff) ended: buffers
   * of those files are checked against the disk, as agents may write with their own file system.
   */
  private syncAfter(
    call: ToolCallState,
    cutBack: Promise<unknown> | undefined,
    before: ((abs: string) => Promise<Uint8Array | undefined>) | undefined,
  ): void {
    const { port } = this.core.opts;
    // Diffs without old text: the file as it is now (before the agent writes) is their old side.
    if (isOpen(call.status))
      port.noteDiffs?.(
        call.toolCallId,
        call.content.flatMap((c) => (c.type === "diff" ? [c] : [])),
      );
    if (call.kind === "read") this.afterRead(call);
    if (!port.syncBuffers || this.synced.has(call)) return;
    if (call.status !== "completed" && call.status !== "failed") return;
    const diffs = call.content.flatMap((c) => (c.type === "diff" ? [c.path] : []));
    if (diffs.length === 0 && !["edit", "delete", "move"].includes(call.kind)) return;
    this.synced.add(call);
    const paths: string[] = [];
    for (const p of [...diffs, ...call.locations.map((l) => l.path)]) {
      try {
        paths.push(this.core.boundary.check(p, "sync"));
      } catch {
        // outside the boundary: never touched
      }
    }
    if (paths.length === 0) return;
    // Not tied to the turn: the user may answer after it ended; closing the chat withdraws it.
    // After the hunks the user rejected in its permission review are out of the files again.
    void (cutBack ?? Promise.resolve())
      .then(() => port.syncBuffers!(paths, this.core.lifetime, before))
      .catch((e) => this.core.trace.note("problem", `checking buffers against disk: ${errorMessage(e)}`));
  }

  /**
   * A tool call that may have changed files ended: hunks the user rejected in its permission
   * review are taken out again (when the agent wrote them itself), then a checkpoint, in the
   * background.
   */
  private checkpointAfter(call: ToolCallState): Promise<unknown> | undefined {
    const { core } = this;
    const toolCallId = call.toolCallId;
    if (this.checkpointed.has(call)) return this.cutBacks.get(call);
    if (call.status !== "completed" && call.status !== "failed") return undefined;
    this.checkpointed.add(call);
    const cp = core.opts.checkpoints;
    const port = core.opts.port;
    const check = (abs: string) => void core.boundary.check(abs, "write");
    const partial = port.toolCallEnded ? port.toolCallEnded(toolCallId, check) : Promise.resolve([]);
    const done = partial.then(
      (notes) => {
        for (const n of notes) {
          core.notice(`${n[0]!.toUpperCase()}${n.slice(1)}.`);
          this.needs.tellAgent(n);
        }
      },
      (e: unknown) => core.trace.note("problem", `after tool call ${toolCallId}: ${errorMessage(e)}`),
    );
    this.needs.waitFor(done);
    this.cutBacks.set(call, done);
    if (!cp?.on || ["read", "search", "think", "fetch"].includes(call.kind)) return done;
    // Files the tool changed (a command's `sed -i`, the agent's own writes): their buffers
    // reload when they hold no edits of the user's, else the user compares (syncBuffers).
    // (Edits and calls with a diff are synced by syncAfter already.)
    const synced = ["edit", "delete", "move"].includes(call.kind) || call.content.some((c) => c.type === "diff");
    void done
      .then(() => cp.toolEnded(`after ${call.title || toolCallId}`))
      .then(({ paths, before }) =>
        paths.length > 0 && !synced && port.syncBuffers ? port.syncBuffers(paths, core.lifetime, before) : undefined,
      )
      .catch((e: unknown) => core.trace.note("problem", `after tool call ${toolCallId}: ${errorMessage(e)}`));
    return done;
  }

  /**
   * A tool call of kind "read" ended: a file of its locations that the agent did not read
   * through fs/read_text_file (it read the disk itself) while its buffer holds unsaved edits
   * gets a note: the agent did not see them.
   */
  private afterRead(call: { status: string; title: string; locations: readonly { path: string }[] }): void {
    const { core } = this;
    if (!this.reads.calls.has(call)) this.reads.calls.set(call, this.reads.seq);
    const seen = this.reads.calls.get(call)!;
    if (call.status !== "completed" || seen < 0 || !core.opts.port.unsavedBuffers) return;
    this.reads.calls.set(call, -1);
    const paths: string[] = [];
    for (const l of call.locations) {
      try {
        const p = core.boundary.check(l.path, "read");
        if ((this.reads.byClient.get(p) ?? -1) <= seen) paths.push(p);
      } catch {
        // outside the boundary: not ours to say
      }
    }
    if (paths.length === 0) return;
    core.opts.port
      .unsavedBuffers([...new Set(paths)])
      .then((unsaved) => {
        for (const p of unsaved)
          core.notice(
            `${p} has unsaved edits in the editor: ${core.opts.agentName} read the file from disk, without them ("${call.title}").`,
            "warn",
          );
      })
      .catch((e) => core.trace.note("problem", `checking buffers for unsaved edits: ${errorMessage(e)}`));
  }
}
