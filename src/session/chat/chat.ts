/**
 * One chat: an agent process, its ACP connection and one session, with the state that the view
 * draws. A thin coordinator over its parts: the connection (connection.ts), the turns
 * (turns.ts), the agent's requests (agent-requests.ts), the update router (updates.ts) and what
 * follows a tool call (after-tool-call.ts). Editor-agnostic: the editor is reached through the
 * EditorPort and the `onEvents` sink. ACP cancel is implemented exactly (see Turns.cancel).
 */
import { ConnectionClosedError, errorMessage } from "../../protocol/errors.js";
import { parseSessionUpdate, type ContentBlock, type StopReason } from "../../protocol/schema.js";
import { resolveMcpServers } from "../../client/mcp-servers.js";
import { describeTerminalExit, terminalFailed } from "../../terminals/exit-status.js";
import { TerminalManager } from "../../terminals/terminal-manager.js";
import { Redactor, commandSecrets } from "../../trace/redact.js";
import { TraceLog, type TraceEntry } from "../../trace/trace-log.js";
import { PathBoundary } from "../../workspace/path-boundary.js";
import type { ChangeStep } from "../../checkpoints/turns.js";
import type { ContextItem } from "../../wire/index.js";
import type { QueuedPrompt } from "../prompt-queue.js";
import { SessionState } from "../session-state.js";
import type { TranscriptEvent } from "../blocks.js";
import { SessionFeatures, activeFeatures, requireFeature } from "../features/index.js";
import { AgentRequests } from "./agent-requests.js";
import { ToolCallFollowUp } from "./after-tool-call.js";
import { AgentConnection } from "./connection.js";
import type { ChatCore, NoticeLevel } from "./context.js";
import { RESTART_HINT, START_HINT } from "./crash-text.js";
import type { ChatOptions, ChatStatus } from "./options.js";
import { Turns } from "./turns.js";
import { UpdateRouter } from "./updates.js";
import { WorkControls } from "./work.js";

export type { ChatOptions, ChatStatus, ClientMcpServer } from "./options.js";
export { RESTART_HINT, START_HINT } from "./crash-text.js";

/** A terminal as `:AcpChatTerminal` lists it: the client's own, or one the agent streamed in metadata. */
export interface TerminalView {
  id: string;
  pid?: number;
  output: string;
  exit?: string;
  failed?: boolean;
  truncated?: boolean;
}

/** The configured defaults a chat applies once it is ready. */
export interface ChatDefaults {
  name: string;
  mode?: string;
  model?: string;
  options?: Record<string, string | boolean>;
}

export class Chat implements ChatCore {
  readonly state: SessionState;
  readonly trace: TraceLog;
  readonly terminals: TerminalManager;
  readonly boundary: PathBoundary;
  readonly redactor: Redactor;
  /** The feature modules' state (plans by id, child sessions, session messages): src/session/features/. */
  readonly features: SessionFeatures;
  status: ChatStatus = "starting";
  sessionId: string | undefined;
  /** Why the chat failed or the agent ended, for the user. */
  failure: string | undefined;
  /** How an earlier session was continued: resume (the agent replays nothing) or load. */
  continuedBy: "resume" | "load" | undefined;
  /** The session this one was forked from (`:AcpChatFork`). */
  forkedFrom: string | undefined;
  private readonly connection: AgentConnection;
  private readonly turns: Turns;
  private readonly updates: UpdateRouter;
  private readonly followUp: ToolCallFollowUp;
  private readonly requests: AgentRequests;
  private closing: Promise<void> | undefined;
  /** Aborted when the chat closes. */
  private readonly life = new AbortController();
  /** ACP v2: one tool call's or terminal's cancel, and the agent's background work. */
  readonly work = new WorkControls(this, () => this.ready());

