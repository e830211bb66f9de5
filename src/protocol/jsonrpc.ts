/**
 * A JSON-RPC 2.0 peer over newline-delimited JSON, usable in both directions.
 *
 * It knows nothing of ACP: methods, params and results are opaque here. What it guarantees:
 * - a line that is not JSON, or not a message, is logged and answered (-32700 / -32600 when it
 *   carried an id) and the connection stays up;
 * - unknown methods get -32601, params that fail validation -32602;
 * - `$/cancel_request` aborts the matching in-flight handler (its AbortSignal fires);
 * - when the connection closes every pending request is rejected and every handler aborted.
 * Modelled on the ACP SDK's `src/jsonrpc.ts` and vscode-jsonrpc.
 */
import type { Readable, Writable } from "node:stream";
import { Shapes, withString, type Shape } from "./coalesce-shapes.js";
import { writeJsonLine } from "./json-line.js";
import type { z } from "zod";
import { ConnectionClosedError, ErrorCodes, RpcError, TimeoutError, errorMessage } from "./errors.js";

export type RequestId = number | string;

export interface Disposable {
  dispose(): void;
}

export interface HandlerContext {
  /** Fires when the peer cancels this request or the connection closes. */
  signal: AbortSignal;
  id: RequestId;
}

export type RequestHandler<P = unknown, R = unknown> = (params: P, ctx: HandlerContext) => Promise<R> | R;
export type NotificationHandler<P = unknown> = (params: P) => void;

/** One frame as the trace sees it. `method` on a response is the method of its request. */
export interface Frame {
  direction: "in" | "out";
  kind: "request" | "notification" | "response" | "error" | "invalid";
  id?: RequestId | null;
  method?: string;
  size: number;
  payload: unknown;
  /** The message as it crossed the wire (JSON text), when it was a JSON value: saves re-serialising. */
  text?: string;
  /**
   * Several notifications read together that differ only in the string at their end (see
   * JsonRpcPeer.coalesce): frame i crossed the wire as `head + JSON(texts[i]) + tail`. `payload`
   * is their message with an empty string there; `size` counts them all.
   */
  run?: { head: string; tail: string; texts: string[] };
}

/** A line dropped for its length: `bytes` is unknown when it was cut off before its end came. */
export interface DroppedLine {
  bytes?: number;
  limit: number;
}

export interface PeerOptions {
  /** Called with every frame in and out (the trace log). */
  onFrame?: (frame: Frame) => void;
  /** Problems with what the other side sent; never thrown. */
  onProblem?: (message: string) => void;
  /** A line over `maxLineBytes` was dropped (after its problem report): its size when known. */
  onDroppedLine?: (dropped: DroppedLine) => void;
  /** Longest accepted line, in bytes; longer lines are dropped whole (with a problem report). */
  maxLineBytes?: number;
}

interface Pending {
  method: string;
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  cleanup: () => void;
}

const CANCEL_REQUEST = "$/cancel_request";

/** What the ACP client uses of a peer (a protocol translation can stand in for it). */
export type AcpPeer = Pick<
  JsonRpcPeer,
  "request" | "notify" | "onRequest" | "onNotification" | "coalesce" | "onClose" | "close" | "closed"
>;

