/**
 * One chat: an agent process, its ACP connection and one session, with the state that the view
 * draws. It enforces the session's boundary, serialises permission questions, runs terminals,
 * and implements ACP cancel exactly (see `cancel`). Editor-agnostic: the editor is reached
 * through the EditorPort and the `onEvents` sink.
 */
import { AgentProcess, describeExit, type AgentCommand, type AgentExit } from "../agent/agent-process.js";
import { AcpClient, resolveMcpServers, type AgentRequestHandlers, type ClientFeatures, type McpServerConfig, type TurnUsage } from "../client/acp-client.js";
import type { EditorPort } from "../client/editor-port.js";
import { ConnectionClosedError, ErrorCodes, RpcError, errorMessage } from "../protocol/errors.js";
import { JsonRpcPeer, type HandlerContext } from "../protocol/jsonrpc.js";
import { parseSessionUpdate, type ContentBlock, type PermissionOutcome, type RequestPermissionRequest, type SessionUpdate, type StopReason } from "../protocol/schema.js";
import { TerminalManager, type Terminal } from "../terminals/terminal-manager.js";
import { describeTerminalExit } from "../terminals/exit-status.js";
import { Redactor, commandSecrets } from "../trace/redact.js";
import { TraceLog } from "../trace/trace-log.js";
import { PathBoundary } from "../workspace/path-boundary.js";
import { SessionState, exitFailed, noticeLevel, type TranscriptEvent } from "./session-state.js";
import type { PermissionRules } from "./permission-rules.js";
import { PermissionQueue } from "./permission-queue.js";
import { ChunkRedactor } from "./chunk-redactor.js";
import { abortable, linkedController } from "./abort.js";
import { PromptQueue, type QueuedPrompt } from "./prompt-queue.js";
import { buildPrompt, type ContextItem } from "./prompt-builder.js";
import { UnstableSession } from "./unstable.js";
import { isUnstableUpdate, type UnstableSessionUpdate } from "../protocol/unstable-schema.js";
import { AttachmentError, DEFAULT_MAX_BYTES, humanSize } from "./attachments.js";
import type { ChangeStep, TurnCheckpoints } from "../checkpoints/turns.js";

export interface ChatOptions {
  agentName: string;
  command: AgentCommand;
  /** The session's working directory: the boundary of every fs and terminal request. */
  cwd: string;
  /** More directories the user allows the agent to touch. */
  extraRoots?: string[];
  /** MCP servers for the agent, as configured (`$VAR`s expanded when the chat starts). */
  mcpServers?: McpServerConfig[];
  port: EditorPort;
  onEvents: (events: TranscriptEvent[]) => void;
  traceFile?: string;
  timeouts?: { initializeMs?: number; newSessionMs?: number; cancelMs?: number; requestMs?: number };
  /** The client's cap on a terminal's retained output (whatever the agent asks for). */
  terminal?: { outputLimitBytes?: number };
  features?: ClientFeatures;
  /** Client-side permission rules (configured and remembered). */
  permissionRules?: PermissionRules;
  clientInfo?: { name: string; version: string };
  /** A queued prompt's turn ended. */
  onTurnEnd?: (stop: StopReason | "error") => void;
  /** Queued prompts that can no longer be sent (the agent is gone): the user gets them back. */
  onTakeBack?: (prompts: QueuedPrompt[]) => void;
  /** Images and audio in prompts: the size limit; `owns`: the chat's own files (clipboard images), allowed outside the boundary. */
  media?: { maxBytes?: number; owns?: (path: string) => boolean };
  /** A notice from the agent (`notice` update), for the editor's notifications; redacted already. */
  onNotify?: (message: string, level: "info" | "warn" | "error") => void;
  /** An MCP server the client provides itself (the editor's tools), added to every session's servers. */
  clientMcpServer?: ClientMcpServer;
  /** Turn checkpoints (src/checkpoints/): kept by the host across restarts of the agent. */
  checkpoints?: TurnCheckpoints;
}

/** An MCP server of the client's own (src/editor-tools/channel.ts): closed with the chat. */
export interface ClientMcpServer {
  readonly mcpServer: { name: string; command: string; args: string[]; env: { name: string; value: string }[] };
  /** Values that no trace, log or transcript may show (its token, its socket's path). */
  readonly secrets: string[];
  readonly ready: Promise<void>;
  close(): void;
}

/** What the user does about a dead agent: said wherever its death is. */
export const RESTART_HINT = "Run :AcpChat to start it again (the session continues when the agent can resume it); your prompt stays in the prompt window.";
/** For an agent that never had a session: there is nothing to continue. */
export const START_HINT = "Run :AcpChat to try again; your prompt stays in the prompt window.";

export type ChatStatus = "starting" | "signing_in" | "ready" | "failed" | "closed";

