/**
 * The host's end of the editor's MCP server (issue 17). Each chat gets its own channel: a Unix
 * socket in a fresh directory only this user can open, and a random token. The MCP server the
 * agent starts (mcp-server.ts) is handed both in its environment, proves the token on its first
 * line, then asks for tools by name. The agent never gets Neovim's own RPC socket: every
 * question goes through this host, which checks paths against the session's folders, asks the
 * editor (`query`), and formats the answer (format.ts). Closing the channel ends the server.
 */
import { timingSafeEqual, randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { errorMessage } from "../protocol/errors.js";
import { PathBoundary } from "../workspace/path-boundary.js";
import { formatResult, type RawResult } from "./format.js";
import { readLines, writeLine } from "./lines.js";
import { ENV_SOCKET, ENV_TOKEN, SERVER_NAME, TOOL_NAMES, isToolName, parseArgs, type ToolName } from "./tools.js";

export interface EditorChannelOptions {
  cwd: string;
  extraRoots?: string[];
  /** The tools offered (all by default). */
  tools?: ToolName[];
  /** `node` and the bundled server script (dist/acpchat-mcp.cjs). */
  node: string;
  script: string;
  /** Ask the editor; resolves with what lua/acpchat/editor_tools.lua answered. */
  query: (tool: ToolName, args: Record<string, unknown>, signal: AbortSignal) => Promise<RawResult>;
  /** How long the editor (and its language servers) may take for one tool call. */
  timeoutMs?: number;
  maxItems?: number;
  maxChars?: number;
  /** For the chat's trace; never carries the token. */
  onProblem?: (message: string) => void;
}

/** The MCP server's entry in session/new's mcpServers (ACP's stdio McpServer). */
export interface StdioMcpServer {
  name: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

const MAX_LINE = 1 << 20;
const HELLO_MS = 5_000;

/** A directory for the socket: $XDG_RUNTIME_DIR (per user, 0700) when there is one, else the temp dir. */
function socketBase(): string {
  const run = process.env.XDG_RUNTIME_DIR;
  try {
    if (run && statSync(run).isDirectory()) return run;
  } catch {
    // fall through
  }
  return tmpdir();
}

export class EditorChannel {
  readonly token = randomBytes(32).toString("base64url");
  readonly dir: string;
  readonly socketPath: string;
  /** Listening (the agent may start the server as soon as session/new arrives). */
  readonly ready: Promise<void>;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly inflight = new Set<AbortController>();
  private readonly boundary: PathBoundary;
  private readonly tools: ToolName[];
  private closed = false;

  constructor(private readonly opts: EditorChannelOptions) {
    this.boundary = new PathBoundary(opts.cwd, opts.extraRoots);
    this.tools = opts.tools ?? [...TOOL_NAMES];
    // mkdtemp makes the directory 0700: nobody else can reach the socket inside it. Its name
    // carries this host's pid, so that one left by a host that was killed can be swept.
    const base = socketBase();
    sweepStale(base);
    this.dir = mkdtempSync(join(base, `acpchat-${process.pid}-`));
    chmodSync(this.dir, 0o700);
    this.socketPath = join(this.dir, "editor.sock");
    this.server = createServer((s) => this.accept(s));
    this.ready = new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.socketPath, () => {
        chmodSync(this.socketPath, 0o600);
        resolve();
      });
    });
  }

  /** The server as session/new passes it to the agent. */
  get mcpServer(): StdioMcpServer {
    return {
      name: SERVER_NAME,
      command: this.opts.node,
      args: [this.opts.script, "--tools", this.tools.join(",")],
      env: [
        { name: ENV_SOCKET, value: this.socketPath },
        { name: ENV_TOKEN, value: this.token },
      ],
    };
  }

  /** Values no trace, log or transcript may show. */
  get secrets(): string[] {
    return [this.token, this.socketPath, this.dir];
  }

  get connections(): number {
    return this.sockets.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const c of this.inflight) c.abort();
    for (const s of this.sockets) s.destroy();
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private accept(socket: Socket): void {
    if (this.closed) return void socket.destroy();
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let authed = false;
    const hello = setTimeout(() => this.refuse(socket, "no token within 5 s"), HELLO_MS);
    socket.on("close", () => clearTimeout(hello));
    readLines(
      socket,
      MAX_LINE,
      (msg) => {
        if (!authed) {
          clearTimeout(hello);
          if (!this.tokenMatches((msg as { token?: unknown })?.token)) return this.refuse(socket, "the editor refused this server's token (it belongs to another chat, or the chat was restarted)");
          authed = true;
          return writeLine(socket, { ok: true });
        }
        void this.call(socket, msg as { id?: unknown; tool?: unknown; args?: unknown });
      },
      (why) => this.refuse(socket, `closed: ${why}`),
    );
  }

  private tokenMatches(given: unknown): boolean {
    if (typeof given !== "string") return false;
    const a = Buffer.from(given);
    const b = Buffer.from(this.token);
    return a.length === b.length && timingSafeEqual(a, b);
  }

  private refuse(socket: Socket, why: string): void {
    this.opts.onProblem?.(`editor tools: a connection was refused: ${why}`);
    writeLine(socket, { error: why });
    socket.end();
    setTimeout(() => socket.destroy(), 100).unref();
  }

  private async call(socket: Socket, msg: { id?: unknown; tool?: unknown; args?: unknown }): Promise<void> {
    const id = msg.id;
    try {
      const text = await this.run(msg.tool, msg.args);
      writeLine(socket, { id, text });
    } catch (e) {
      writeLine(socket, { id, text: errorMessage(e), error: true });
    }
  }

  /** One tool call: checked, asked of the editor with a time limit, formatted. */
  async run(tool: unknown, rawArgs: unknown): Promise<string> {
    if (!isToolName(tool) || !this.tools.includes(tool)) throw new Error(`unknown tool ${JSON.stringify(tool)}; this editor offers: ${this.tools.join(", ")}`);
    const args = parseArgs(tool, rawArgs);
    if (typeof args.path === "string") {
      try {
        args.path = this.boundary.check(args.path, tool);
      } catch {
        throw new Error(`${args.path} is outside the session's folders (${this.boundary.cwd}); the editor answers only for files inside them`);
      }
    }
    const timeoutMs = this.opts.timeoutMs ?? 5_000;
    const abort = new AbortController();
    this.inflight.add(abort);
    const timer = setTimeout(() => abort.abort(new Error(`the editor did not answer ${tool} within ${timeoutMs} ms`)), timeoutMs + 1_000);
    try {
      const raw = await new Promise<RawResult>((resolve, reject) => {
        abort.signal.addEventListener("abort", () => reject(abort.signal.reason instanceof Error ? abort.signal.reason : new Error("the chat closed")), { once: true });
        this.opts.query(tool, { ...args, timeout_ms: timeoutMs }, abort.signal).then(resolve, reject);
      });
      const files = new Map<string, string[] | undefined>();
      return formatResult(
        tool,
        raw,
        {
          cwd: this.boundary.cwd,
          inside: (p) => this.boundary.contains(p),
          lineOf: (p, line) => {
            if (!files.has(p)) files.set(p, readLinesOf(p));
            return files.get(p)?.[line - 1];
          },
          maxItems: this.opts.maxItems ?? 200,
          maxChars: this.opts.maxChars ?? 20_000,
        },
        args,
      );
    } finally {
      clearTimeout(timer);
      this.inflight.delete(abort);
    }
  }
}

/** Channel folders of hosts that are gone (killed before they could remove them). */
function sweepStale(base: string): void {
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return;
  }
  for (const name of names) {
    const m = /^acpchat-(\d+)-[A-Za-z0-9]{6}$/.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    try {
      const dir = join(base, name);
      if (statSync(dir).uid === process.getuid?.()) rmSync(dir, { recursive: true, force: true });
    } catch {
      // another user's, or gone already
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A file's lines for showing a location's text: small text files only. */
function readLinesOf(path: string): string[] | undefined {
  try {
    if (statSync(path).size > 4 << 20) return undefined;
    const text = readFileSync(path, "utf8");
    return text.includes("\0") ? undefined : text.split(/\r?\n/);
  } catch {
    return undefined;
  }
}
