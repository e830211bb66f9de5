/**
 * The ACP client over one JSON-RPC connection: typed calls to the agent, gated on the
 * capabilities it advertised, and routing of the agent's requests to handlers.
 * Spec: https://agentclientprotocol.com/protocol/v1/overview
 */
import type { HandlerContext } from "../protocol/jsonrpc.js";
import type { AcpPeer } from "../protocol/jsonrpc.js";
import { CapabilityError, ErrorCodes, RpcError } from "../protocol/errors.js";
import {
  CompleteElicitationNotification,
  CreateElicitationRequest,
  CreateTerminalRequest,
  InitializeResponse,
  ListSessionsResponse,
  LoadSessionResponse,
  NewSessionResponse,
  PROTOCOL_VERSION,
  PromptResponse,
  ReadTextFileRequest,
  RequestPermissionRequest,
  sessionNotification,
  isTextChunkNotification,
  TerminalRequest,
  WriteTextFileRequest,
  parseOptInUpdate,
  parseSessionUpdate,
  type ContentBlock,
  type ElicitationResponse,
  type SessionInfo,
  type SessionUpdate,
  type StopReason,
} from "../protocol/schema.js";
import { ForkSessionResponse, SetSessionTitleResponse } from "../protocol/unstable-schema.js";
import type { z } from "zod";
import type * as out from "../protocol/outgoing.js";
import type { ClientFeature, FeatureRequestHandlers, FeatureUpdate } from "./client-feature.js";
import { gateMcpServers } from "./mcp-servers.js";

/** What the client does when the agent calls it (the feature modules' methods too). Every method may throw RpcError. */
export interface AgentRequestHandlers extends FeatureRequestHandlers {
  sessionUpdate(sessionId: string, update: SessionUpdate): void;
  requestPermission(req: RequestPermissionRequest, ctx: HandlerContext): Promise<out.PermissionResponse>;
  readTextFile(req: ReadTextFileRequest, ctx: HandlerContext): Promise<out.ReadTextFileResult>;
  /** The response may say in `_meta` what was written (ACP's extension point). */
  writeTextFile(req: WriteTextFileRequest, ctx: HandlerContext): Promise<{ _meta?: Record<string, unknown> }>;
  createTerminal(req: CreateTerminalRequest, ctx: HandlerContext): Promise<out.CreateTerminalResult>;
  terminalOutput(req: z.infer<typeof TerminalRequest>): Promise<out.TerminalOutputResult>;
  waitForTerminalExit(req: z.infer<typeof TerminalRequest>, ctx: HandlerContext): Promise<out.TerminalExitResult>;
  killTerminal(req: z.infer<typeof TerminalRequest>): Promise<Record<string, never>>;
  releaseTerminal(req: z.infer<typeof TerminalRequest>): Promise<Record<string, never>>;
  elicit?(req: CreateElicitationRequest, ctx: HandlerContext): Promise<ElicitationResponse>;
  elicitationComplete?(elicitationId: string): void;
}

/** PromptResponse.usage (the feature module `usage`): a turn's tokens (only numbers are kept). */
export interface TurnUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  thoughtTokens?: number;
  cachedReadTokens?: number;
  cachedWriteTokens?: number;
}