export class Chat {
  readonly state: SessionState;
  readonly trace: TraceLog;
  readonly terminals: TerminalManager;
  readonly boundary: PathBoundary;
  readonly redactor: Redactor;
  /** Prompts waiting for the agent to be ready and idle. */
  readonly queue = new PromptQueue();
  status: ChatStatus = "starting";
  sessionId: string | undefined;
  agent: AgentProcess | undefined;
  client: AcpClient | undefined;
  /** Why the chat failed or the agent ended, for the user. */
  failure: string | undefined;
  /** How an earlier session was continued: resume (the agent replays nothing) or load. */
  continuedBy: "resume" | "load" | undefined;
  private peer: JsonRpcPeer | undefined;
  private readonly permissions: PermissionQueue;
  private readonly chunkRedactor: ChunkRedactor;
  private readonly permissionAborts = new Set<AbortController>();
  private turnAbort: AbortController | undefined;
  private cancelTimer: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private ending: Promise<AgentExit | undefined> | undefined;
  private early: { sessionId: string; update: SessionUpdate | UnstableSessionUpdate }[] = [];
  private settleTurn: ((r: StopReason | "error") => void) | undefined;
  /** Tool calls whose end was checkpointed. */
  private readonly checkpointed = new WeakSet<object>();
  /** Work after tool calls that the turn's end waits for (partial edits put back). */
  private readonly toolEnds = new Set<Promise<void>>();
  /** What the agent hears with the next prompt (besides what checkpoints add). */
  private readonly agentNotes: string[] = [];
  /** Files the agent read through fs/read_text_file (path: when, a counter) and read tool calls
   * (when first seen; -1 once checked): an agent's own reads are told apart from the client's. */
  private readonly reads = { seq: 0, byClient: new Map<string, number>(), calls: new WeakMap<object, number>() };
  /** Tool calls whose files were checked against the disk. */
  private readonly synced = new WeakSet<object>();
  /** The queued prompt being prepared (its files read): nothing else starts meanwhile, and a
   * cancel or a crash in that window gives it back like the rest of the queue. */
  private preparing: QueuedPrompt | undefined;
  /** Aborted when the chat closes: withdraws questions that outlive a turn (sign-in, disk sync). */
  private readonly lifetime = new AbortController();
  /** The configured MCP servers, expanded; and what to tell the user about them. */
  private readonly mcp: ReturnType<typeof resolveMcpServers>;
  /** Plans by id, child sessions and session messages (option `unstable`; src/session/unstable.ts). */
  readonly unstable: UnstableSession;
  /** The session this one was forked from (`:AcpChatFork`). */
  forkedFrom: string | undefined;

  constructor(readonly opts: ChatOptions) {
    this.state = new SessionState(opts.agentName);
    this.mcp = resolveMcpServers(opts.mcpServers ?? [], opts.cwd, process.env);
    // The agent's environment and the keys on its command line (`--api-key …`) are secrets, and
    // so are the MCP servers' environment and header values.
    this.redactor = new Redactor([...commandSecrets(opts.command), ...this.mcp.secrets, ...(opts.clientMcpServer?.secrets ?? [])]);
    this.trace = new TraceLog(this.redactor, opts.traceFile);
    this.boundary = new PathBoundary(opts.cwd, opts.extraRoots);
    this.terminals = new TerminalManager((t) => this.onTerminal(t), { outputCapBytes: opts.terminal?.outputLimitBytes });
    this.chunkRedactor = new ChunkRedactor(this.redactor);
    this.unstable = new UnstableSession(this.state, this.redactor);
    this.permissions = new PermissionQueue({ port: opts.port, redactor: this.redactor, rules: opts.permissionRules, notice: (t) => this.notice(t) });
  }

  private emit(events: TranscriptEvent[]): void {
    if (events.length > 0) this.opts.onEvents(events);
  }

  /** Visible to the user in the transcript, and in the trace. Secrets never reach either. */
  notice(text: string, level: "info" | "warn" | "error" = "info"): void {
    // Text held back in case it began a secret comes out first: the note lands after it (a
    // crash note drawn between "partial " and "answer" was seen under load).
    this.flushHeld();
    const safe = this.redactor.text(text);
    this.trace.note(level, safe);
    this.emit(this.state.note(safe, level));
  }

  /**
   * Spawn the agent, `initialize`, then `session/new` (signing in first if the agent asks), or
   * with `resume` continue an earlier session: `session/resume` when advertised, else
   * `session/load` (which replays the conversation). Throws (after showing why) on failure.
   */
  async start(resume?: { sessionId: string; fork?: boolean }): Promise<void> {
    const { command } = this.opts;
    this.trace.note("lifecycle", `starting ${[command.command, ...(command.args ?? [])].join(" ")} in ${command.cwd ?? this.opts.cwd}`);
    const agent = new AgentProcess({ ...command, cwd: command.cwd ?? this.opts.cwd }, (text) => this.trace.note("stderr", text));
    this.agent = agent;
    const peer = new JsonRpcPeer(agent.stdout, agent.stdin, {
      onFrame: (f) => this.trace.frame(f),
      onProblem: (m) => {
        this.trace.note("problem", m);
        // A message over the line limit (a large image or audio clip, say) is dropped: not in silence.
        const dropped = /^dropped a line (?:of (\d+) bytes \(limit (\d+)\)|longer than (\d+) bytes)/.exec(m);
        if (dropped) {
          const size = dropped[1] ? `of ${humanSize(Number(dropped[1]))}` : "";
          const limit = humanSize(Number(dropped[2] ?? dropped[3]));
          this.notice(`The agent sent a message ${size ? `${size}, ` : ""}over the limit of ${limit} for one message: it was dropped (an image or audio clip this large cannot be shown).`, "warn");
        }
      },
    });
    this.peer = peer;
    this.client = new AcpClient(peer, this.handlers(), this.opts.features ?? {}, (m) => this.trace.note("problem", m), this.opts.timeouts?.requestMs);
    peer.onClose((reason) => void this.onDisconnect(reason));
    agent.exited.then((exit) => {
      // Give stdout a moment to drain before declaring the connection dead.
      setTimeout(() => peer.close(describeExit(command, exit, agent.stderr.lastLines(5))), 50);
    });
    try {
      await this.client.initialize(this.opts.clientInfo ?? { name: "acp-chat.nvim", version: "0.1.0" }, { initializeMs: this.opts.timeouts?.initializeMs ?? 60_000 });
      const setupOpts = { mcpServers: [...this.mcpServersToSend(), ...(await this.clientMcpServers())], additionalDirectories: this.opts.extraRoots };
      if (resume?.fork) {
        // `:AcpChatFork` (unstable session/fork): a new session with the context of that one.
        const client = this.client;
        if (!client.supports("fork")) throw new Error(`${this.opts.agentName} cannot fork sessions (it does not advertise sessionCapabilities.fork)`);
        const res = await this.withAuth(() => client.forkSession(resume.sessionId, this.boundary.cwd, { timeoutMs: this.opts.timeouts?.newSessionMs ?? 120_000, ...setupOpts }));
        this.sessionId = res.sessionId;
        this.forkedFrom = resume.sessionId;
        this.emit(this.state.applySetup(res));
      } else if (resume) {
        const client = this.client;
        const how = client.continuation();
        if (!how) throw new Error(`${this.opts.agentName} cannot resume or load sessions (it advertises neither session/resume nor loadSession)`);
        // Known up front: session/load replays the conversation before it answers.
        this.sessionId = resume.sessionId;
        const setup = await this.withAuth(() => (how === "resume" ? client.resumeSession(resume.sessionId, this.boundary.cwd, setupOpts) : client.loadSession(resume.sessionId, this.boundary.cwd, setupOpts)));
        this.emit(this.state.applySetup(setup));
        this.flushHeld();
        this.continuedBy = how;
      } else {
        const client = this.client;
        const res = await this.withAuth(() => client.newSession(this.boundary.cwd, { timeoutMs: this.opts.timeouts?.newSessionMs ?? 120_000, ...setupOpts }));
        this.sessionId = res.sessionId;
        this.emit(this.state.applySetup(res));
      }
      this.status = "ready";
      for (const e of this.early.splice(0)) {
        if (isUnstableUpdate(e.update)) this.onUnstableUpdate(e.sessionId, e.update);
        else this.onUpdate(e.sessionId, e.update);
      }
      this.trace.note("lifecycle", `session ${this.sessionId} ready`);
      this.emit([{ type: "meta" }]);
      this.pump();
    } catch (e) {
      this.status = "failed";
      const why = e instanceof ConnectionClosedError ? await this.describeEnd(e.message) : errorMessage(e);
      this.failure = this.redactor.text(why);
      this.giveBackQueue();
      this.notice(`Could not start ${this.opts.agentName}: ${why}\n${this.sessionId !== undefined ? RESTART_HINT : START_HINT}`, "error");
      await this.close();
      throw new Error(this.redactor.text(why));
    }
  }

