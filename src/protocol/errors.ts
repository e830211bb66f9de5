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

export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
