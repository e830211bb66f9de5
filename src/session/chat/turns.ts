/**
 * The chat's turns: prompts queued until the agent is ready and idle, each one prepared (its
 * files read, its checkpoint taken), sent, and ended; ACP cancel; and what a turn's end shows
 * (its tokens, its changes).
 */
import type { AcpClient, TurnUsage } from "../../client/acp-client.js";
import type { ChangeStep } from "../../checkpoints/turns.js";
import { ConnectionClosedError, errorMessage } from "../../protocol/errors.js";
import type { ContentBlock, StopReason } from "../../protocol/schema.js";
import { AttachmentError, DEFAULT_MAX_BYTES } from "../media.js";
import { buildPrompt } from "../prompt-builder.js";
import type { ContextItem } from "../../wire/index.js";
import { PromptQueue, type QueuedPrompt } from "../prompt-queue.js";
import { relative } from "node:path";
import type { ChatCore } from "./context.js";
import { RESTART_HINT } from "./crash-text.js";

/** How long an agent working after its turn's end must be quiet before the chat says it is done. */
const LATE_QUIET_MS = 2000;

/** What the turns need of the rest of the chat. */
export interface TurnsNeeds {
  /** The agent can take a prompt now (the chat is ready). */
  canPrompt(): boolean;
  /** The client and session, or a throw that says why the chat is not ready. */
  ready(): { client: AcpClient; sessionId: string };
  client(): AcpClient | undefined;
  sessionId(): string | undefined;
  withAuth<T>(call: () => Promise<T>): Promise<T>;
  describeEnd(reason: string): Promise<string>;
  /** Held text comes out and no block of the turn may keep a secret. */
  settleText(): void;
  /** Open permission questions are answered `cancelled`. */
  abortPermissions(reason: string): void;
}

export class Turns {
  /** Prompts waiting for the agent to be ready and idle. */
  readonly queue = new PromptQueue();
  /** The queued prompt being prepared (its files read): nothing else starts meanwhile, and a
   * cancel or a crash in that window gives it back like the rest of the queue. */
  private preparing: QueuedPrompt | undefined;
  private turnAbort: AbortController | undefined;
  private cancelTimer: NodeJS.Timeout | undefined;
  private lateTimer: NodeJS.Timeout | undefined;
  private settleTurn: ((r: StopReason | "error") => void) | undefined;
  /** Work after tool calls that the turn's end waits for (partial edits put back). */
  private readonly toolEnds = new Set<Promise<void>>();
  /** What the agent hears with the next prompt (besides what checkpoints add). */
  private readonly agentNotes: string[] = [];
  /** The unsaved files last named to the agent (the user sees the note when they change). */
  private unsavedTold = "";

  constructor(
    private readonly core: ChatCore,
    private readonly needs: TurnsNeeds,
  ) {
    // Prompts sent before the folder's first snapshot was done waited in the queue for it.
    void core.opts.checkpoints?.first.then(() => {
      this.pump();
      this.core.emit([{ type: "meta" }]);
    });
  }

  /** What queued prompts wait for besides the agent (shown in the winbar). */
  get waitingFor(): string | undefined {
    const cp = this.core.opts.checkpoints;
    return cp && !cp.firstDone && this.queue.view().length > 0 ? "the folder's first snapshot" : undefined;
  }

  /** Aborted when the running turn is cancelled or ends. */
  get signal(): AbortSignal | undefined {
    return this.turnAbort?.signal;
  }

  /** A turn is waiting for its prompt's response. */
  get running(): boolean {
    return this.settleTurn !== undefined;
  }

  /** What the user typed as the chat's first prompt (context left out), for the session index. */
  firstText: string | undefined;

  /** The agent hears this with the next prompt. */
  tellAgent(note: string): void {
    this.agentNotes.push(note);
  }

  /** The turn's end waits for this (work after a tool call). */
  waitFor(work: Promise<void>): void {
    this.toolEnds.add(work);
    void work.finally(() => this.toolEnds.delete(work));
  }

  /** Queue a prompt and start it when the agent can take it; true when it waits. */
  submit(text: string, context: ContextItem[], unsaved?: string[]): boolean {
    const p = this.queue.add(text, context, unsaved);
    const queued = !this.pump();
    // A prompt that waits asks the editor when it goes: its buffers may change meanwhile.
    if (this.preparing !== p) p.unsaved = undefined;
    this.core.emit([{ type: "meta" }]);
    return queued;
  }

