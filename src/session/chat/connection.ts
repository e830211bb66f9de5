/**
 * The chat's line to its agent: the process, the JSON-RPC peer and the ACP client; `initialize`,
 * sign-in, session setup (new, load, resume, fork) with the MCP servers, and the agent's end.
 */
import { AgentProcess, describeExit, type AgentExit } from "../../agent/agent-process.js";
import { AcpClient, type AgentRequestHandlers } from "../../client/acp-client.js";
import type { resolveMcpServers } from "../../client/mcp-servers.js";
import { ErrorCodes, RpcError, errorMessage } from "../../protocol/errors.js";
import { JsonRpcPeer } from "../../protocol/jsonrpc.js";
import { V2Peer } from "../../protocol/v2/peer.js";
import type { SessionConfigOption, SessionModeState } from "../../protocol/schema.js";
import { activeFeatures } from "../features/index.js";
import type { ChatCore } from "./context.js";
import { droppedLineText } from "./crash-text.js";
import type { ChatStatus } from "./options.js";
import type { WorkControls } from "./work.js";

/** How the session was set up: its id, and what the agent said of its modes and options. */
export interface SessionSetup {
  sessionId: string;
  setup: { modes?: SessionModeState | null; configOptions?: SessionConfigOption[] | null; models?: unknown };
  forkedFrom?: string;
  continuedBy?: "resume" | "load";
}

export class AgentConnection {
  agent: AgentProcess | undefined;
  client: AcpClient | undefined;
  private peer: JsonRpcPeer | undefined;
  private ending: Promise<AgentExit | undefined> | undefined;

  constructor(
    private readonly core: ChatCore,
    /** The configured MCP servers, expanded; and what to tell the user about them. */
    private readonly mcp: ReturnType<typeof resolveMcpServers>,
    private readonly status: { get(): ChatStatus; set(s: ChatStatus): void },
    /** The chat's own session (agent-initiated work of another, a subagent's, is not the chat's). */
    private readonly sessionId: () => string | undefined,
    /** Where the agent's background work goes (ACP v2). */
    private readonly work?: WorkControls,
  ) {}

  /** The connection is closed (or was never opened). */
  get closed(): boolean {
    return this.peer?.closed ?? true;
  }

  /** Spawn the agent and connect to it; `onClose` hears why the connection ended. */
  open(handlers: AgentRequestHandlers, onClose: (reason: string) => void): AcpClient {
    const { opts, trace } = this.core;
    const { command } = opts;
    trace.note(
      "lifecycle",
      `starting ${[command.command, ...(command.args ?? [])].join(" ")} in ${command.cwd ?? opts.cwd}`,
    );
    const agent = new AgentProcess({ ...command, cwd: command.cwd ?? opts.cwd }, (text) => trace.note("stderr", text));
    this.agent = agent;
    const peer = new JsonRpcPeer(agent.stdout, agent.stdin, {
      onFrame: (f) => trace.frame(f),
      onProblem: (m) => trace.note("problem", m),
      onDroppedLine: (d) => this.core.notice(droppedLineText(d), "warn"),
    });
    this.peer = peer;
    const client = new AcpClient(
      opts.protocol === "v2-draft" ? this.v2Peer(peer) : peer,
      handlers,
      { ...opts.features, modules: activeFeatures(opts.features) },
      (m) => trace.note("problem", m),
      opts.timeouts?.requestMs,
    );
    this.client = client;
    peer.onClose(onClose);
    agent.exited.then((exit) => {
      // Give stdout a moment to drain before declaring the connection dead.
      setTimeout(() => peer.close(describeExit(command, exit, agent.stderr.lastLines(5))), 50);
    });
    return client;
  }

