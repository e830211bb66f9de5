/**
 * ACP v2 (draft) beside v1 on one connection: a peer that the ACP client uses as it uses the
 * JSON-RPC peer, and that speaks v2 with an agent that answers `initialize` with 2 and passes
 * everything through unchanged with one that answers 1. In v2 it translates at the boundary:
 *
 * - `session/update`: v2 upserts by id as the v1 updates the session applies (updates.ts),
 *   in the order they came (a structured diff may read a file first, so they queue);
 * - `session/prompt`: v2 answers at once (the user message was inserted); the turn ends when
 *   the agent says it is idle, which is when this peer answers the client's prompt request, as
 *   v1's response did;
 * - the agent's permission request as v1's (requests.ts); `fs/*` and `terminal/*` are not
 *   offered in v2 (the editor's MCP server carries files), so the agent gets -32601 for them;
 * - `authenticate` / `logout` are v2's `auth/login` / `auth/logout`.
 */
import type { z } from "zod";
import { ConnectionClosedError, ErrorCodes, RpcError, errorMessage } from "../errors.js";
import {
  validate,
  type AcpPeer,
  type Disposable,
  type JsonRpcPeer,
  type NotificationHandler,
  type RequestHandler,
} from "../jsonrpc.js";
import type { FileReader } from "./diffs.js";
import { initializeParams, initializeResult, permissionRequest, sessionParams, V2 } from "./requests.js";
import { V2Session, type BackgroundWork, type StateChange } from "./updates.js";

const V1_STOPS = new Set(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]);

interface Turn {
  acked: boolean;
  running: boolean;
  /** An idle that came before the prompt's answer (the answer may follow the agent's updates). */
  early?: StateChange & { state: "idle" };
  resolve(result: { stopReason: string }): void;
  reject(e: Error): void;
}

export interface V2PeerOptions {
  /** The current text of a file (its buffer or the disk), for structured diffs. */
  read: FileReader;
  /** The version the agent chose (1 or 2), once it answered `initialize`. */
  onVersion?: (version: number) => void;
  onProblem?: (message: string) => void;
  /** The agent works without a prompt (`running` outside a turn: agent-initiated work), or is idle again. */
  onAgentWork?: (sessionId: string, running: boolean) => void;
  /** The work the agent runs in the background, as each state update lists it whole (when it does). */
  onBackground?: (sessionId: string, work: BackgroundWork[]) => void;
}

export class V2Peer implements AcpPeer {
  /** The protocol version spoken: undefined until `initialize` is answered. */
  version: number | undefined;
  private readonly sessions = new Map<string, V2Session>();
  private readonly turns = new Map<string, Turn>();
  private queue: Promise<void> = Promise.resolve();
  private updateHandler: NotificationHandler | undefined;
  private permissions = 0;

  constructor(
    private readonly inner: JsonRpcPeer,
    private readonly opts: V2PeerOptions,
  ) {
    inner.onClose((reason) => {
      for (const t of this.turns.values()) t.reject(new ConnectionClosedError(reason));
      this.turns.clear();
    });
  }

  get closed(): boolean {
    return this.inner.closed;
  }

  get v2(): boolean {
    return this.version === V2;
  }

  onClose(listener: (reason: string) => void): Disposable {
    return this.inner.onClose(listener);
  }

  close(reason?: string): void {
    this.inner.close(reason);
  }

  coalesce(method: string, path: readonly string[], accept: (params: unknown) => boolean): Disposable {
    return this.inner.coalesce(method, path, accept);
  }

  notify(method: string, params: unknown): void {
    this.inner.notify(method, params);
  }