  /** Start the next queued prompt if the agent can take it; true when one was started. */
  pump(): boolean {
    const { state } = this.core;
    // An agent still working after its turn's end would answer a prompt at once and mix the two.
    if (!this.needs.canPrompt() || state.turnState !== "idle" || state.lateWork || this.preparing) return false;
    // Before the folder's first snapshot no turn starts: its changes would go unrecorded.
    if (this.core.opts.checkpoints && !this.core.opts.checkpoints.firstDone) return false;
    const next = this.queue.shift();
    if (!next) return false;
    this.preparing = next;
    void this.runQueued(next);
    return true;
  }

  /** Every prompt not sent yet: the one being prepared, then the queue. */
  private takeUnsent(): QueuedPrompt[] {
    const p = this.preparing;
    this.preparing = undefined;
    return [...(p ? [p] : []), ...this.queue.takeAll()];
  }

  /** Queued prompts go back to the user (the agent cannot take them). */
  giveBackQueue(): void {
    const back = this.takeUnsent();
    if (back.length > 0) {
      this.core.opts.onTakeBack?.(back);
      this.core.emit([{ type: "meta" }]);
    }
  }

  private async runQueued(p: QueuedPrompt): Promise<void> {
    this.firstText ??= p.text.trim().slice(0, 200) || undefined;
    const { opts, state, boundary } = this.core;
    let blocks: ContentBlock[];
    let notes: string[];
    try {
      // Files are read as the agent would read them: the user's buffer (unsaved edits) first.
      const read = async (path: string) =>
        (await opts.port.readTextFile({ sessionId: this.needs.sessionId() ?? "", path }, new AbortController().signal))
          .content;
      // Images and audio go as such only to an agent that takes them (promptCapabilities).
      const client = this.needs.client();
      const caps = client?.capabilities.promptCapabilities;
      const media = {
        image: caps?.image === true,
        audio: caps?.audio === true,
        maxBytes: opts.media?.maxBytes ?? DEFAULT_MAX_BYTES,
        agent: opts.agentName,
        owns: opts.media?.owns,
      };
      ({ blocks, notes } = await buildPrompt(
        p.text,
        p.context,
        boundary,
        client?.supports("embeddedContext") ?? false,
        read,
        media,
        (s) => this.core.redactor.text(s),
      ));
    } catch (e) {
      if (this.preparing !== p) return; // taken back meanwhile
      this.preparing = undefined;
      // An image or audio file that cannot be attached leaves the context it comes back with
      // (else sending again would fail again); the text comes back whole.
      const refused = e instanceof AttachmentError ? e.item : undefined;
      if (refused !== undefined) p.context = p.context.filter((c) => !(c.type === "file" && c.path === refused));
      this.core.notice(
        `Could not prepare the prompt: ${errorMessage(e)}${refused !== undefined ? " (taken out of the prompt's context)" : ""}`,
        "error",
      );
      opts.onTakeBack?.([p]);
      this.pump();
      return;
    }
    // Files whose buffers hold unsaved edits (an agent reading the disk would not see them), and
    // the folder as it is before the agent gets the prompt (waited for: the turn is recorded
    // whole). Asked together: the editor's answer is a round trip through two processes, which
    // on a busy machine costs more than the snapshot, and neither needs the other.
    const cp = opts.checkpoints;
    const [unsaved, step] = await Promise.all([
      this.unsavedNote(p.unsaved),
      cp?.on && this.preparing === p ? cp.beginTurn(state.turn + 1) : undefined,
    ]);
    // Turned off since the chat started (its first snapshot found the folder too large, say).
    if (cp && !step) this.sayCheckpointsOff();
    // Cancelled, or the agent died, while its files were read: it was given back already.
    if (this.preparing !== p) {
      if (step) cp?.abandonTurn(step);
      return;
    }
    this.preparing = undefined;
    // What the user took back since the agent's last turn: the agent hears it in words.
    const told =
      [...this.agentNotes.splice(0).map((n) => `[acp-chat.nvim] Note: ${n}.`), cp?.takeNotes()]
        .filter(Boolean)
        .join("\n") || undefined;
    const before = [told, unsaved?.note].filter(Boolean).join("\n");
    const turn = this.prompt(blocks, before ? [{ type: "text", text: `${before}\n\n` }] : []);
    // Under the user's words (the turn began synchronously), as what this turn told the agent.
    for (const said of [told, unsaved?.changed ? unsaved.note : undefined])
      if (said) this.core.notice(`Told the agent: ${said.replace(/\[acp-chat.nvim\] /g, "")}`);
    // Below the user's words (the turn began synchronously): an attachment sent as a link, say.
    for (const n of notes) this.core.notice(n, "warn");
    const stop = await turn;
    await Promise.all([...this.toolEnds]);
    // The turn is over now; its changes block follows once the end snapshot is in (the next
    // turn's start snapshot queues behind it: the store takes snapshots in order).
    if (step) void this.showChanges(step);
    opts.onTurnEnd?.(stop);
    this.pump();
  }

