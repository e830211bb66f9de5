/**
 * The editor's tools served by the host itself, over MCP's Streamable HTTP transport, for agents
 * that advertise `mcpCapabilities.http`. The agent then reaches the host with no process of
 * ours in between (the stdio server, mcp-server.ts, is one more hop on each call: a read of a
 * large file crossed two pipes and a socket). Same tools, same checks: every call goes through
 * the channel's `answer` (its limits, its path boundary, its file path and review).
 *
 * Who may call: only 127.0.0.1, only with the chat's bearer token (random, per chat, compared in
 * constant time, never logged: it is one of the chat's secrets), only under the Host the agent
 * was given (a web page cannot reach it by rebinding a name) and with no Origin (browsers send
 * one; agents do not). Nothing of the request is read before that.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { errorMessage } from "../protocol/errors.js";
import type { ToolAnswer } from "./mcp-tools.js";
import { sameToken } from "./channel-dir.js";
import { loadMcpSdk } from "./sdk-loader.js";
import { SERVER_NAME, type ToolName } from "./tools.js";

/** The endpoint as session/new passes it to the agent (ACP's http McpServer). */
export interface HttpMcpServer {
  type: "http";
  name: string;
  url: string;
  headers: { name: string; value: string }[];
}

export interface HttpFrontOptions {
  tools: readonly ToolName[];
  answer: (tool: ToolName, args: unknown) => Promise<ToolAnswer>;
  /** The largest request body (a write_file carries a whole file). */
  maxBodyBytes: number;
  onProblem?: (message: string) => void;
}

const PATH = "/mcp";
/** MCP sessions held at once: an agent restarted or reconnecting opens a new one; the oldest goes. */
const MAX_SESSIONS = 8;

interface Session {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
}

export class EditorHttpFront {
  readonly token = randomBytes(32).toString("base64url");
  private server: Server | undefined;
  private listening: Promise<number> | undefined;
  private readonly sessions = new Map<string, Session>();
  private closed = false;

  constructor(private readonly opts: HttpFrontOptions) {}

  /** Listening (on first use: only agents that take http servers need it), and its entry. */
  async entry(): Promise<HttpMcpServer> {
    const [port] = await Promise.all([(this.listening ??= this.listen()), loadMcpSdk()]);
    return {
      type: "http",
      name: SERVER_NAME,
      url: `http://127.0.0.1:${port}${PATH}`,
      headers: [{ name: "Authorization", value: `Bearer ${this.token}` }],
    };
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.sessions.values()) void s.transport.close().catch(() => undefined);
    this.sessions.clear();
    this.server?.close();
    this.server?.closeAllConnections();
  }

  private listen(): Promise<number> {
    if (this.closed) return Promise.reject(new Error("the chat closed"));
    const server = createServer((req, res) => {
      this.handle(req, res).catch((e) => {
        this.opts.onProblem?.(`editor tools (http): ${errorMessage(e)}`);
        if (!res.headersSent) deny(res, 500, "internal error");
        else res.destroy();
      });
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => {
        server.off("error", reject);
        server.on("error", (e) => this.opts.onProblem?.(`editor tools (http): ${errorMessage(e)}`));
        resolve((server.address() as AddressInfo).port);
      });
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.closed) return deny(res, 503, "the chat closed");
    const port = (this.server?.address() as AddressInfo | null)?.port;
    if (req.headers.host !== `127.0.0.1:${port}` || req.headers.origin !== undefined)
      return deny(res, 403, "forbidden");
    if (!this.authorized(req.headers.authorization)) {
      this.opts.onProblem?.("editor tools (http): a request without the chat's token was refused");
      return deny(res, 401, "unauthorized", { "WWW-Authenticate": "Bearer" });
    }
    if ((req.url ?? "").split("?")[0] !== PATH) return deny(res, 404, "not found");
    const sid = req.headers["mcp-session-id"];
    if (typeof sid === "string") {
      const s = this.sessions.get(sid);
      if (!s) return deny(res, 404, "unknown MCP session (the chat restarted it): initialize again");
      return s.transport.handleRequest(req, res);
    }
    if (req.method !== "POST") return deny(res, 405, "POST an initialize request first", { Allow: "POST" });
    // A new MCP session: the transport answers anything but `initialize` with an error.
    const { StreamableHTTPServerTransport, editorMcpServer } = await loadMcpSdk();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      maxRequestBodySize: this.opts.maxBodyBytes,
      onsessioninitialized: (id: string): void => this.keep(id, { transport, server }),
    });
    const server: McpServer = editorMcpServer(this.opts.tools, (tool, args) => this.opts.answer(tool, args));
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    if (!transport.sessionId || this.closed) await transport.close().catch(() => undefined);
  }

  private keep(id: string, s: Session): void {
    this.sessions.set(id, s);
    for (const [old, o] of this.sessions) {
      if (this.sessions.size <= MAX_SESSIONS) break;
      this.sessions.delete(old);
      void o.transport.close().catch(() => undefined);
    }
  }

  private authorized(header: string | undefined): boolean {
    const m = /^Bearer (\S+)$/.exec(header ?? "");
    return m !== null && sameToken(m[1], this.token);
  }
}

function deny(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "Content-Type": "application/json", ...headers });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}
