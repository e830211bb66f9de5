/** JSON-RPC 2.0 and ACP error codes (ACP schema `ErrorCode`). */
export const ErrorCodes = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  RequestCancelled: -32800,
  AuthRequired: -32000,
  ResourceNotFound: -32002,
} as const;

/** An error that crosses the wire as a JSON-RPC error object. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RpcError";
  }

  toJSON(): { code: number; message: string; data?: unknown } {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Raised for every pending request when the connection goes away. */
export class ConnectionClosedError extends Error {
  constructor(reason: string) {
    super(`connection to the agent closed: ${reason}`);
    this.name = "ConnectionClosedError";
  }
}

/** A call the agent did not advertise in `initialize`; refused without sending anything. */
export class CapabilityError extends Error {
  constructor(method: string, capability: string) {
    super(`${method} is not supported by this agent (it did not advertise ${capability})`);
    this.name = "CapabilityError";
  }
}

export class TimeoutError extends Error {
  constructor(method: string, ms: number) {
    super(`${method} got no answer from the agent within ${ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`}`);
    this.name = "TimeoutError";
  }
}

/** The most of an error's `data` shown after its message. */
const MAX_DETAIL_CHARS = 500;

/**
 * What to tell the user of an error: its message and, for an error the agent sent, what its
 * `data` says (JSON-RPC 2.0 §5.1: "additional information about the error"): agents put the
 * real reason there and a bare "Internal error" in the message (`-32603`, `data.details`:
 * "Cannot enable privileged approval modes in an untrusted folder"). A string `data`, or the
 * string `details`, `detail`, `message` or `reason` of it, else the data as JSON; cut at 500
 * characters. Not redacted: every caller shows it through the chat's Redactor (notices).
 */
export function errorMessage(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  if (!(e instanceof RpcError) || e.data === undefined || e.data === null) return e.message;
  const detail = errorDetail(e.data);
  if (!detail || e.message.includes(detail)) return e.message;
  return `${e.message}: ${detail}`;
}

function errorDetail(data: unknown): string {
  let text: string | undefined;
  if (typeof data === "string") text = data;
  else if (typeof data === "object") {
    const d = data as Record<string, unknown>;
    const named = [d.details, d.detail, d.message, d.reason].find((x) => typeof x === "string" && x.trim() !== "");
    text = typeof named === "string" ? named : JSON.stringify(data);
  } else text = String(data);
  text = text.replace(/\s+/g, " ").trim();
  if (text === "{}" || text === "[]") return "";
  return text.length > MAX_DETAIL_CHARS ? `${text.slice(0, MAX_DETAIL_CHARS)}…` : text;
}