  constructor(readonly opts: ChatOptions) {
    this.state = new SessionState(opts.agentName, opts.incarnation ? `r${opts.incarnation}:` : "");
    const mcp = resolveMcpServers(opts.mcpServers ?? [], opts.cwd, process.env);
    // The agent's environment and the keys on its command line (`--api-key …`) are secrets, and
    // so are the MCP servers' environment and header values.
    this.redactor = new Redactor([
      ...commandSecrets(opts.command),
      ...mcp.secrets,
      ...(opts.clientMcpServer?.secrets ?? []),
    ]);
    this.trace = new TraceLog(this.redactor, opts.traceFile);
    this.boundary = new PathBoundary(opts.cwd, opts.extraRoots);
    this.terminals = new TerminalManager((t) => this.updates.showTerminal(t), {
      outputCapBytes: opts.terminal?.outputLimitBytes,
    });
    this.features = new SessionFeatures(this.state, this.redactor, activeFeatures(opts.features));
    this.connection = new AgentConnection(
      this,
      mcp,
      { get: () => this.status, set: (s) => this.setStatus(s) },
      () => this.sessionId,
      this.work,
    );
    this.turns = new Turns(this, {
      canPrompt: () => this.status === "ready",
      ready: () => this.ready(),
      client: () => this.connection.client,
      sessionId: () => this.sessionId,
      withAuth: (call) => this.connection.withAuth(call),
      describeEnd: (reason) => this.connection.describeEnd(reason),
      settleText: () => this.updates.settleText(),
      abortPermissions: (reason) => this.requests.abortPermissions(reason),
    });
    this.followUp = new ToolCallFollowUp(this, {
      tellAgent: (n) => this.turns.tellAgent(n),
      waitFor: (w) => this.turns.waitFor(w),
    });
    this.updates = new UpdateRouter(this, {
      starting: () => this.status === "starting",
      sessionId: () => this.sessionId,
      features: this.features,
      terminal: (id) => this.terminals.find(id),
      toolCallChanged: (id) => this.followUp.changed(id),
    });
    this.requests = new AgentRequests(this, {
      sessionId: () => this.sessionId,
      turnSignal: () => this.turns.signal,
      tellAgent: (n) => this.turns.tellAgent(n),
      terminals: this.terminals,
      features: this.features,
      updates: this.updates,
      followUp: this.followUp,
    });
  }

  get lifetime(): AbortSignal {
    return this.life.signal;
  }

  /** Events for the view. */
  readonly emit = (events: TranscriptEvent[]): void => {
    if (events.length > 0) this.opts.onEvents(events);
    if (events.length > 0 && this.state.lateWork && !this.closing) this.turns.watchLateWork();
  };

  /** Visible to the user in the transcript, and in the trace. Secrets never reach either. */
  readonly notice = (text: string, level: NoticeLevel = "info"): void => {
    // Text held back in case it began a secret comes out first: the note lands after it (a
    // crash note drawn between "partial " and "answer" was seen under load).
    this.updates.flushHeld();
    const safe = this.redactor.text(text);
    this.trace.note(level, safe);
    this.emit(this.state.note(safe, level));
  };

  // ---------- what the host asks about ----------

  get agentName(): string {
    return this.opts.agentName;
  }

  get cwd(): string {
    return this.boundary.cwd;
  }

  get title(): string | undefined {
    return this.state.title;
  }

  /** The user's words of this chat's first prompt. */
  get firstPrompt(): string | undefined {
    return this.turns.firstText;
  }

  /** The agent's process id, while it has one. */
  get pid(): number | undefined {
    return this.connection.agent?.pid;
  }

  /** The ACP client, once the agent was started. */
  get client() {
    return this.connection.client;
  }

  /** The agent's process, once started. */
  get agent() {
    return this.connection.agent;
  }

  /** Prompts waiting for the agent to be ready and idle. */
  /** What queued prompts wait for besides the agent (the folder's first snapshot). */
  get waitingFor(): string | undefined {
    return this.turns.waitingFor;
  }

  get queue() {
    return this.turns.queue;
  }

  /** The transcript's blocks. */
  get blocks(): SessionState["blocks"] {
    return this.state.blocks;
  }

  /** How this agent would continue the session after a restart (none: it cannot). */
  continuation(): "resume" | "load" | undefined {
    return this.connection.client?.continuation();
  }