function turnUsage(u: unknown): TurnUsage | undefined {
  if (!u || typeof u !== "object") return undefined;
  const out: TurnUsage = {};
  for (const k of [
    "inputTokens",
    "outputTokens",
    "totalTokens",
    "thoughtTokens",
    "cachedReadTokens",
    "cachedWriteTokens",
  ] as const) {
    const v = (u as Record<string, unknown>)[k];
    if (typeof v === "number" && Number.isFinite(v) && v >= 0) out[k] = Math.round(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Exactly what this client implements; nothing is advertised that it cannot do. */
export interface ClientFeatures {
  elicitationForm?: boolean;
  authTerminal?: boolean;
  terminalOutputMeta?: boolean;
  /** The feature modules that are on (src/session/features/index.ts decides): advertised and handled only then. */
  modules?: readonly ClientFeature[];
}

export interface ClientInfo {
  name: string;
  version: string;
}

export interface Timeouts {
  initializeMs?: number;
  newSessionMs?: number;
}

/** Every request but `session/prompt` (which runs as long as the turn) has a time limit. */
export const DEFAULT_REQUEST_MS = 30_000;
/** Signing in may wait on the user in a browser. */
const AUTHENTICATE_MS = 300_000;

export class AcpClient {
  init: InitializeResponse | undefined;
  /** The feature modules' session/update kinds, and the module that owns each. */
  private readonly featureKinds = new Map<string, ClientFeature>();

  constructor(
    readonly peer: AcpPeer,
    handlers: AgentRequestHandlers,
    private readonly features: ClientFeatures = {},
    private readonly onProblem: (message: string) => void = () => undefined,
    private readonly requestMs = DEFAULT_REQUEST_MS,
  ) {
    if (handlers.featureUpdate)
      for (const f of features.modules ?? []) for (const k of f.updateKinds ?? []) this.featureKinds.set(k, f);
    peer.onNotification("session/update", undefined, (params) => {
      const n = sessionNotification(params);
      let update: SessionUpdate | FeatureUpdate = parseOptInUpdate(parseSessionUpdate(n.update));
      if (update.sessionUpdate === "unknown")
        update = this.featureKinds.get(update.originalKind)?.parseUpdate?.(update) ?? update;
      if (this.featureKinds.has(update.sessionUpdate))
        return handlers.featureUpdate!(n.sessionId, update as FeatureUpdate);
      update = update as SessionUpdate;
      if (update.sessionUpdate === "unknown") this.onProblem(update.reason);
      handlers.sessionUpdate(n.sessionId, update);
    });
    // Text chunks stream by the thousand and mean their concatenation: the ones read together
    // reach the handler above as one, without parsing each (each is still in the trace).
    peer.coalesce("session/update", ["params", "update", "content", "text"], isTextChunkNotification);
    peer.onRequest("session/request_permission", RequestPermissionRequest, (p, ctx) =>
      handlers.requestPermission(p, ctx),
    );
    peer.onRequest("fs/read_text_file", ReadTextFileRequest, (p, ctx) => handlers.readTextFile(p, ctx));
    peer.onRequest("fs/write_text_file", WriteTextFileRequest, (p, ctx) => handlers.writeTextFile(p, ctx));
    peer.onRequest("terminal/create", CreateTerminalRequest, (p, ctx) => handlers.createTerminal(p, ctx));
    peer.onRequest("terminal/output", TerminalRequest, (p) => handlers.terminalOutput(p));
    peer.onRequest("terminal/wait_for_exit", TerminalRequest, (p, ctx) => handlers.waitForTerminalExit(p, ctx));
    peer.onRequest("terminal/kill", TerminalRequest, (p) => handlers.killTerminal(p));
    peer.onRequest("terminal/release", TerminalRequest, (p) => handlers.releaseTerminal(p));
    if (features.elicitationForm && handlers.elicit) {
      const elicit = handlers.elicit.bind(handlers);
      peer.onRequest("elicitation/create", CreateElicitationRequest, (p, ctx) => elicit(p, ctx));
      peer.onNotification("elicitation/complete", CompleteElicitationNotification, (p) =>
        handlers.elicitationComplete?.(p.elicitationId),
      );
    }
    for (const f of features.modules ?? []) f.register?.(peer, handlers);
  }

  /** The capabilities sent in `initialize`. */
  clientCapabilities(): out.InitializeParams["clientCapabilities"] {
    const caps: out.InitializeParams["clientCapabilities"] = {
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      auth: { terminal: this.features.authTerminal === true },
      // Handled by SessionState: notice and compaction_* updates, boolean config options.
      session: { notices: {}, compaction: {}, configOptions: { boolean: {} } },
    };
    if (this.features.elicitationForm) caps.elicitation = { form: {}, url: {} };
    if (this.features.terminalOutputMeta) caps._meta = { terminal_output: true };
    for (const f of this.features.modules ?? []) f.fillClientCapabilities?.(caps);
    return caps;
  }

  /**
   * `initialize`: negotiate the protocol version. An agent that answers with a version this
   * client does not speak is refused with a message that says what to do.
   */
  async initialize(info: ClientInfo, timeouts: Timeouts = {}): Promise<InitializeResponse> {
    const params: out.InitializeParams = {
      protocolVersion: PROTOCOL_VERSION,
      clientCapabilities: this.clientCapabilities(),
      clientInfo: info,
    };
    const raw = await this.call("initialize", params, timeouts.initializeMs);
    const res = parseResult("initialize", InitializeResponse, raw);
    if (res.protocolVersion !== PROTOCOL_VERSION) {
      throw new Error(
        `the agent speaks ACP protocol version ${res.protocolVersion}, this client speaks version ${PROTOCOL_VERSION}: update the agent (or acp-chat.nvim) so that both speak version ${PROTOCOL_VERSION}`,
      );
    }
    this.init = res;
    return res;
  }

  get capabilities() {
    return this.init?.agentCapabilities ?? {};
  }

  get authMethods() {
    return this.init?.authMethods ?? [];
  }

  supports(
    feature:
      | "load"
      | "list"
      | "delete"
      | "resume"
      | "close"
      | "logout"
      | "embeddedContext"
      | "image"
      | "fork"
      | "title",
  ): boolean {
    const c = this.capabilities;
    switch (feature) {
      case "fork":
      case "title":
        // Feature modules: on (the option, for an unstable one) and let by the agent's capabilities.
        return this.moduleOn(feature);
      case "load":
        return c.loadSession === true;
      case "list":
      case "delete":
      case "resume":
      case "close":
        return c.sessionCapabilities?.[feature] != null;
      case "logout":
        return c.auth?.logout != null;
      case "embeddedContext":
        return c.promptCapabilities?.embeddedContext === true;
      case "image":
        return c.promptCapabilities?.image === true;
    }
  }

  /** Whether the feature module `name` is on for this client and, when it asks, for this agent. */
  moduleOn(name: string): boolean {
    const f = this.features.modules?.find((m) => m.name === name);
    return f !== undefined && (f.initialize?.(this.capabilities) ?? true);
  }

  /** How an earlier session can be continued: resume (no replay) preferred to load (replays). */
  continuation(): "resume" | "load" | undefined {
    return this.supports("resume") ? "resume" : this.supports("load") ? "load" : undefined;
  }

  async authenticate(methodId: string): Promise<void> {
    if (!this.authMethods.some((m) => m.id === methodId))
      throw new Error(`authenticate: the agent offers no auth method "${methodId}"`);
    await this.call("authenticate", { methodId } satisfies out.AuthenticateParams, AUTHENTICATE_MS);
  }

  async logout(): Promise<void> {
    this.require("logout", "auth.logout");
    await this.call("logout", {});
  }

  /**
   * The MCP servers this agent can take: stdio always, http and sse only when its
   * `agentCapabilities.mcpCapabilities` says so; the others are `skipped` (the caller says so).
   * Spec: https://agentclientprotocol.com/protocol/v1/session-setup#mcp-servers
   */
  mcpServers(servers: out.McpServer[]): { send: out.McpServer[]; skipped: out.McpServer[] } {
    return gateMcpServers(servers, this.capabilities.mcpCapabilities);
  }

  /** Whether the agent takes MCP servers of this transport (`mcpCapabilities.http` / `.sse`). */
  acceptsMcp(type: "http" | "sse"): boolean {
    return this.capabilities.mcpCapabilities?.[type] === true;
  }

  /** What session/new, session/load and session/resume share: MCP servers (all of them are
   * passed: gate them with mcpServers() first) and, when advertised, additional directories. */
  private setupParams(cwd: string, opts: SessionSetupOptions): out.NewSessionParams {
    const params: out.NewSessionParams = {
      cwd,
      mcpServers: opts.mcpServers ?? [],
    };
    if (opts.additionalDirectories?.length && this.capabilities.sessionCapabilities?.additionalDirectories != null)
      params.additionalDirectories = opts.additionalDirectories;
    if (opts.meta) params._meta = opts.meta;
    return params;
  }

  async newSession(cwd: string, opts: SessionSetupOptions & { timeoutMs?: number } = {}) {
    const params: out.NewSessionParams = this.setupParams(cwd, opts);
    return parseResult("session/new", NewSessionResponse, await this.call("session/new", params, opts.timeoutMs));
  }

  /** `session/load`: the agent replays the conversation as session/update before answering. */
  async loadSession(sessionId: string, cwd: string, opts: SessionSetupOptions = {}) {
    this.require("load", "loadSession");
    const params: out.LoadSessionParams = { sessionId, ...this.setupParams(cwd, opts) };
    return parseResult("session/load", LoadSessionResponse, await this.call("session/load", params));
  }

  async resumeSession(sessionId: string, cwd: string, opts: SessionSetupOptions = {}) {
    this.require("resume", "sessionCapabilities.resume");
    const params: out.LoadSessionParams = { sessionId, ...this.setupParams(cwd, opts) };
    return parseResult("session/resume", LoadSessionResponse, await this.call("session/resume", params));
  }

  /**
   * `session/fork` (unstable, `sessionCapabilities.fork`): a new session with the context of
   * `sessionId`; the original is left as it was.
   */
  async forkSession(sessionId: string, cwd: string, opts: SessionSetupOptions & { timeoutMs?: number } = {}) {
    this.require("fork", "sessionCapabilities.fork (and the unstable option)");
    const params = { sessionId, ...this.setupParams(cwd, opts) };
    return parseResult("session/fork", ForkSessionResponse, await this.call("session/fork", params, opts.timeoutMs));
  }

  /** `session/set_title` (unstable, `sessionCapabilities.title`): the title the agent stored (it may normalize it). */
  async setSessionTitle(sessionId: string, title: string): Promise<string> {
    this.require("title", "sessionCapabilities.title (and the unstable option)");
    return parseResult(
      "session/set_title",
      SetSessionTitleResponse,
      await this.call("session/set_title", { sessionId, title }),
    ).title;
  }

  /**
   * Every page of `session/list`. Aborting `signal` stops the paging: the page asked for is
   * cancelled (`$/cancel_request`; an agent that ignores it answers into the void) and no
   * further page is asked for or parsed.
   */
  async listSessions(cwd?: string, signal?: AbortSignal): Promise<SessionInfo[]> {
    this.require("list", "sessionCapabilities.list");
    const all: SessionInfo[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const params: out.ListSessionsParams = {};
      if (cwd) params.cwd = cwd;
      if (cursor) params.cursor = cursor;
      const raw = await this.call("session/list", params, this.requestMs, signal);
      if (signal?.aborted) throw new Error("cancelled: the listing was abandoned");
      const res = parseResult("session/list", ListSessionsResponse, raw);
      all.push(...res.sessions);
      if (!res.nextCursor) break;
      cursor = res.nextCursor;
    }
    return all;
  }

  async closeSession(sessionId: string): Promise<void> {
    this.require("close", "sessionCapabilities.close");
    await this.call("session/close", { sessionId } satisfies out.SessionIdParams);
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.require("delete", "sessionCapabilities.delete");
    await this.call("session/delete", { sessionId } satisfies out.SessionIdParams);
  }

  async setMode(sessionId: string, modeId: string): Promise<void> {
    await this.call("session/set_mode", { sessionId, modeId } satisfies out.SetModeParams);
  }

  async setConfigOption(sessionId: string, configId: string, value: string | boolean): Promise<unknown> {
    const params: out.SetConfigOptionParams =
      typeof value === "boolean" ? { sessionId, configId, type: "boolean", value } : { sessionId, configId, value };
    return this.call("session/set_config_option", params);
  }

  /** Legacy (gemini-cli): only when the agent sent a `models` field from session/new. */
  async setModel(sessionId: string, modelId: string, advertised: boolean): Promise<void> {
    if (!advertised) throw new CapabilityError("session/set_model", "a models list in session/new");
    await this.call("session/set_model", { sessionId, modelId });
  }

  async prompt(sessionId: string, prompt: ContentBlock[]): Promise<StopReason> {
    return (await this.promptTurn(sessionId, prompt)).stopReason;
  }

  /** session/prompt with what else the answer says: the turn's token usage (the usage feature), when given. */
  async promptTurn(sessionId: string, prompt: ContentBlock[]): Promise<{ stopReason: StopReason; usage?: TurnUsage }> {
    const res = parseResult(
      "session/prompt",
      PromptResponse,
      await this.peer.request("session/prompt", { sessionId, prompt } satisfies out.PromptParams),
    );
    return {
      stopReason: res.stopReason,
      usage: this.moduleOn("usage") ? turnUsage((res as { usage?: unknown }).usage) : undefined,
    };
  }

  cancel(sessionId: string): void {
    this.peer.notify("session/cancel", { sessionId } satisfies out.SessionIdParams);
  }

  /**
   * ACP v2 `tool_call/cancel` / `terminal/cancel`: one piece of work, not the turn. Sent only
   * when the tool call or terminal advertises `capabilities.cancel` (the session checks); the
   * answer means accepted, and the agent confirms with a final status or an exit.
   */
  async cancelWork(sessionId: string, target: { toolCallId: string } | { terminalId: string }): Promise<void> {
    const method = "toolCallId" in target ? "tool_call/cancel" : "terminal/cancel";
    await this.call(method, { sessionId, ...target });
  }

  /** A request with this client's time limit (`timeoutMs` overrides it). */
  private call<R = unknown>(
    method: string,
    params: unknown,
    timeoutMs = this.requestMs,
    signal?: AbortSignal,
  ): Promise<R> {
    return this.peer.request<R>(method, params, { timeoutMs, signal });
  }

  private require(feature: Parameters<AcpClient["supports"]>[0], capability: string): void {
    if (!this.supports(feature)) throw new CapabilityError(methodName(feature), capability);
  }
}

export interface SessionSetupOptions {
  /** Gated already (AcpClient.mcpServers). */
  mcpServers?: out.McpServer[];
  additionalDirectories?: string[];
  /** `_meta` for the agent (claude-agent-acp reads its options there: src/agent/file-steering.ts). */
  meta?: Record<string, unknown>;
}

function methodName(feature: string): string {
  return feature === "logout" ? "logout" : `session/${feature}`;
}

function parseResult<S extends z.ZodType>(method: string, schema: S, raw: unknown): z.infer<S> {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new RpcError(
    ErrorCodes.InvalidParams,
    `the agent's answer to ${method} is invalid: ${issue?.path.join(".") || "(root)"}: ${issue?.message}`,
  );
}