  /**
   * The MCP servers this agent can take (stdio always; http and sse when it advertises them);
   * each one left out, and each problem with the configuration, is a note in the transcript.
   */
  private mcpServersToSend() {
    for (const p of this.mcp.problems) this.notice(p, "warn");
    const { send, skipped } = this.client!.mcpServers(this.mcp.servers);
    for (const s of skipped) {
      const type = "type" in s ? s.type : "stdio";
      this.notice(`MCP server "${s.name}" (${type}) not passed: ${this.opts.agentName} does not accept ${type} MCP servers (agentCapabilities.mcpCapabilities.${type}).`, "warn");
    }
    if (send.length > 0) this.trace.note("lifecycle", `MCP servers: ${send.map((s) => s.name).join(", ")}`);
    return send;
  }

  /** The client's own MCP server, unless it failed to start or a configured one took its name. */
  private async clientMcpServers() {
    const own = this.opts.clientMcpServer;
    if (!own) return [];
    if (this.mcp.servers.some((s) => s.name === own.mcpServer.name)) {
      this.notice(`The editor's tools (MCP server "${own.mcpServer.name}") are not passed: a configured MCP server has the same name.`, "warn");
      return [];
    }
    try {
      await own.ready;
      return [own.mcpServer];
    } catch (e) {
      this.notice(`The editor's tools are not available: ${errorMessage(e)}`, "warn");
      return [];
    }
  }

  /**
   * A prompt from the user: sent now when the agent is ready and idle, else queued and sent in
   * order once it is. Refused (the caller keeps the text) when the agent is gone.
   */
  submit(text: string, context: ContextItem[]): { queued: boolean } {
    if (this.status === "failed") throw new Error(`${this.opts.agentName} stopped (${this.failure ?? "unknown reason"}): restart it with :AcpChat; your prompt stays in the prompt buffer`);
    if (this.status === "closed") throw new Error("this chat is closed");
    this.queue.add(text, context);
    const queued = !this.pump();
    this.emit([{ type: "meta" }]);
    return { queued };
  }

