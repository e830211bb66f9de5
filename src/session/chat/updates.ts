/**
 * `session/update` notifications, routed: this session's go through the chunk redactor into the
 * session state or a feature module, a child session's (subagents) into its block, updates that arrive
 * before the session's id is known wait for it. Also the turn's last word on secrets.
 */
import type { SessionUpdate } from "../../protocol/schema.js";
import type { FeatureUpdate } from "../../client/client-feature.js";
import { describeTerminalExit } from "../../terminals/exit-status.js";
import type { Terminal } from "../../terminals/terminal-manager.js";
import { ChunkRedactor } from "../chunk-redactor.js";
import { exitFailed, noticeLevel } from "../blocks.js";
import type { SessionFeatures } from "../features/index.js";
import type { ChatCore } from "./context.js";

/** What the router needs of the rest of the chat. */
export interface UpdateNeeds {
  /** The session is still being set up (its id may not be known yet). */
  starting(): boolean;
  sessionId(): string | undefined;
  features: SessionFeatures;
  /** A terminal of the client's, by id. */
  terminal(id: string): Terminal | undefined;
  /** A tool call changed: its follow-up (buffers checked, checkpoints). */
  toolCallChanged(toolCallId: string): void;
}

export class UpdateRouter {
  private readonly chunkRedactor: ChunkRedactor;
  private early: { sessionId: string; update: SessionUpdate | FeatureUpdate }[] = [];

  constructor(
    private readonly core: ChatCore,
    private readonly needs: UpdateNeeds,
  ) {
    this.chunkRedactor = new ChunkRedactor(core.redactor);
  }

  /** The session's id is known: what arrived before it is applied now. */
  replayEarly(): void {
    for (const e of this.early.splice(0)) {
      if (this.needs.features.handles(e.update)) this.onFeatureUpdate(e.sessionId, e.update);
      else this.onUpdate(e.sessionId, e.update);
    }
  }

  onUpdate(sessionId: string, update: SessionUpdate): void {
    const { core, needs } = this;
    if (needs.starting() && sessionId !== needs.sessionId()) {
      // Agents announce commands right after answering session/new; that notification can be
      // read before the response's promise has resolved here. Keep it until the id is known.
      this.early.push({ sessionId, update });
      return;
    }
    if (sessionId !== needs.sessionId()) {
      // A child session's update (subagents): its transcript, nested in its block.
      const nested = needs.features.route(sessionId, update);
      if (nested) return core.emit(nested);
      core.trace.note("problem", `session/update for unknown session ${sessionId}`);
      return;
    }
    if (
      update.sessionUpdate === "notice" ||
      update.sessionUpdate === "compaction_update" ||
      update.sessionUpdate === "compaction_summary_chunk"
    ) {
      this.onOptInUpdate(core.redactor.value(update));
      return;
    }
    for (const u of this.chunkRedactor.push(update)) core.emit(core.state.apply(u));
    if (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") {
      needs.toolCallChanged(update.toolCallId);
      // A terminal that already produced output (or ended) before the tool call showed it.
      for (const c of update.content ?? []) {
        const t = c.type === "terminal" ? needs.terminal(c.terminalId) : undefined;
        if (t) this.showTerminal(t);
      }
    }
  }

  /**
   * `notice` (shown as a note and a notification) and `compaction_*` (a block at its place, its
   * summary redacted whole after each chunk: a secret may arrive split across chunks).
   */
  private onOptInUpdate(update: SessionUpdate): void {
    const { core } = this;
    this.flushHeld();
    core.emit(core.state.apply(update));
    if (update.sessionUpdate === "notice") {
      core.trace.note("notice", `${update.severity}: ${update.title}`);
      core.opts.onNotify?.(
        `${core.opts.agentName}: ${update.title}${update.description ? ` — ${update.description}` : ""}`,
        noticeLevel(update.severity),
      );
    } else if (update.sessionUpdate === "compaction_update" || update.sessionUpdate === "compaction_summary_chunk") {
      core.emit(core.state.redactCompaction(update.compactionId, (t) => core.redactor.text(t)));
    }
  }

  /** An update a feature module owns (features/): this session's or a child's. */
  onFeatureUpdate(sessionId: string, update: FeatureUpdate): void {
    const { core, needs } = this;
    needs.features.rootId = needs.sessionId();
    if (needs.starting() && sessionId !== needs.sessionId()) {
      // Sent right after the answer to session/new: kept until the session id is known, like onUpdate's.
      this.early.push({ sessionId, update });
      return;
    }
    if (sessionId === needs.sessionId()) {
      // Text held back comes out first: the block lands after it.
      this.flushHeld();
      core.emit(needs.features.apply(update));
      return;
    }
    const nested = needs.features.route(sessionId, update);
    if (nested) core.emit(nested);
    else core.trace.note("problem", `${update.sessionUpdate} for unknown session ${sessionId}`);
  }

  /** Text held back in case it began a secret comes out (the run of chunks is over). */
  flushHeld(): void {
    for (const u of this.chunkRedactor.flush()) this.core.emit(this.core.state.apply(u));
  }

  /** After a turn: held text comes out (terminals' too), and (a safety net) no block may still hold a secret. */
  settleText(): void {
    for (const u of this.chunkRedactor.end()) this.core.emit(this.core.state.apply(u));
    this.core.emit(this.needs.features.flush());
    this.core.emit(this.core.state.redactTurn((t) => this.core.redactor.text(t)));
  }

  /** A terminal's tail, shown in its tool call. */
  showTerminal(t: Terminal): void {
    // Redacted with a margin (a secret cut by the tail's start is still found), and while the
    // command runs, without an end that may begin a secret.
    const tail = this.core.redactor.tail(t.tail(4500), t.exitStatus !== undefined).slice(-4000);
    this.core.emit(
      this.core.state.terminalOutput(t.id, tail, describeTerminalExit(t.exitStatus), exitFailed(t.exitStatus)),
    );
  }
}