  /**
   * The editor's file tools (src/editor-tools/file-tools.ts): fs/read_text_file's and
   * fs/write_text_file's path, for an agent that reads and writes through the editor's MCP server.
   */
  readonly editorFiles = {
    read: (path: string, line: number | undefined, limit: number | undefined, signal: AbortSignal) =>
      this.requests.toolRead(path, line, limit, signal),
    write: (path: string, content: string, signal: AbortSignal) => this.requests.toolWrite(path, content, signal),
  };

  /** `path` inside the session's boundary (resolved), or a throw that says why not. */
  checkPath(path: string, operation: string): string {
    return this.boundary.check(path, operation);
  }

  /** Text as the user may see it: without the chat's secrets. */
  redact(text: string): string {
    return this.redactor.text(text);
  }

  /** The trace's entries (`:AcpChatLog`). */
  traceEntries(filter?: string): TraceEntry[] {
    return this.trace.list(filter);
  }

  /** A line in the trace from outside the chat (an error in the editor's code, say). */
  traceNote(kind: string, text: string): void {
    this.trace.note(kind, text);
  }

  /** The diffs a tool call carries. */
  toolCallDiffs(toolCallId: string): { path: string; oldText?: string | null; newText: string }[] {
    return (this.state.toolCalls.get(toolCallId)?.content ?? []).flatMap((c) => (c.type === "diff" ? [c] : []));
  }

  /** The chat's terminals, redacted: the client's own, then what the agent streamed in metadata. */
  terminalViews(): TerminalView[] {
    const client = this.terminals.all().map((t) => ({
      id: t.id,
      pid: t.pid,
      output: this.redact(t.output()),
      exit: describeTerminalExit(t.exitStatus),
      failed: terminalFailed(t.exitStatus),
      truncated: t.truncated || undefined,
    }));
    const meta = this.state.metaTerminals().map((t) => ({ ...t, output: this.redact(t.output) }));
    return [...client, ...meta];
  }

  /** A child session (the subagents feature) by its id. */
  child(sessionId: string) {
    return this.features.child(sessionId);
  }

  /** Turns go on from `turn` (the transcript above this chat's, after a restart). */
  continueTurnsFrom(turn: number): void {
    this.state.continueTurnsFrom(turn);
  }

  /** A new title for the session (renamed): shown in the view. */
  retitle(title: string): void {
    this.emit(this.state.setTitle(title));
  }

  // ---------- lifecycle ----------

  /**
   * Spawn the agent, `initialize`, then `session/new` (signing in first if the agent asks), or
   * with `resume` continue an earlier session: `session/resume` when advertised, else
   * `session/load` (which replays the conversation). Throws (after showing why) on failure.
   */
  async start(resume?: { sessionId: string; fork?: boolean; historyTurns?: number }): Promise<void> {
    this.connection.open(this.requests.handlers(), (reason) => void this.onDisconnect(reason));
    try {
      const s = await this.connection.setUp(resume, (id) => (this.sessionId = id));
      this.sessionId = s.sessionId;
      this.forkedFrom = s.forkedFrom;
      this.emit(this.state.applySetup(s.setup as Parameters<SessionState["applySetup"]>[0]));
      if (s.continuedBy) {
        this.updates.flushHeld();
        this.continuedBy = s.continuedBy;
      }
      // Resumed with nothing replayed, below the local history's turns: numbers go on after them.
      if (s.continuedBy === "resume" && resume?.historyTurns) {
        this.state.continueTurnsFrom(Math.max(this.state.turn, resume.historyTurns));
        if (this.opts.checkpoints) this.opts.checkpoints.historyTurns = resume.historyTurns;
      }
      this.status = "ready";
      this.updates.replayEarly();
      this.trace.note("lifecycle", `session ${this.sessionId} ready`);
      this.emit([{ type: "meta" }]);
      this.turns.pump();
    } catch (e) {
      this.status = "failed";
      const why = e instanceof ConnectionClosedError ? await this.connection.describeEnd(e.message) : errorMessage(e);
      this.failure = this.redactor.text(why);
      this.turns.giveBackQueue();
      this.notice(
        `Could not start ${this.opts.agentName}: ${why}\n${this.sessionId !== undefined ? RESTART_HINT : START_HINT}`,
        "error",
      );
      await this.close();
      throw new Error(this.redactor.text(why));
    }
  }