  /**
   * A line naming the project's files with unsaved edits in the editor (and the tool that reads
   * them), for the prompt (`changed`: the user is shown it, as the list changed).
   */
  private async unsavedNote(given?: string[]): Promise<{ note: string; changed: boolean } | undefined> {
    const ask = this.core.opts.unsavedFiles;
    if (!ask) return undefined;
    let r: { paths: string[]; readTool?: string };
    try {
      r = await ask(given);
    } catch (e) {
      this.core.trace.note("problem", `listing unsaved buffers: ${errorMessage(e)}`);
      return undefined;
    }
    const shown = r.paths
      .map((p) => (p.startsWith(this.core.boundary.cwd) ? relative(this.core.boundary.cwd, p) : p))
      .sort();
    const key = shown.join("\n");
    const changed = key !== this.unsavedTold;
    this.unsavedTold = key;
    if (shown.length === 0) return undefined;
    const how = r.readTool
      ? // Each agent spells an MCP tool its own way (claude mcp__nvim__read_file, gemini mcp_nvim_read_file).
        `read them with the ${r.readTool.split("__").at(-1)} tool of the editor's "${r.readTool.split("__")[0]}" MCP server (mcp__${r.readTool}) to see the user's text`
      : "the disk does not have the user's text yet";
    const note = `[acp-chat.nvim] Note: these files have unsaved edits in the editor, newer than the disk: ${shown.join(", ")}; ${how}.`;
    return { note, changed };
  }

  /** Send a prompt; resolves with the stop reason when the turn ends (never rejects). */
  async prompt(prompt: ContentBlock[], before: ContentBlock[] = []): Promise<StopReason | "error"> {
    const { state, notice } = this.core;
    let ready: { client: AcpClient; sessionId: string };
    try {
      ready = this.needs.ready();
    } catch (e) {
      notice(`${errorMessage(e)}.`, "error");
      return "error";
    }
    if (state.turnState !== "idle") {
      notice("A turn is already running: wait for it or cancel it first.", "warn");
      return "error";
    }
    this.core.emit(state.beginTurn(prompt));
    this.turnAbort = new AbortController();
    const local = new Promise<StopReason | "error">((resolve) => (this.settleTurn = resolve));
    let result: StopReason | "error";
    try {
      // After :AcpChatLogout the agent answers "auth required": sign in, and the prompt goes again.
      const turn = this.needs
        .withAuth(() => ready.client.promptTurn(ready.sessionId, [...before, ...prompt]))
        .then((r) => {
          if (r.usage) this.showUsage(r.usage);
          return r.stopReason;
        });
      result = await Promise.race([turn, local]);
    } catch (e) {
      result = "error";
      const why =
        e instanceof ConnectionClosedError
          ? `The agent stopped: ${await this.needs.describeEnd(e.message)}\n${RESTART_HINT}`
          : `The turn failed: ${errorMessage(e)}`;
      notice(why, "error");
    }
    this.finishTurn(result);
    return result;
  }

  private finishTurn(result: StopReason | "error"): void {
    this.needs.settleText();
    if (this.cancelTimer) clearTimeout(this.cancelTimer);
    this.cancelTimer = undefined;
    this.settleTurn = undefined;
    this.turnAbort?.abort(new Error("turn ended"));
    this.turnAbort = undefined;
    this.core.emit(this.core.state.endTurn(result === "error" ? undefined : result));
  }