export class JsonRpcPeer {
  private nextId = 0;
  private readonly pending = new Map<RequestId, Pending>();
  private readonly inFlight = new Map<RequestId, AbortController>();
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly notificationHandlers = new Map<string, NotificationHandler>();
  private readonly closeListeners = new Set<(reason: string) => void>();
  /** Methods whose notifications may be coalesced: where their string is, which qualify. */
  private readonly coalesced = new Map<string, { path: readonly string[]; accept: (params: unknown) => boolean }>();
  /** Learned shapes of coalesced notifications (coalesce-shapes.ts). */
  private readonly shapes = new Shapes();
  /** Notifications of one shape read since the last delivery, not yet delivered. */
  private run: { shape: Shape; texts: string[]; size: number } | undefined;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private discarding = false;
  private closedReason: string | undefined;
  private readonly maxLineBytes: number;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly options: PeerOptions = {},
  ) {
    // Large enough for any real message (whole files cross in fs/write_text_file), small
    // enough that a runaway agent cannot make the editor swallow hundreds of megabytes.
    this.maxLineBytes = options.maxLineBytes ?? 16 * 1024 * 1024;
    input.on("data", (chunk: Buffer | string) => this.onData(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
    input.on("end", () => this.close("the agent closed its output"));
    input.on("error", (e) => this.close(`read error: ${errorMessage(e)}`));
    output.on("error", (e) => this.close(`write error: ${errorMessage(e)}`));
  }

  get closed(): boolean {
    return this.closedReason !== undefined;
  }

  get closeReason(): string | undefined {
    return this.closedReason;
  }

  onClose(listener: (reason: string) => void): Disposable {
    this.closeListeners.add(listener);
    return { dispose: () => this.closeListeners.delete(listener) };
  }

  /**
   * Handle requests for `method`. With a schema, params are validated first and a failure is
   * answered with -32602 without calling the handler.
   */
  onRequest<S extends z.ZodType, R>(
    method: string,
    schema: S | undefined,
    handler: RequestHandler<z.infer<S>, R>,
  ): Disposable {
    const wrapped: RequestHandler = (params, ctx) => handler(validate(method, schema, params) as z.infer<S>, ctx);
    this.requestHandlers.set(method, wrapped);
    return { dispose: () => this.requestHandlers.get(method) === wrapped && this.requestHandlers.delete(method) };
  }

  /** Handle notifications for `method`; invalid params are reported as a problem and dropped. */
  onNotification<S extends z.ZodType>(
    method: string,
    schema: S | undefined,
    handler: NotificationHandler<z.infer<S>>,
  ): Disposable {
    const wrapped: NotificationHandler = (params) => handler(validate(method, schema, params) as z.infer<S>);
    this.notificationHandlers.set(method, wrapped);
    return {
      dispose: () => this.notificationHandlers.get(method) === wrapped && this.notificationHandlers.delete(method),
    };
  }

  /**
   * Let consecutive notifications of `method` that differ only in one string be delivered as
   * one, that string joined: for a stream of text pieces whose meaning is their concatenation
   * (ACP's message chunks), where parsing and handling each piece would cost far more than
   * reading it. The string is the one at `path` from the message (`["params", "text"]` for
   * `{…,"params":{…,"text":"…"}}`), and only that one is ever joined; `accept` says which
   * parsed params qualify (it must not depend on that string).
   *
   * The first notification of a shape is parsed, checked and handled as any other; its text up
   * to the string (its head) is remembered. A later line that is that head, one JSON string and
   * the same closing braces is the same notification with another string: it is not parsed.
   * Such lines are gathered while they come one after the other, and delivered to the method's
   * handler as one notification (its string the joined strings) before any other message is
   * handled and at the end of each read from the stream; the trace gets one frame with every
   * piece (Frame.run). Anything else (whitespace, escapes the fast check does not know, another
   * head) takes the ordinary path.
   */
  coalesce(method: string, path: readonly string[], accept: (params: unknown) => boolean): Disposable {
    if (path[0] !== "params" || path.length < 2)
      throw new Error("coalesce: the path starts at params and ends below it");
    const entry = { path: [...path], accept };
    this.coalesced.set(method, entry);
    return {
      dispose: () => {
        if (this.coalesced.get(method) !== entry) return;
        this.endRun();
        this.coalesced.delete(method);
        this.shapes.forget(method);
      },
    };
  }

  /**
   * Send a request. Aborting `signal` sends `$/cancel_request` and rejects at once; `timeoutMs`
   * does the same with a TimeoutError.
   */
  request<R = unknown>(
    method: string,
    params: unknown,
    opts: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<R> {
    if (this.closedReason !== undefined) return Promise.reject(new ConnectionClosedError(this.closedReason));
    if (opts.signal?.aborted) return Promise.reject(abortError(method));
    const id = this.nextId++;
    return new Promise<R>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const onAbort = () => {
        this.pending.delete(id);
        cleanup();
        this.notify(CANCEL_REQUEST, { requestId: id });
        reject(abortError(method));
      };
      const cleanup = () => {
        if (timer) clearTimeout(timer);
        opts.signal?.removeEventListener("abort", onAbort);
      };
      if (opts.timeoutMs !== undefined && opts.timeoutMs > 0) {
        timer = setTimeout(() => {
          this.pending.delete(id);
          cleanup();
          this.notify(CANCEL_REQUEST, { requestId: id });
          reject(new TimeoutError(method, opts.timeoutMs!));
        }, opts.timeoutMs);
      }
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      this.pending.set(id, { method, resolve: resolve as (v: unknown) => void, reject, cleanup });
      this.send({ jsonrpc: "2.0", id, method, params }, "request", method);
    });
  }

  notify(method: string, params: unknown): void {
    if (this.closedReason !== undefined) return;
    this.send({ jsonrpc: "2.0", method, params }, "notification", method);
  }

  /** Stop: reject every pending request, abort every handler. Idempotent. */
  close(reason = "closed by the client"): void {
    if (this.closedReason !== undefined) return;
    this.closedReason = reason;
    for (const [, p] of this.pending) {
      p.cleanup();
      p.reject(new ConnectionClosedError(reason));
    }
    this.pending.clear();
    for (const [, c] of this.inFlight) c.abort(new ConnectionClosedError(reason));
    this.inFlight.clear();
    this.partial = [];
    for (const l of [...this.closeListeners]) l(reason);
    this.closeListeners.clear();
  }

  private send(msg: Record<string, unknown>, kind: Frame["kind"], method?: string): void {
    const json = JSON.stringify(msg);
    this.options.onFrame?.({
      direction: "out",
      kind,
      id: msg.id as RequestId | undefined,
      method,
      size: Buffer.byteLength(json) + 1,
      payload: msg,
      text: json,
    });
    try {
      writeJsonLine(this.output, json);
    } catch (e) {
      this.close(`write error: ${errorMessage(e)}`);
    }
  }

  private onData(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      if (this.discarding) {
        start = nl + 1;
        this.discarding = false;
        this.partial = [];
        this.partialBytes = 0;
        continue;
      }
      let text: string;
      if (this.partial.length > 0) {
        this.partial.push(chunk.subarray(start, nl));
        const line = Buffer.concat(this.partial);
        this.partial = [];
        this.partialBytes = 0;
        if (line.length > this.maxLineBytes) {
          this.dropped(line.length);
          start = nl + 1;
          continue;
        }
        text = line.toString("utf8");
      } else {
        if (nl - start > this.maxLineBytes) {
          this.dropped(nl - start);
          start = nl + 1;
          continue;
        }
        // Decoded straight from the stream's buffer: no Buffer object per line.
        text = chunk.toString("utf8", start, nl);
      }
      start = nl + 1;
      this.onLine(text);
      if (this.closedReason !== undefined) return;
    }
    // What was gathered from this read is delivered now, not after the next one.
    if (this.run) this.endRun();
    if (start < chunk.length && !this.discarding) {
      const rest = chunk.subarray(start);
      this.partialBytes += rest.length;
      if (this.partialBytes > this.maxLineBytes) {
        this.dropped(undefined);
        this.partial = [];
        this.partialBytes = 0;
        this.discarding = true;
      } else {
        // Copy: the stream may reuse its buffer.
        this.partial.push(Buffer.from(rest));
      }
    }
  }

  private onLine(raw: string): void {
    if (this.shapes.size > 0 && this.gather(raw)) return;
    if (this.run) this.endRun();
    const text = raw.trim();
    if (text === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.options.onFrame?.({ direction: "in", kind: "invalid", size: raw.length + 1, payload: text.slice(0, 2000) });
      this.problem(`not JSON: ${preview(text)}`);
      this.sendError(null, ErrorCodes.ParseError, "Parse error: the line is not JSON");
      return;
    }
    if (!isObject(msg) || msg.jsonrpc !== "2.0") {
      this.options.onFrame?.({ direction: "in", kind: "invalid", size: raw.length + 1, payload: msg });
      this.problem(`not a JSON-RPC 2.0 message: ${preview(text)}`);
      const id = isObject(msg) && isId(msg.id) ? msg.id : null;
      this.sendError(id, ErrorCodes.InvalidRequest, "Invalid Request: not a JSON-RPC 2.0 message");
      return;
    }
    const hasId = "id" in msg;
    if (typeof msg.method === "string") {
      if (hasId && !isId(msg.id)) {
        this.options.onFrame?.({ direction: "in", kind: "invalid", size: raw.length + 1, payload: msg });
        this.problem(`request with an invalid id: ${preview(text)}`);
        this.sendError(null, ErrorCodes.InvalidRequest, "Invalid Request: id must be a number or a string");
        return;
      }
      const kind = hasId ? "request" : "notification";
      this.options.onFrame?.({
        direction: "in",
        kind,
        id: hasId ? (msg.id as RequestId) : undefined,
        method: msg.method,
        size: raw.length + 1,
        payload: msg,
        text,
      });
      if (hasId) void this.handleRequest(msg.id as RequestId, msg.method, msg.params);
      else {
        this.handleNotification(msg.method, msg.params);
        const c = this.coalesced.get(msg.method);
        if (c && text === raw) this.shapes.learn(raw, msg, c.path, c.accept);
      }
      return;
    }
    if (hasId && ("result" in msg || "error" in msg)) {
      const p = isId(msg.id) ? this.pending.get(msg.id) : undefined;
      this.options.onFrame?.({
        direction: "in",
        kind: "error" in msg ? "error" : "response",
        id: msg.id as RequestId,
        method: p?.method,
        size: raw.length + 1,
        payload: msg,
        text,
      });
      if (!p) {
        this.problem(`response to an unknown request id ${JSON.stringify(msg.id)}`);
        return;
      }
      this.pending.delete(msg.id as RequestId);
      p.cleanup();
      if ("error" in msg) {
        const err = isObject(msg.error) ? msg.error : {};
        const code = typeof err.code === "number" ? err.code : ErrorCodes.InternalError;
        const message = typeof err.message === "string" ? err.message : "error without a message";
        p.reject(new RpcError(code, message, err.data));
      } else {
        p.resolve(msg.result);
      }
      return;
    }
    this.options.onFrame?.({ direction: "in", kind: "invalid", size: raw.length + 1, payload: msg });
    this.problem(`neither request, notification nor response: ${preview(text)}`);
    this.sendError(hasId && isId(msg.id) ? msg.id : null, ErrorCodes.InvalidRequest, "Invalid Request");
  }

  /**
   * `raw` is a line of a learned shape with a plain string: gathered into the run (which is
   * delivered first when it is of another shape). False when it is not: the line is parsed.
   */
  private gather(raw: string): boolean {
    const text = this.shapes.match(raw);
    if (text === undefined) return false;
    const shape = this.shapes.first!;
    if (this.run && this.run.shape !== shape) this.endRun();
    if (this.run) {
      this.run.texts.push(text);
      this.run.size += raw.length + 1;
    } else this.run = { shape, texts: [text], size: raw.length + 1 };
    return true;
  }

  /** Deliver the gathered run: one frame for the trace, one notification for the handler. */
  private endRun(): void {
    const run = this.run;
    if (!run) return;
    this.run = undefined;
    const { shape, texts } = run;
    this.options.onFrame?.({
      direction: "in",
      kind: "notification",
      method: shape.method,
      size: run.size,
      payload: shape.msg,
      run: { head: shape.head, tail: shape.tail, texts },
    });
    const params = withString(shape.msg.params, shape.path, 1, texts.length === 1 ? texts[0]! : texts.join(""));
    this.handleNotification(shape.method, params);
  }

  private async handleRequest(id: RequestId, method: string, params: unknown): Promise<void> {
    const handler = this.requestHandlers.get(method);
    if (!handler) {
      this.sendError(id, ErrorCodes.MethodNotFound, `Method not found: ${method}`);
      return;
    }
    if (this.inFlight.has(id)) {
      this.problem(`duplicate request id ${JSON.stringify(id)} for ${method}`);
      this.sendError(id, ErrorCodes.InvalidRequest, `Invalid Request: id ${JSON.stringify(id)} is already in use`);
      return;
    }
    const controller = new AbortController();
    this.inFlight.set(id, controller);
    try {
      const result = await handler(params, { signal: controller.signal, id });
      if (this.inFlight.get(id) !== controller) return; // closed meanwhile
      this.send({ jsonrpc: "2.0", id, result: result ?? null }, "response", method);
    } catch (e) {
      if (this.inFlight.get(id) !== controller) return;
      if (e instanceof RpcError) this.sendError(id, e.code, e.message, e.data, method);
      else if (controller.signal.aborted)
        this.sendError(id, ErrorCodes.RequestCancelled, "Request cancelled", undefined, method);
      else this.sendError(id, ErrorCodes.InternalError, `Internal error: ${errorMessage(e)}`, undefined, method);
    } finally {
      if (this.inFlight.get(id) === controller) this.inFlight.delete(id);
    }
  }

  private handleNotification(method: string, params: unknown): void {
    if (method === CANCEL_REQUEST) {
      const requestId = isObject(params) ? params.requestId : undefined;
      if (isId(requestId)) this.inFlight.get(requestId)?.abort(new Error("cancelled by the agent"));
      else this.problem(`${CANCEL_REQUEST} without a valid requestId`);
      return;
    }
    const handler = this.notificationHandlers.get(method);
    if (!handler) return; // unknown notifications are ignored (ACP)
    try {
      handler(params);
    } catch (e) {
      this.problem(`${method}: ${errorMessage(e)}`);
    }
  }

  private sendError(id: RequestId | null, code: number, message: string, data?: unknown, method?: string): void {
    if (this.closedReason !== undefined) return;
    const error: Record<string, unknown> = { code, message };
    if (data !== undefined) error.data = data;
    this.send({ jsonrpc: "2.0", id, error }, "error", method);
  }

  private problem(message: string): void {
    this.options.onProblem?.(message);
  }

  private dropped(bytes: number | undefined): void {
    const limit = this.maxLineBytes;
    this.problem(
      bytes === undefined
        ? `dropped a line longer than ${limit} bytes`
        : `dropped a line of ${bytes} bytes (limit ${limit})`,
    );
    this.options.onDroppedLine?.({ bytes, limit });
  }
}

/** Params checked against `schema` (none: as they are); a failure is an RpcError -32602. */
export function validate(method: string, schema: z.ZodType | undefined, params: unknown): unknown {
  if (!schema) return params;
  const r = schema.safeParse(params);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const where = issue && issue.path.length > 0 ? issue.path.join(".") + ": " : "";
  throw new RpcError(ErrorCodes.InvalidParams, `Invalid params for ${method}: ${where}${issue?.message ?? "invalid"}`);
}

function abortError(method: string): Error {
  const e = new Error(`${method} was cancelled`);
  e.name = "AbortError";
  return e;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isId(v: unknown): v is RequestId {
  return typeof v === "number" || typeof v === "string";
}

function preview(s: string): string {
  return s.length > 120 ? `${s.slice(0, 120)}… (${s.length} chars)` : s;
}