  /** Start the next queued prompt if the agent can take it; true when one was started. */
  private pump(): boolean {
    if (this.status !== "ready" || this.state.turnState !== "idle" || this.preparing) return false;
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

  private async runQueued(p: QueuedPrompt): Promise<void> {
    let blocks: ContentBlock[];
    let notes: string[];
    try {
      // Files are read as the agent would read them: the user's buffer (unsaved edits) first.
      const read = async (path: string) => (await this.opts.port.readTextFile({ sessionId: this.sessionId ?? "", path }, new AbortController().signal)).content;
      // Images and audio go as such only to an agent that takes them (promptCapabilities).
      const caps = this.client?.capabilities.promptCapabilities;
      const media = { image: caps?.image === true, audio: caps?.audio === true, maxBytes: this.opts.media?.maxBytes ?? DEFAULT_MAX_BYTES, agent: this.opts.agentName, owns: this.opts.media?.owns };
      ({ blocks, notes } = await buildPrompt(p.text, p.context, this.boundary, this.client?.supports("embeddedContext") ?? false, read, media, (s) => this.redactor.text(s)));
    } catch (e) {
      if (this.preparing !== p) return; // taken back meanwhile
      this.preparing = undefined;
      // An image or audio file that cannot be attached leaves the context it comes back with
      // (else sending again would fail again); the text comes back whole.
      const refused = e instanceof AttachmentError ? e.item : undefined;
      if (refused !== undefined) p.context = p.context.filter((c) => !(c.type === "file" && c.path === refused));
      this.notice(`Could not prepare the prompt: ${errorMessage(e)}${refused !== undefined ? " (taken out of the prompt's context)" : ""}`, "error");
      this.opts.onTakeBack?.([p]);
      this.pump();
      return;
    }
    // The folder as it is before the agent gets the prompt (waited for a moment at most).
    const cp = this.opts.checkpoints;
    const step = cp?.on && this.preparing === p ? await cp.beginTurn(this.state.turn + 1) : undefined;
    // Turned off since the chat started (its first snapshot found the folder too large, say).
    if (cp && !step) this.sayCheckpointsOff();
    // Cancelled, or the agent died, while its files were read: it was given back already.
    if (this.preparing !== p) {
      if (step) cp?.abandonTurn(step);
      return;
    }
    this.preparing = undefined;
    // What the user took back since the agent's last turn: the agent hears it in words.
    const told = [...this.agentNotes.splice(0).map((n) => `[acp-chat.nvim] Note: ${n}.`), cp?.takeNotes()].filter(Boolean).join("\n") || undefined;
    const turn = this.prompt(blocks, told ? [{ type: "text", text: `${told}\n\n` }] : []);
    if (told) this.notice(`Told the agent: ${told.replace(/\[acp-chat.nvim\] /g, "")}`);
    if (step?.late) this.notice("The snapshot of the folder before this turn was not done when the prompt went (a large folder's first snapshot takes a while): this turn's changes are counted from the last checkpoint taken, or may miss what the agent changed in its first moments.", "warn");
    // Below the user's words (the turn began synchronously): an attachment sent as a link, say.
    for (const n of notes) this.notice(n, "warn");
    const stop = await turn;
    await Promise.all([...this.toolEnds]);
    // The turn is over now; its changes block follows once the end snapshot is in (the next
    // turn's start snapshot queues behind it: the store takes snapshots in order).
    if (step) void this.showChanges(step);
    this.opts.onTurnEnd?.(stop);
    this.pump();
  }

  /** The turn's tokens (unstable PromptResponse.usage): a line at its end, and in status(). */
  private showUsage(u: TurnUsage): void {
    this.state.turnUsage = { ...u } as Record<string, number>;
    const n = (x: number) => (x >= 10_000 ? `${Math.round(x / 1000)}k` : x >= 1000 ? `${(x / 1000).toFixed(1)}k` : String(x));
    const parts = [
      u.inputTokens !== undefined && `${n(u.inputTokens)} in`,
      u.outputTokens !== undefined && `${n(u.outputTokens)} out`,
      u.cachedReadTokens !== undefined && `${n(u.cachedReadTokens)} cached`,
      u.cachedWriteTokens !== undefined && `${n(u.cachedWriteTokens)} cache written`,
      u.thoughtTokens !== undefined && `${n(u.thoughtTokens)} thought`,
      u.totalTokens !== undefined && `${n(u.totalTokens)} total`,
    ].filter(Boolean);
    this.notice(`Tokens this turn: ${parts.join(" · ")}`);
    this.emit([{ type: "meta" }]);
  }

  /** `logout` (when the agent advertises auth.logout): signed out; the next prompt signs in again. */
  async logout(): Promise<void> {
    const { client } = this.ready();
    if (!client.supports("logout")) throw new Error(`${this.opts.agentName} cannot sign out (it does not advertise agentCapabilities.auth.logout)`);
    await client.logout();
    this.trace.note("auth", "logout");
    this.notice(`Signed out of ${this.opts.agentName}. The next prompt asks you to sign in again.`);
  }

  /** Checkpoints turned off (no git, a folder too large): said once, when known. */
  sayCheckpointsOff(): void {
    const why = this.opts.checkpoints?.offNote();
    if (why) this.notice(why, "warn");
  }

  /** What a step (a turn, a take-back, a rewind) changed, as one block (none when nothing did). */
  showStep(step: ChangeStep): void {
    const title = `${step.label[0]!.toUpperCase()}${step.label.slice(1)}`;
    if (step.changes.length > 0) this.emit(this.state.changes(step.id, title, step.changes, step.turn));
  }

  /** The turn's changes, as one block at its end (none when nothing changed). */
  private async showChanges(step: ChangeStep): Promise<void> {
    try {
      await this.opts.checkpoints!.endTurn(step);
      this.showStep(step);
    } catch (e) {
      this.trace.note("problem", `checkpoint at the end of ${step.label}: ${errorMessage(e)}`);
    }
    this.sayCheckpointsOff();
  }

  /** Queued prompts go back to the user (the agent cannot take them). */
  private giveBackQueue(): void {
    const back = this.takeUnsent();
    if (back.length > 0) {
      this.opts.onTakeBack?.(back);
      this.emit([{ type: "meta" }]);
    }
  }

  /**
   * Run a session call; if the agent answers "auth required" (-32000), offer its auth methods,
   * sign in (or run a terminal method for the user) and try again.
   */
  private async withAuth<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (e) {
        if (!(e instanceof RpcError) || e.code !== ErrorCodes.AuthRequired || attempt >= 3) throw e;
        const client = this.client!;
        const methods = client.authMethods;
        if (methods.length === 0 || !this.opts.port.chooseAuthMethod) throw new Error(`${this.opts.agentName} needs you to sign in (${e.message}), and it offers no method this client can use`);
        this.notice(`${this.opts.agentName} asks you to sign in.`);
        const was = this.status;
        this.setStatus("signing_in");
        const signal = this.lifetime.signal;
        const id = await this.opts.port.chooseAuthMethod(methods, signal);
        const method = methods.find((m) => m.id === id);
        if (!method) throw new Error(`sign-in declined: ${this.opts.agentName} needs you to sign in before it can start`);
        if (method.type === "terminal") {
          if (!this.opts.port.runAuthTerminal) throw new Error(`sign-in method "${method.name}" needs a terminal`);
          const cmd = this.opts.command;
          await this.opts.port.runAuthTerminal(
            { command: cmd.command, args: [...(cmd.args ?? []), ...(method.args ?? [])], env: { ...cmd.env, ...method.env }, cwd: this.boundary.cwd, title: method.name },
            signal,
          );
        } else {
          await client.authenticate(method.id);
        }
        this.trace.note("lifecycle", `signed in with ${method.id}`);
        // Back to what it was: starting (a session being set up), or ready (a prompt after a logout).
        this.setStatus(was === "ready" ? "ready" : "starting");
      }
    }
  }

  private setStatus(s: ChatStatus): void {
    this.status = s;
    this.emit([{ type: "meta" }]);
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
    if (update.sessionUpdate !== "unknown") this.emit(this.state.apply(update));
    else {
      // An agent that answers without the options: reflect the one value we set.
      for (const o of this.state.configOptions) if (o.id === configId) (o as { currentValue: unknown }).currentValue = value;
      this.emit([{ type: "meta" }]);
    }
  }

  /** Legacy `session/set_model`, for agents that sent a `models` list (gemini-cli). */
  async setModel(modelId: string): Promise<void> {
    const { client, sessionId } = this.ready();
    const legacy = this.state.legacyModels;
    await client.setModel(sessionId, modelId, legacy !== undefined);
    if (legacy) this.state.legacyModels = { ...legacy, currentModelId: modelId };
    this.emit([{ type: "meta" }]);
  }

  private ready(): { client: AcpClient; sessionId: string } {
    if (this.status !== "ready" || !this.client || !this.sessionId) throw new Error(`The chat is not ready (${this.failure ?? this.status})`);
    return { client: this.client, sessionId: this.sessionId };
  }

  /**
   * The connection is gone: give the agent a moment to exit on its own (its exit status is what
   * the user needs to know); one that keeps running without a connection is stopped. Resolves
   * with how it exited by itself, or undefined when acp-chat had to stop it.
   */
  private agentEnd(): Promise<AgentExit | undefined> {
    this.ending ??= (async () => {
      const agent = this.agent;
      if (!agent) return undefined;
      const exit = agent.exit ?? (await Promise.race([agent.exited, new Promise<undefined>((r) => setTimeout(r, 500))]));
      if (exit) return exit;
      await agent.kill();
      return undefined;
    })();
    return this.ending;
  }

  /** Why the connection ended: the agent's exit status and stderr tail when it has exited. */
  private async describeEnd(reason: string): Promise<string> {
    const agent = this.agent;
    if (!agent) return reason;
    const exit = await this.agentEnd();
    if (!exit) return `${reason} (the agent was still running; acp-chat stopped it)`;
    return describeExit(this.opts.command, exit, agent.stderr.lastLines(5));
  }

  /** Send a prompt; resolves with the stop reason when the turn ends (never rejects). */
  async prompt(prompt: ContentBlock[], before: ContentBlock[] = []): Promise<StopReason | "error"> {
    let ready: { client: AcpClient; sessionId: string };
    try {
      ready = this.ready();
    } catch (e) {
      this.notice(`${errorMessage(e)}.`, "error");
      return "error";
    }
    if (this.state.turnState !== "idle") {
      this.notice("A turn is already running: wait for it or cancel it first.", "warn");
      return "error";
    }
    this.emit(this.state.beginTurn(prompt));
    this.turnAbort = new AbortController();
    const local = new Promise<StopReason | "error">((resolve) => (this.settleTurn = resolve));
    let result: StopReason | "error";
    try {
      // After :AcpChatLogout the agent answers "auth required": sign in, and the prompt goes again.
      const turn = this.withAuth(() => ready.client.promptTurn(ready.sessionId, [...before, ...prompt])).then((r) => {
        if (r.usage) this.showUsage(r.usage);
        return r.stopReason;
      });
      result = await Promise.race([turn, local]);
    } catch (e) {
      result = "error";
      const why = e instanceof ConnectionClosedError ? `The agent stopped: ${await this.describeEnd(e.message)}\n${RESTART_HINT}` : `The turn failed: ${errorMessage(e)}`;
      this.notice(why, "error");
    }
    this.finishTurn(result);
    return result;
  }

  private finishTurn(result: StopReason | "error"): void {
    this.redactBlocks();
    if (this.cancelTimer) clearTimeout(this.cancelTimer);
    this.cancelTimer = undefined;
    this.settleTurn = undefined;
    this.turnAbort?.abort(new Error("turn ended"));
    this.turnAbort = undefined;
    this.emit(this.state.endTurn(result === "error" ? undefined : result));
  }

  /**
   * ACP cancel: notify the agent, mark unfinished tool calls cancelled, answer open permission
   * questions `cancelled`, and keep waiting for the prompt's response; an agent that ignores
   * the cancel for `cancelMs` has its turn ended by the client, with a note saying so.
   */
  cancel(): QueuedPrompt[] {
    const back = this.takeUnsent();
    if (back.length > 0) this.emit([{ type: "meta" }]);
    this.cancelTurn();
    return back;
  }

  private cancelTurn(): void {
    if (!this.client || !this.sessionId || this.state.turnState === "idle" || this.state.turnState === "cancelling") return;
    this.emit(this.state.beginCancel());
    this.turnAbort?.abort(new Error("turn cancelled"));
    for (const c of this.permissionAborts) c.abort(new Error("turn cancelled"));
    this.client.cancel(this.sessionId);
    const ms = this.opts.timeouts?.cancelMs ?? 10_000;
    this.cancelTimer = setTimeout(() => {
      if (this.state.turnState !== "cancelling") return;
      this.notice(`The agent did not end the turn within ${ms / 1000} s of the cancel; the turn is marked cancelled.`, "warn");
      this.settleTurn?.("cancelled");
    }, ms);
  }

  /** Stop the agent and every terminal; idempotent. */
  async close(): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = this.doClose();
    return this.closing;
  }

  private async doClose(): Promise<void> {
    this.lifetime.abort(new Error("chat closed"));
    this.opts.clientMcpServer?.close();
    const wasFailed = this.status === "failed";
    if (this.client && this.sessionId && this.client.supports("close") && !this.peer?.closed) {
      await Promise.race([this.client.closeSession(this.sessionId).catch(() => undefined), new Promise((r) => setTimeout(r, 300))]);
    }
    this.peer?.close("chat closed");
    await Promise.all([this.agent?.kill(), this.terminals.closeAll()]);
    this.trace.note("lifecycle", "closed");
    this.trace.flush();
    this.status = wasFailed ? "failed" : "closed";
  }

  /** Synchronous kill, for a host that is exiting. */
  killNow(): void {
    this.opts.clientMcpServer?.close();
    this.terminals.closeAllNow();
    this.agent?.killNow();
  }

  private async onDisconnect(reason: string): Promise<void> {
    for (const c of this.permissionAborts) c.abort(new Error(reason));
    if (this.closing) return;
    // The agent is gone, and with it the editor's MCP server it started: no token stays valid
    // while the chat waits to be restarted (a restart makes a new channel).
    this.opts.clientMcpServer?.close();
    if (this.status === "ready") {
      this.failure = reason;
      this.status = "failed";
      this.giveBackQueue();
      this.emit([{ type: "meta" }]);
      const why = await this.describeEnd(reason);
      this.failure = this.redactor.text(why);
      // A running turn reports the end itself (its prompt request fails); otherwise say it here.
      if (!this.settleTurn) this.notice(`The agent stopped: ${why}\n${RESTART_HINT}`, "error");
      this.emit([{ type: "meta" }]);
      // Without its connection the agent is of no use; one that closed its output but kept
      // running (or left children behind) must not linger.
      await Promise.all([this.terminals.closeAll(), this.agentEnd()]);
    }
  }

  // ---------- the agent's requests ----------

  private handlers(): AgentRequestHandlers {
    return {
      sessionUpdate: (sessionId, update) => this.onUpdate(sessionId, update),
      requestPermission: (req, ctx) => this.askPermission(req, ctx),
      readTextFile: async (req, ctx) => {
        const path = this.inside(req.path, "read");
        this.reads.byClient.set(path, ++this.reads.seq);
        return this.opts.port.readTextFile({ ...req, path }, this.linked(ctx));
      },
      writeTextFile: async (req, ctx) => {
        const path = this.inside(req.path, "write");
        const result = await this.opts.port.writeTextFile({ ...req, path }, this.linked(ctx));
        if (!result) return {};
        // What was written (a review may have accepted part of it): the agent should know.
        const meta = { _meta: { "acp-chat.nvim/write": result } };
        if (result.written !== "buffer" || result.saved) return meta;
        // Not on disk: the agent's next command would run on the old file. Said in words
        // (agents read a result's text, not its _meta), and in the transcript.
        this.notice(`The change to ${path} waits in its buffer, unsaved: commands see the old file until it is saved (:w).`, "warn");
        // And again with the next prompt (the agent may not read a write's result text).
        this.agentNotes.push(`your change to ${path} is in the editor's buffer but was not saved to disk when you wrote it; commands you ran since saw the old file unless the user saved it`);
        return { message: result.message, ...meta };
      },
      createTerminal: async (req) => {
        const cwd = this.inside(req.cwd ?? this.boundary.cwd, "terminal cwd");
        const env: Record<string, string> = {};
        for (const e of req.env ?? []) env[e.name] = e.value;
        const t = this.terminals.create({ command: req.command, args: req.args ?? [], env, cwd, outputByteLimit: req.outputByteLimit ?? undefined });
        this.trace.note("terminal", `started ${t.id}: ${req.command} ${(req.args ?? []).join(" ")}`);
        return { terminalId: t.id };
      },
      terminalOutput: async (req) => {
        const t = this.terminals.get(req.terminalId);
        return { output: t.output(), truncated: t.truncated, exitStatus: t.exitStatus ?? null };
      },
      waitForTerminalExit: async (req, ctx) => {
        const t = this.terminals.get(req.terminalId);
        return abortable(t.exited, ctx.signal);
      },
      killTerminal: async (req) => {
        await this.terminals.get(req.terminalId).kill();
        return {};
      },
      releaseTerminal: async (req) => {
        await this.terminals.release(req.terminalId);
        return {};
      },
      elicit: this.opts.port.elicit ? (req, ctx) => this.opts.port.elicit!(req, this.linked(ctx)) : undefined,
      // Option `unstable` (AcpClient registers these only then).
      unstableUpdate: (sessionId, update) => this.onUnstableUpdate(sessionId, update),
      authStatus: (s) => {
        // Only the state is acted on; unknown states read as unknown (the schema says so).
        const words: Record<string, string> = { authenticated: "is signed in", unauthenticated: "needs you to sign in again", not_required: "needs no sign-in" };
        this.trace.note("auth", `auth/status_update: ${s.state}`);
        this.notice(`${this.opts.agentName} ${words[s.state] ?? "cannot tell whether it is signed in"} (auth/status_update).`, s.state === "unauthenticated" ? "warn" : "info");
      },
      mcpMessage: async (req) => {
        // This client declares no MCP server with the `acp` transport, so none can be addressed.
        throw new RpcError(ErrorCodes.ResourceNotFound, `Resource not found: no MCP server "${req.serverId}" (acp-chat.nvim declares no MCP servers with the acp transport)`);
      },
    };
  }

  private inside(path: string, operation: string): string {
    try {
      return this.boundary.check(path, operation);
    } catch (e) {
      this.notice(`Denied: the agent asked for ${operation} of ${path}, outside ${this.boundary.cwd}.`, "warn");
      throw e;
    }
  }

  private onUpdate(sessionId: string, update: SessionUpdate): void {
    if (this.status === "starting" && sessionId !== this.sessionId) {
      // Agents announce commands right after answering session/new; that notification can be
      // read before the response's promise has resolved here. Keep it until the id is known.
      this.early.push({ sessionId, update });
      return;
    }
    if (sessionId !== this.sessionId) {
      // A child session's update (option `unstable`): its transcript, nested in its block.
      const nested = this.unstable.route(sessionId, update);
      if (nested) return this.emit(nested);
      this.trace.note("problem", `session/update for unknown session ${sessionId}`);
      return;
    }
    if (update.sessionUpdate === "notice" || update.sessionUpdate === "compaction_update" || update.sessionUpdate === "compaction_summary_chunk") {
      this.onOptInUpdate(this.redactor.value(update));
      return;
    }
    for (const u of this.chunkRedactor.push(update)) this.emit(this.state.apply(u));
    if (update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") {
      this.afterToolCall(update.toolCallId);
      this.checkpointAfter(update.toolCallId);
    }
    // A terminal that already produced output (or ended) before the tool call showed it.
    if ((update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update") && update.content) {
      for (const c of update.content) {
        const t = c.type === "terminal" ? this.terminals.find(c.terminalId) : undefined;
        if (t) this.onTerminal(t);
      }
    }
  }

  /**
   * `notice` (shown as a note and a notification) and `compaction_*` (a block at its place, its
   * summary redacted whole after each chunk: a secret may arrive split across chunks).
   */
  private onOptInUpdate(update: SessionUpdate): void {
    this.emit(this.chunkRedactor.flush().flatMap((u) => this.state.apply(u)));
    this.emit(this.state.apply(update));
    if (update.sessionUpdate === "notice") {
      this.trace.note("notice", `${update.severity}: ${update.title}`);
      this.opts.onNotify?.(`${this.opts.agentName}: ${update.title}${update.description ? ` — ${update.description}` : ""}`, noticeLevel(update.severity));
    } else if (update.sessionUpdate === "compaction_update" || update.sessionUpdate === "compaction_summary_chunk") {
      const { block } = this.state.compaction(update.compactionId);
      const safe = this.redactor.text(block.summary);
      if (safe !== block.summary) {
        block.summary = safe;
        this.emit([{ type: "update", block }]);
      }
    }
  }

  /** plan_update, plan_removed, subagent_update, session_message(_chunk): this session's or a child's. */
  private onUnstableUpdate(sessionId: string, update: UnstableSessionUpdate): void {
    this.unstable.rootId = this.sessionId;
    if (this.status === "starting" && sessionId !== this.sessionId) {
      // Sent right after the answer to session/new: kept until the session id is known, like onUpdate's.
      this.early.push({ sessionId, update });
      return;
    }
    if (sessionId === this.sessionId) {
      // Text held back comes out first: the block lands after it.
      this.emit(this.chunkRedactor.flush().flatMap((u) => this.state.apply(u)));
      this.emit(this.unstable.apply(update));
      return;
    }
    const nested = this.unstable.route(sessionId, update);
    if (nested) this.emit(nested);
    else this.trace.note("problem", `${update.sessionUpdate} for unknown session ${sessionId}`);
  }

  /**
   * A tool call that touched files (an edit, delete or move, or one with a diff) ended: buffers
   * of those files are checked against the disk, as agents may write with their own file system.
   */
  private afterToolCall(toolCallId: string): void {
    const call = this.state.toolCalls.get(toolCallId);
    if (!call) return;
    // Diffs without old text: the file as it is now (before the agent writes) is their old side.
    if (call.status === "pending" || call.status === "in_progress") this.opts.port.noteDiffs?.(toolCallId, call.content.flatMap((c) => (c.type === "diff" ? [c] : [])));
    if (call.kind === "read") this.afterRead(call);
    if (!this.opts.port.syncBuffers || this.synced.has(call)) return;
    if (call.status !== "completed" && call.status !== "failed") return;
    const diffs = call.content.flatMap((c) => (c.type === "diff" ? [c.path] : []));
    if (diffs.length === 0 && !["edit", "delete", "move"].includes(call.kind)) return;
    this.synced.add(call);
    const paths: string[] = [];
    for (const p of [...diffs, ...call.locations.map((l) => l.path)]) {
      try {
        paths.push(this.boundary.check(p, "sync"));
      } catch {
        // outside the boundary: never touched
      }
    }
    if (paths.length === 0) return;
    // Not tied to the turn: the user may answer after it ended; closing the chat withdraws it.
    this.opts.port.syncBuffers(paths, this.lifetime.signal).catch((e) => this.trace.note("problem", `checking buffers against disk: ${errorMessage(e)}`));
  }

  /**
   * A tool call that may have changed files ended: hunks the user rejected in its permission
   * review are taken out again (when the agent wrote them itself), then a checkpoint, in the
   * background.
   */
  private checkpointAfter(toolCallId: string): void {
    const call = this.state.toolCalls.get(toolCallId);
    if (!call || this.checkpointed.has(call)) return;
    if (call.status !== "completed" && call.status !== "failed") return;
    this.checkpointed.add(call);
    const cp = this.opts.checkpoints;
    const port = this.opts.port;
    const check = (abs: string) => void this.boundary.check(abs, "write");
    const partial = port.toolCallEnded ? port.toolCallEnded(toolCallId, check) : Promise.resolve([]);
    const done = partial.then(
      (notes) => {
        for (const n of notes) {
          this.notice(`${n[0]!.toUpperCase()}${n.slice(1)}.`);
          this.agentNotes.push(n);
        }
      },
      (e: unknown) => this.trace.note("problem", `after tool call ${toolCallId}: ${errorMessage(e)}`),
    );
    this.toolEnds.add(done);
    void done.finally(() => this.toolEnds.delete(done));
    if (!cp?.on || ["read", "search", "think", "fetch"].includes(call.kind)) return;
    // Files the tool changed (a command's `sed -i`, the agent's own writes): their buffers
    // reload when they hold no edits of the user's, else the user compares (syncBuffers).
    // (Edits and calls with a diff are synced by afterToolCall already.)
    const synced = ["edit", "delete", "move"].includes(call.kind) || call.content.some((c) => c.type === "diff");
    void done
      .then(() => cp.toolEnded(`after ${call.title || toolCallId}`))
      .then((paths) => (paths.length > 0 && !synced && this.opts.port.syncBuffers ? this.opts.port.syncBuffers(paths, this.lifetime.signal) : undefined))
      .catch((e: unknown) => this.trace.note("problem", `after tool call ${toolCallId}: ${errorMessage(e)}`));
  }

  /**
   * A tool call of kind "read" ended: a file of its locations that the agent did not read
   * through fs/read_text_file (it read the disk itself) while its buffer holds unsaved edits
   * gets a note: the agent did not see them.
   */
  private afterRead(call: { status: string; title: string; locations: readonly { path: string }[] }): void {
    if (!this.reads.calls.has(call)) this.reads.calls.set(call, this.reads.seq);
    const seen = this.reads.calls.get(call)!;
    if (call.status !== "completed" || seen < 0 || !this.opts.port.unsavedBuffers) return;
    this.reads.calls.set(call, -1);
    const paths: string[] = [];
    for (const l of call.locations) {
      try {
        const p = this.boundary.check(l.path, "read");
        if ((this.reads.byClient.get(p) ?? -1) <= seen) paths.push(p);
      } catch {
        // outside the boundary: not ours to say
      }
    }
    if (paths.length === 0) return;
    this.opts.port
      .unsavedBuffers([...new Set(paths)])
      .then((unsaved) => {
        for (const p of unsaved) this.notice(`${p} has unsaved edits in the editor: ${this.opts.agentName} read the file from disk, without them ("${call.title}").`, "warn");
      })
      .catch((e) => this.trace.note("problem", `checking buffers for unsaved edits: ${errorMessage(e)}`));
  }

  /** Text held back in case it began a secret comes out (the run of chunks is over). */
  private flushHeld(): void {
    for (const u of this.chunkRedactor.flush()) this.emit(this.state.apply(u));
  }

  /** After a turn: held text comes out, and (a safety net) no block may still hold a secret. */
  private redactBlocks(): void {
    this.flushHeld();
    this.emit(this.unstable.flush());
    const events: TranscriptEvent[] = [];
    const blocks = this.state.blocks;
    for (let i = blocks.length - 1; i >= 0 && blocks[i]!.turn === this.state.turn; i--) {
      const b = blocks[i]!;
      if (b.type === "agent" || b.type === "thought" || b.type === "user") {
        const safe = this.redactor.text(b.text);
        if (safe !== b.text) {
          b.text = safe;
          events.push({ type: "update", block: b });
        }
      }
    }
    this.emit(events);
  }

  /** Queued behind earlier questions; a cancelled turn (or a withdrawn request) answers it `cancelled`. */
  private askPermission(req: RequestPermissionRequest, ctx: HandlerContext): Promise<{ outcome: PermissionOutcome }> {
    const controller = this.linkedController(ctx);
    if (this.state.turnState === "cancelling") controller.abort();
    this.permissionAborts.add(controller);
    // The request's tool call often carries only its id: merge it with the one the agent
    // announced in this turn (title, kind, locations, raw input, diff), so the question says
    // what it is about and remembered answers are keyed on what is approved.
    // A subagent's question (option `unstable`) is about a tool call of its own session.
    const child = req.sessionId !== this.sessionId ? this.unstable.child(req.sessionId)?.state : undefined;
    const state = child ?? this.state;
    const merged: RequestPermissionRequest = { ...req, toolCall: state.permissionToolCall(req.toolCall) };
    // Show the tool call the question is about, even if the agent never sent it as an update.
    if (!state.currentToolCall(req.toolCall.toolCallId)) {
      const shown = this.redactor.value({ ...merged.toolCall, sessionUpdate: "tool_call", title: merged.toolCall.title ?? "tool call" } as SessionUpdate);
      this.emit(child ? (this.unstable.route(req.sessionId, shown) ?? []) : this.state.apply(shown));
    }
    this.emit(this.state.permissionAsked());
    return this.permissions
      .ask(merged, controller.signal)
      .then((answer) => {
        // Rejected or dismissed by the user (not by a cancelled turn, which marks it cancelled).
        const o = answer.outcome;
        const kind = o.outcome === "selected" ? req.options.find((x) => x.optionId === o.optionId)?.kind : undefined;
        if (!child && ((o.outcome === "cancelled" && !controller.signal.aborted) || kind === "reject_once" || kind === "reject_always")) this.emit(this.state.markRejected(req.toolCall.toolCallId));
        return answer;
      })
      .finally(() => {
        this.permissionAborts.delete(controller);
        this.emit(this.state.permissionAnswered());
      });
  }

  /** Fires when the agent cancels the request, the turn is cancelled, or the connection closes. */
  private linkedController(ctx: HandlerContext): AbortController {
    return linkedController(ctx.signal, this.turnAbort?.signal);
  }

  private linked(ctx: HandlerContext): AbortSignal {
    return this.linkedController(ctx).signal;
  }

  private onTerminal(t: Terminal): void {
    // Redacted with a margin (a secret cut by the tail's start is still found), and while the
    // command runs, without an end that may begin a secret.
    const tail = this.redactor.tail(t.tail(4500), t.exitStatus !== undefined).slice(-4000);
    this.emit(this.state.terminalOutput(t.id, tail, describeTerminalExit(t.exitStatus), exitFailed(t.exitStatus)));
  }
}