  private setStatus(s: ChatStatus): void {
    this.status = s;
    this.emit([{ type: "meta" }]);
  }

  private ready(): { client: NonNullable<AgentConnection["client"]>; sessionId: string } {
    const client = this.connection.client;
    if (this.status !== "ready" || !client || !this.sessionId)
      throw new Error(`The chat is not ready (${this.failure ?? this.status})`);
    return { client, sessionId: this.sessionId };
  }

  /** Stop the agent and every terminal; idempotent. */
  async close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.life.abort(new Error("chat closed"));
    this.turns.dispose();
    this.opts.clientMcpServer?.close();
    const wasFailed = this.status === "failed";
    await this.connection.closeSession(this.sessionId);
    await Promise.all([this.connection.end(), this.terminals.closeAll()]);
    this.trace.note("lifecycle", "closed");
    this.trace.flush();
    this.status = wasFailed ? "failed" : "closed";
  }

  /** Synchronous kill, for a host that is exiting. */
  killNow(): void {
    this.opts.clientMcpServer?.close();
    this.terminals.closeAllNow();
    this.connection.killNow();
  }

  private async onDisconnect(reason: string): Promise<void> {
    this.requests.abortPermissions(reason);
    if (this.closing) return;
    // The agent is gone, and with it the editor's MCP server it started: no token stays valid
    // while the chat waits to be restarted (a restart makes a new channel).
    this.opts.clientMcpServer?.close();
    if (this.status === "ready") {
      this.failure = reason;
      this.status = "failed";
      this.turns.giveBackQueue();
      this.emit([{ type: "meta" }]);
      const why = await this.connection.describeEnd(reason);
      this.failure = this.redactor.text(why);
      // A running turn reports the end itself (its prompt request fails); otherwise say it here.
      if (!this.turns.running) this.notice(`The agent stopped: ${why}\n${RESTART_HINT}`, "error");
      this.emit([{ type: "meta" }]);
      // Without its connection the agent is of no use; one that closed its output but kept
      // running (or left children behind) must not linger.
      await Promise.all([this.terminals.closeAll(), this.connection.agentEnd()]);
    }
  }

  // ---------- the user's requests ----------

  /**
   * A prompt from the user: sent now when the agent is ready and idle, else queued and sent in
   * order once it is. Refused (the caller keeps the text) when the agent is gone.
   */
  submit(text: string, context: ContextItem[], unsaved?: string[]): { queued: boolean } {
    if (this.status === "failed")
      throw new Error(
        `${this.opts.agentName} stopped (${this.failure ?? "unknown reason"}): restart it with :AcpChat; your prompt stays in the prompt buffer`,
      );
    if (this.status === "closed") throw new Error("this chat is closed");
    return { queued: this.turns.submit(text, context, unsaved) };
  }

  /** Send a prompt; resolves with the stop reason when the turn ends (never rejects). */
  prompt(prompt: ContentBlock[], before: ContentBlock[] = []): Promise<StopReason | "error"> {
    return this.turns.prompt(prompt, before);
  }

  /** ACP cancel of the running turn; the prompts not sent yet come back. */
  cancel(): QueuedPrompt[] {
    return this.turns.cancel();
  }

  /** Checkpoints turned off (no git, a folder too large): said once, when known. */
  sayCheckpointsOff(): void {
    this.turns.sayCheckpointsOff();
  }

  /** What a step (a turn, a take-back, a rewind) changed, as one block (none when nothing did). */
  showStep(step: ChangeStep): void {
    this.turns.showStep(step);
  }

  /** `logout` (when the agent advertises auth.logout): signed out; the next prompt signs in again. */
  async logout(): Promise<void> {
    const { client } = this.ready();
    if (!client.supports("logout"))
      throw new Error(`${this.opts.agentName} cannot sign out (it does not advertise agentCapabilities.auth.logout)`);
    await client.logout();
    this.trace.note("auth", "logout");
    this.notice(`Signed out of ${this.opts.agentName}. The next prompt asks you to sign in again.`);
  }

  /** `session/set_mode`; the mode is shown at once (the agent may confirm with current_mode_update). */
  async setMode(modeId: string): Promise<void> {
    const { client, sessionId } = this.ready();
    await client.setMode(sessionId, modeId);
    this.emit(this.state.apply({ sessionUpdate: "current_mode_update", currentModeId: modeId }));
  }

  /** `session/set_config_option` (models are options of category "model"); the answer carries the new options. */
  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    const { client, sessionId } = this.ready();
    const res = (await client.setConfigOption(sessionId, configId, value)) as { configOptions?: unknown } | null;
    const update = parseSessionUpdate({ sessionUpdate: "config_option_update", configOptions: res?.configOptions });
    // An agent that answers without the options: reflect the one value we set.
    if (update.sessionUpdate !== "unknown") this.emit(this.state.apply(update));
    else this.emit(this.state.setConfigValue(configId, value));
  }

  /** A config option by the user's words: the "__legacy_model" pseudo-option reaches agents with a models list. */
  async setOption(option: string, value: string | boolean): Promise<void> {
    if (option === "__legacy_model") return this.setModel(String(value));
    const opt = this.state.configOptions.find((o) => o.id === option);
    if (!opt) throw new Error(`acpchat: ${this.opts.agentName} has no option "${option}"`);
    if (opt.type === "boolean" && typeof value !== "boolean") value = value === "true" || value === "on";
    await this.setConfigOption(option, value);
  }

  /** Legacy `session/set_model`, for agents that sent a `models` list (gemini-cli). */
  async setModel(modelId: string): Promise<void> {
    const { client, sessionId } = this.ready();
    await client.setModel(sessionId, modelId, this.state.legacyModels !== undefined);
    this.emit(this.state.setLegacyModel(modelId));
  }

  /** Per-agent defaults from the config: mode, model, other options. Failures are noted, not fatal. */
  async applyDefaults(agent: ChatDefaults): Promise<void> {
    const s = this.state;
    try {
      if (agent.mode && s.modes && s.modes.currentModeId !== agent.mode) await this.setMode(agent.mode);
      if (agent.model) {
        const opt = s.configOptions.find((o) => o.category === "model");
        if (opt) await this.setConfigOption(opt.id, agent.model);
        else if (s.legacyModels) await this.setModel(agent.model);
      }
      for (const [k, v] of Object.entries(agent.options ?? {})) await this.setConfigOption(k, v);
    } catch (e) {
      this.notice(`Could not apply the configured defaults for ${agent.name}: ${errorMessage(e)}`, "warn");
    }
  }

  /**
   * Cancel a subagent's current work (`session/cancel` with the child's id): only when the agent
   * granted it (the child's capabilities.cancel); the child session stays, and may work again.
   */
  cancelChild(sessionId: string): void {
    const found = this.features.child(sessionId);
    if (!found) throw new Error(`no subagent ${sessionId} in this chat`);
    const name = found.block.title ?? sessionId;
    if (!found.block.canCancel)
      throw new Error(
        `${this.opts.agentName} does not let the client cancel ${name} (its capabilities.cancel is not set)`,
      );
    const client = this.connection.client;
    if (this.status !== "ready" || !client) throw new Error(`the chat is not ready (${this.failure ?? this.status})`);
    client.cancel(sessionId);
    this.notice(`Asked ${name} to stop its current work (session/cancel).`);
  }

  /** The session `:AcpChatFork` forks: the chat's, when its agent can fork (else why not). */
  forkSource(): { sessionId: string; title?: string } {
    requireFeature(this.opts.features ?? {}, "fork");
    const client = this.connection.client;
    if (this.status !== "ready" || !this.sessionId || !client)
      throw new Error(`the chat is not ready (${this.failure ?? this.status})`);
    if (!client.supports("fork"))
      throw new Error(`${this.opts.agentName} cannot fork sessions (it does not advertise sessionCapabilities.fork)`);
    return { sessionId: this.sessionId, title: this.state.title };
  }
}