  /**
   * The ACP v2 draft beside v1 (the agent's option `protocol = "v2-draft"`): spoken when the
   * agent answers 2, v1 when it answers 1. Structured diffs read files as the agent's reads
   * do: inside the session's boundary, the buffer when it is loaded.
   */
  private v2Peer(peer: JsonRpcPeer): V2Peer {
    const { opts, trace, boundary, lifetime } = this.core;
    return new V2Peer(peer, {
      read: async (path) => {
        if (!boundary.contains(path)) return undefined;
        return opts.port
          .readTextFile({ sessionId: "", path }, lifetime)
          .then((r) => r.content)
          .catch(() => undefined);
      },
      onVersion: (v) => {
        trace.note("lifecycle", `ACP protocol version ${v}`);
        if (v !== 2) return;
        // It says when it works: updates after its idle are background work, not a turn's late work.
        this.core.state.stateReported = true;
        this.core.notice(`${opts.agentName} speaks the ACP v2 draft (option protocol = "v2-draft").`);
      },
      onProblem: (m) => trace.note("problem", m),
      // Agent-initiated work shows as work after a turn: the chat says it is working until idle.
      onAgentWork: (sessionId, running) => {
        if (sessionId === this.sessionId()) this.core.emit(this.core.state.agentWorking(running));
        else trace.note("lifecycle", `agent work ${running ? "began" : "ended"} in another session, ${sessionId}`);
      },
      onBackground: (sessionId, work) => {
        if (sessionId === this.sessionId()) this.work?.setBackground(work);
      },
    });
  }

  /**
   * `initialize`, then `session/new` (signing in first if the agent asks), or with `resume`
   * continue an earlier session: `session/resume` when advertised, else `session/load` (which
   * replays the conversation: `known` hears the id before it answers).
   */
  async setUp(
    resume: { sessionId: string; fork?: boolean } | undefined,
    known: (sessionId: string) => void,
  ): Promise<SessionSetup> {
    const { opts, boundary } = this.core;
    const client = this.client!;
    await client.initialize(opts.clientInfo ?? { name: "acp-chat.nvim", version: "0.1.0" }, {
      initializeMs: opts.timeouts?.initializeMs ?? 60_000,
    });
    const setupOpts = {
      mcpServers: [...this.mcpServersToSend(), ...(await this.clientMcpServers())],
      additionalDirectories: opts.extraRoots,
      meta: opts.sessionMeta,
    };
    const newSessionMs = opts.timeouts?.newSessionMs ?? 120_000;
    if (resume?.fork) {
      // `:AcpChatFork` (session/fork, the fork feature): a new session with the context of that one.
      if (!client.supports("fork"))
        throw new Error(`${opts.agentName} cannot fork sessions (it does not advertise sessionCapabilities.fork)`);
      const res = await this.withAuth(() =>
        client.forkSession(resume.sessionId, boundary.cwd, { timeoutMs: newSessionMs, ...setupOpts }),
      );
      return { sessionId: res.sessionId, setup: res, forkedFrom: resume.sessionId };
    }
    if (resume) {
      const how = client.continuation();
      if (!how)
        throw new Error(
          `${opts.agentName} cannot resume or load sessions (it advertises neither session/resume nor loadSession)`,
        );
      // Known up front: session/load replays the conversation before it answers.
      known(resume.sessionId);
      const setup = await this.withAuth(() =>
        how === "resume"
          ? client.resumeSession(resume.sessionId, boundary.cwd, setupOpts)
          : client.loadSession(resume.sessionId, boundary.cwd, setupOpts),
      );
      return { sessionId: resume.sessionId, setup, continuedBy: how };
    }
    const res = await this.withAuth(() => client.newSession(boundary.cwd, { timeoutMs: newSessionMs, ...setupOpts }));
    return { sessionId: res.sessionId, setup: res };
  }

  /**
   * The MCP servers this agent can take (stdio always; http and sse when it advertises them);
   * each one left out, and each problem with the configuration, is a note in the transcript.
   */
  private mcpServersToSend() {
    const { notice, trace, opts } = this.core;
    for (const p of this.mcp.problems) notice(p, "warn");
    const { send, skipped } = this.client!.mcpServers(this.mcp.servers);
    for (const s of skipped) {
      const type = "type" in s ? s.type : "stdio";
      notice(
        `MCP server "${s.name}" (${type}) not passed: ${opts.agentName} does not accept ${type} MCP servers (agentCapabilities.mcpCapabilities.${type}).`,
        "warn",
      );
    }
    if (send.length > 0) trace.note("lifecycle", `MCP servers: ${send.map((s) => s.name).join(", ")}`);
    return send;
  }

