/**
 * MCP over the editor channel's socket, on the host's side. The stdio server the agent starts
 * (mcp-server.ts) only pipes bytes once its token is proven, and the host runs the MCP server
 * for it, as it does for agents that take http: an answer (a whole file, for read_file) is
 * framed once, here, and crosses the server process as bytes it neither decodes, parses nor
 * escapes again. Lines come from the channel's reader (lines.ts: linear in their length,
 * bounded), not the SDK's stdio buffer (which joins every chunk to all that came before).
 */
import type { Socket } from "node:net";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { writeJsonLine } from "../protocol/json-line.js";

export class SocketTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private ended = false;

  constructor(private readonly socket: Socket) {
    socket.once("close", () => this.end());
  }

  async start(): Promise<void> {}

  /** A line the channel read; false when it is no JSON-RPC message (the connection is then at fault). */
  deliver(value: unknown): boolean {
    const m = JSONRPCMessageSchema.safeParse(value);
    if (!m.success) return false;
    this.onmessage?.(m.data);
    return true;
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.socket.destroyed || !this.socket.writable) return Promise.resolve();
    return new Promise((resolve) => {
      writeJsonLine(this.socket, JSON.stringify(message), () => resolve());
    });
  }

  async close(): Promise<void> {
    this.socket.end();
    this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onclose?.();
  }
}