  async request<R = unknown>(
    method: string,
    params: unknown,
    opts: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<R> {
    if (method === "initialize") {
      const res = await this.inner.request("initialize", initializeParams(params), opts);
      const version = (res as { protocolVersion?: unknown } | null)?.protocolVersion;
      this.version = typeof version === "number" ? version : undefined;
      if (this.version !== undefined) this.opts.onVersion?.(this.version);
      return (this.v2 ? initializeResult(res) : res) as R;
    }
    if (!this.v2) return this.inner.request<R>(method, params, opts);
    switch (method) {
      case "session/prompt":
        return this.prompt(params) as Promise<R>;
      case "session/new":
        return this.newSession(params, opts) as Promise<R>;
      case "session/resume":
        return this.withCommands(await this.inner.request(method, sessionParams(params), opts), params) as R;
      case "session/load":
        // v2 has no session/load: a resume that replays the conversation from its start.
        return this.withCommands(
          await this.inner.request("session/resume", { ...sessionParams(params), replayFrom: { type: "start" } }, opts),
          params,
        ) as R;
      case "authenticate":
        return this.inner.request<R>("auth/login", params, opts);
      case "logout":
        return this.inner.request<R>("auth/logout", params, opts);
      default:
        return this.inner.request<R>(method, params, opts);
    }
  }

  onNotification<S extends z.ZodType>(
    method: string,
    schema: S | undefined,
    handler: NotificationHandler<z.infer<S>>,
  ): Disposable {
    if (method !== "session/update") return this.inner.onNotification(method, schema, handler);
    const deliver: NotificationHandler = (p) => handler(validate(method, schema, p) as z.infer<S>);
    this.updateHandler = deliver;
    return this.inner.onNotification(method, undefined, (params) => {
      if (!this.v2) return deliver(params);
      this.enqueue(() => this.update(params));
    });
  }

  onRequest<S extends z.ZodType, R>(
    method: string,
    schema: S | undefined,
    handler: RequestHandler<z.infer<S>, R>,
  ): Disposable {
    if (method === "session/request_permission")
      return this.inner.onRequest(method, undefined, async (params, ctx) => {
        if (!this.v2) return handler(validate(method, schema, params) as z.infer<S>, ctx);
        // After the updates before it (its tool call may be one of them); the question itself
        // is not queued: updates go on while the user thinks.
        const p = params as { sessionId?: unknown };
        const seq = ++this.permissions;
        const v1 = this.queue.then(() => permissionRequest(params, this.session(String(p.sessionId)), seq));
        this.queue = v1.then(
          () => undefined,
          () => undefined,
        );
        return handler(validate(method, schema, await v1) as z.infer<S>, ctx);
      });
    if (method.startsWith("fs/") || method.startsWith("terminal/"))
      return this.inner.onRequest(method, schema, (params, ctx) => {
        if (this.v2) throw new RpcError(ErrorCodes.MethodNotFound, `Method not found: ${method} (not in ACP v2)`);
        return handler(params, ctx);
      });
    return this.inner.onRequest(method, schema, handler);
  }

  private session(sessionId: string): V2Session {
    let s = this.sessions.get(sessionId);
    if (!s) {
      s = new V2Session(this.opts.read);
      this.sessions.set(sessionId, s);
    }
    return s;
  }

  private enqueue(job: () => Promise<void> | void): void {
    this.queue = this.queue.then(job).catch((e) => this.opts.onProblem?.(`ACP v2: ${errorMessage(e)}`));
  }

  private async update(params: unknown): Promise<void> {
    const p = (params ?? {}) as { sessionId?: unknown; update?: unknown; _meta?: unknown };
    if (typeof p.sessionId !== "string") return this.opts.onProblem?.("ACP v2: session/update without a sessionId");
    const { updates, state } = await this.session(p.sessionId).translate(p.update);
    for (const update of updates) {
      try {
        this.updateHandler?.({ sessionId: p.sessionId, update });
      } catch (e) {
        this.opts.onProblem?.(`session/update: ${errorMessage(e)}`);
      }
    }
    if (state) this.stateChanged(p.sessionId, state);
  }

  /** `running` marks the turn as begun; `idle` ends it (the prompt request is answered). */
  private stateChanged(sessionId: string, state: StateChange): void {
    if (state.background) this.opts.onBackground?.(sessionId, state.background);
    const turn = this.turns.get(sessionId);
    if (!turn) return this.opts.onAgentWork?.(sessionId, state.state === "running");
    if (state.state === "running") {
      turn.running = true;
      return;
    }
    if (!turn.acked && !turn.running) {
      turn.early = state;
      return;
    }
    this.endTurn(sessionId, turn, state);
  }

  private endTurn(sessionId: string, turn: Turn, idle: StateChange & { state: "idle" }): void {
    this.turns.delete(sessionId);
    if (idle.error !== undefined) return turn.reject(new RpcError(ErrorCodes.InternalError, idle.error));
    // No stop reason, or one of v2's or an extension's that v1 has no word for: the turn ended.
    const stop = idle.stopReason && V1_STOPS.has(idle.stopReason) ? idle.stopReason : "end_turn";
    turn.resolve({ stopReason: stop });
  }

  private async prompt(params: unknown): Promise<{ stopReason: string }> {
    const sessionId = String((params as { sessionId?: unknown }).sessionId);
    const s = this.session(sessionId);
    let turn!: Turn;
    const done = new Promise<{ stopReason: string }>((resolve, reject) => {
      turn = { acked: false, running: false, resolve, reject };
    });
    this.turns.set(sessionId, turn);
    s.awaitingEcho = true;
    try {
      const ack = (await this.inner.request("session/prompt", params)) as { messageId?: unknown } | null;
      if (typeof ack?.messageId === "string") s.echoes.add(ack.messageId);
    } catch (e) {
      if (this.turns.get(sessionId) === turn) this.turns.delete(sessionId);
      s.awaitingEcho = false;
      throw e;
    }
    // The acknowledgment comes after every update sent before it: those are queued already.
    this.enqueue(() => {
      turn.acked = true;
      s.awaitingEcho = false;
      if (turn.early && this.turns.get(sessionId) === turn) this.endTurn(sessionId, turn, turn.early);
    });
    return done;
  }

  private async newSession(params: unknown, opts: { timeoutMs?: number }): Promise<unknown> {
    return this.withCommands(await this.inner.request("session/new", sessionParams(params), opts));
  }

  /** A session/new or session/resume answer: its commands (v2 gives them there) as v1's update, after it. */
  private withCommands(res: unknown, params?: unknown): unknown {
    const { availableCommands, ...rest } = (res ?? {}) as Record<string, unknown>;
    const sessionId = rest.sessionId ?? (params as { sessionId?: unknown } | undefined)?.sessionId;
    if (Array.isArray(availableCommands) && typeof sessionId === "string") {
      this.enqueue(
        () =>
          new Promise<void>((resolve) =>
            setImmediate(() => {
              this.updateHandler?.({
                sessionId,
                update: { sessionUpdate: "available_commands_update", availableCommands },
              });
              resolve();
            }),
          ),
      );
    }
    return rest;
  }
}