  /**
   * ACP cancel: notify the agent, mark unfinished tool calls cancelled, answer open permission
   * questions `cancelled`, and keep waiting for the prompt's response; an agent that ignores
   * the cancel for `cancelMs` has its turn ended by the client, with a note saying so.
   */
  cancel(): QueuedPrompt[] {
    const back = this.takeUnsent();
    if (back.length > 0) this.core.emit([{ type: "meta" }]);
    this.cancelTurn();
    return back;
  }

  private cancelTurn(): void {
    const { state } = this.core;
    const client = this.needs.client();
    const sessionId = this.needs.sessionId();
    if (client && sessionId && state.turnState === "idle" && state.lateWork) {
      // Work after the turn's end has no turn to cancel: the agent hears the cancel, its open
      // tool calls and questions end here.
      this.needs.abortPermissions("cancelled");
      client.cancel(sessionId);
      this.core.emit(state.settleLateWork(true));
      this.pump();
      return;
    }
    if (!client || !sessionId || state.turnState === "idle" || state.turnState === "cancelling") return;
    this.core.emit(state.beginCancel());
    this.turnAbort?.abort(new Error("turn cancelled"));
    this.needs.abortPermissions("turn cancelled");
    client.cancel(sessionId);
    const ms = this.core.opts.timeouts?.cancelMs ?? 10_000;
    this.cancelTimer = setTimeout(() => {
      if (this.core.state.turnState !== "cancelling") return;
      this.core.notice(
        `The agent did not end the turn within ${ms / 1000} s of the cancel; the turn is marked cancelled.`,
        "warn",
      );
      this.settleTurn?.("cancelled");
    }, ms);
  }

  /**
   * Something was shown while the agent works after its turn's end: once it has been quiet for
   * LATE_QUIET_MS with no tool call open and no question waiting, it is done (and the queue goes on).
   */
  watchLateWork(): void {
    if (this.lateTimer) clearTimeout(this.lateTimer);
    this.lateTimer = setTimeout(() => {
      this.lateTimer = undefined;
      this.core.emit(this.core.state.settleLateWork());
      if (this.core.state.lateWork) this.watchLateWork();
      else this.pump();
    }, LATE_QUIET_MS);
    this.lateTimer.unref?.();
  }

  /** The chat closes: no timer outlives it. */
  dispose(): void {
    if (this.lateTimer) clearTimeout(this.lateTimer);
    this.lateTimer = undefined;
  }

  /** The turn's tokens (PromptResponse.usage, the usage feature): a line at its end, and in status(). */
  private showUsage(u: TurnUsage): void {
    this.core.emit(this.core.state.setTurnUsage({ ...u } as Record<string, number>));
    const n = (x: number) =>
      x >= 10_000 ? `${Math.round(x / 1000)}k` : x >= 1000 ? `${(x / 1000).toFixed(1)}k` : String(x);
    const parts = [
      u.inputTokens !== undefined && `${n(u.inputTokens)} in`,
      u.outputTokens !== undefined && `${n(u.outputTokens)} out`,
      u.cachedReadTokens !== undefined && `${n(u.cachedReadTokens)} cached`,
      u.cachedWriteTokens !== undefined && `${n(u.cachedWriteTokens)} cache written`,
      u.thoughtTokens !== undefined && `${n(u.thoughtTokens)} thought`,
      u.totalTokens !== undefined && `${n(u.totalTokens)} total`,
    ].filter(Boolean);
    this.core.notice(`Tokens this turn: ${parts.join(" · ")}`);
    this.core.emit([{ type: "meta" }]);
  }

  /** Checkpoints turned off (no git, a folder too large): said once, when known. */
  sayCheckpointsOff(): void {
    const why = this.core.opts.checkpoints?.offNote();
    if (why) this.core.notice(why, "warn");
  }

  /** What a step (a turn, a take-back, a rewind) changed, as one block (none when nothing did). */
  showStep(step: ChangeStep): void {
    const title = `${step.label[0]!.toUpperCase()}${step.label.slice(1)}`;
    if (step.changes.length > 0) this.core.emit(this.core.state.changes(step.id, title, step.changes, step.turn));
  }

  /** The turn's changes, as one block at its end (none when nothing changed). */
  private async showChanges(step: ChangeStep): Promise<void> {
    try {
      await this.core.opts.checkpoints!.endTurn(step);
      this.showStep(step);
    } catch (e) {
      this.core.trace.note("problem", `checkpoint at the end of ${step.label}: ${errorMessage(e)}`);
    }
    this.sayCheckpointsOff();
  }
}