  /** The client's own MCP server, unless it failed to start or a configured one took its name. */
  private async clientMcpServers() {
    const own = this.core.opts.clientMcpServer;
    if (!own) return [];
    if (this.mcp.servers.some((s) => s.name === own.mcpServer.name)) {
      this.core.notice(
        `The editor's tools (MCP server "${own.mcpServer.name}") are not passed: a configured MCP server has the same name.`,
        "warn",
      );
      return [];
    }
    // An agent that takes http MCP servers reaches the host directly: one process hop less per call.
    if (own.httpMcpServer && own.transport !== "stdio" && this.client!.acceptsMcp("http")) {
      try {
        return [await own.httpMcpServer()];
      } catch (e) {
        this.core.trace.note("problem", `the editor's tools over http: ${errorMessage(e)}; offered over stdio`);
      }
    }
    if (own.transport === "stdio")
      this.core.trace.note("lifecycle", `the editor's tools over stdio (editor_tools = "stdio")`);
    try {
      await own.ready;
      return [own.mcpServer];
    } catch (e) {
      this.core.notice(`The editor's tools are not available: ${errorMessage(e)}`, "warn");
      return [];
    }
  }

  /**
   * Run a session call; if the agent answers "auth required" (-32000), offer its auth methods,
   * sign in (or run a terminal method for the user) and try again.
   */
  async withAuth<T>(call: () => Promise<T>): Promise<T> {
    const { opts, boundary, trace } = this.core;
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (e) {
        if (!(e instanceof RpcError) || e.code !== ErrorCodes.AuthRequired || attempt >= 3) throw e;
        const client = this.client!;
        const methods = client.authMethods;
        if (methods.length === 0 || !opts.port.chooseAuthMethod)
          throw new Error(
            `${opts.agentName} needs you to sign in (${e.message}), and it offers no method this client can use`,
          );
        this.core.notice(`${opts.agentName} asks you to sign in.`);
        const was = this.status.get();
        this.status.set("signing_in");
        const signal = this.core.lifetime;
        const id = await opts.port.chooseAuthMethod(methods, signal);
        const method = methods.find((m) => m.id === id);
        if (!method) throw new Error(`sign-in declined: ${opts.agentName} needs you to sign in before it can start`);
        if (method.type === "terminal") {
          if (!opts.port.runAuthTerminal) throw new Error(`sign-in method "${method.name}" needs a terminal`);
          const cmd = opts.command;
          await opts.port.runAuthTerminal(
            {
              command: cmd.command,
              args: [...(cmd.args ?? []), ...(method.args ?? [])],
              env: { ...cmd.env, ...method.env },
              cwd: boundary.cwd,
              title: method.name,
            },
            signal,
          );
        } else {
          await client.authenticate(method.id);
        }
        trace.note("lifecycle", `signed in with ${method.id}`);
        // Back to what it was: starting (a session being set up), or ready (a prompt after a logout).
        this.status.set(was === "ready" ? "ready" : "starting");
      }
    }
  }

  /**
   * The connection is gone: give the agent a moment to exit on its own (its exit status is what
   * the user needs to know); one that keeps running without a connection is stopped. Resolves
   * with how it exited by itself, or undefined when acp-chat had to stop it.
   */
  agentEnd(): Promise<AgentExit | undefined> {
    this.ending ??= (async () => {
      const agent = this.agent;
      if (!agent) return undefined;
      const exit =
        agent.exit ?? (await Promise.race([agent.exited, new Promise<undefined>((r) => setTimeout(r, 500))]));
      if (exit) return exit;
      await agent.kill();
      return undefined;
    })();
    return this.ending;
  }

  /** Why the connection ended: the agent's exit status and stderr tail when it has exited. */
  async describeEnd(reason: string): Promise<string> {
    const agent = this.agent;
    if (!agent) return reason;
    const exit = await this.agentEnd();
    if (!exit) return `${reason} (the agent was still running; acp-chat stopped it)`;
    return describeExit(this.core.opts.command, exit, agent.stderr.lastLines(5));
  }

  /** `session/close` when the agent has it (waited for a moment at most). */
  async closeSession(sessionId: string | undefined): Promise<void> {
    const client = this.client;
    if (client && sessionId && client.supports("close") && !this.closed) {
      await Promise.race([
        client.closeSession(sessionId).catch(() => undefined),
        new Promise((r) => setTimeout(r, 300)),
      ]);
    }
  }

  /** The connection closed and the agent stopped. */
  async end(): Promise<void> {
    this.peer?.close("chat closed");
    await this.agent?.kill();
  }

  /** Synchronous kill, for a host that is exiting. */
  killNow(): void {
    this.agent?.killNow();
  }
}
