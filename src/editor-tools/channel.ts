/**
 * The host's end of the editor's MCP server. Each chat gets its own channel: a Unix
 * socket in a fresh directory only this user can open, and a random token. The server process
 * the agent starts (mcp-server.ts) is handed both in its environment, proves the token on its
 * first line, then pipes the agent's MCP messages both ways: the MCP server itself runs here
 * (socket-transport.ts), as for agents that take http. The agent never gets Neovim's own RPC socket: every
 * question goes through this host, which checks paths against the session's folders, asks the
 * editor (`query`), and formats the answer (format.ts). The file tools go to the chat's own
 * file path instead (`files`: fs/read_text_file and fs/write_text_file, file-tools.ts).
 * Closing the channel ends the server.
 */
import { randomBytes } from "node:crypto";
import { chmodSync, constants as fsc, rmSync } from "node:fs";
import { access, open, stat } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { errorMessage } from "../protocol/errors.js";
import { privateSocketDir, sameToken } from "./channel-dir.js";
import { PathBoundary } from "../workspace/path-boundary.js";
import { readUpTo } from "../workspace/small-file.js";
import { DEFAULT_READ_LINES, applyEdit, formatRead, listFiles, type EditorFiles } from "./file-tools.js";
import { formatResult, shownPath, type RawResult } from "./format.js";
import { EditorHttpFront, type HttpMcpServer } from "./http-front.js";
import type { ToolAnswer } from "./mcp-tools.js";
import { readLines, writeLine } from "./lines.js";
import { loadMcpSdk } from "./sdk-loader.js";
import type { SocketTransport } from "./socket-transport.js";
import {
  ENV_SOCKET,
  ENV_TOKEN,
  SERVER_NAME,
  TOOL_NAMES,
  isFileTool,
  isToolName,
  parseArgs,
  type FileToolName,
  type ToolName,
} from "./tools.js";

export interface EditorChannelOptions {
  cwd: string;
  extraRoots?: string[];
  /** The tools offered (all by default). */
  tools?: ToolName[];
  /** `node` and the bundled server script (dist/acpchat-mcp.cjs). */
  node: string;
  script: string;
  /** The chat's file path for the file tools (without it they are not offered). */
  files?: EditorFiles;
  /** Ask the editor; resolves with what lua/acpchat/editor/editor_tools.lua answered. */
  query: (tool: ToolName, args: Record<string, unknown>, signal: AbortSignal) => Promise<RawResult>;
  /** How long the editor (and its language servers) may take for one tool call. */
  timeoutMs?: number;
  maxItems?: number;
  maxChars?: number;
  /** The largest file a tool opens in the editor (fs.max_read_bytes: what the agent may read). */
  maxFileBytes?: number;
  /** For the chat's trace; never carries the token. */
  onProblem?: (message: string) => void;
  /** "stdio": offer the server process even to an agent that takes http MCP servers. */
  transport?: "stdio";
}

/** The MCP server's entry in session/new's mcpServers (ACP's stdio McpServer). */
export interface StdioMcpServer {
  name: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

/** A call's line: a whole file crosses in write_file (16 MiB of content, escaped as JSON). */
const MAX_LINE = 48 << 20;
/** Before the token is proven, only a short line is read: a stranger cannot make the host hold 48 MiB. */
const MAX_HELLO_LINE = 64 << 10;
const HELLO_MS = 5_000;
/** Calls of one channel run at once in the editor; more wait, up to MAX_WAITING, then are refused. */
const MAX_RUNNING = 4;
const MAX_WAITING = 16;
/** A location's text is read only from files up to this size. */
const MAX_LINE_FILE = 4 << 20;
/** The tools that open the file at `path` in the editor (so its language server attaches). */
const OPENS_FILE = new Set<ToolName>(["definition", "references", "hover", "document_symbols"]);

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
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** The same tools over HTTP, served here, for agents that take http MCP servers. */
  private readonly http: EditorHttpFront;

  constructor(private readonly opts: EditorChannelOptions) {
    this.boundary = new PathBoundary(opts.cwd, opts.extraRoots);
    // The file tools need the chat's file path: without one they are not offered.
    this.tools = (opts.tools ?? [...TOOL_NAMES]).filter((t) => opts.files || !isFileTool(t));
    this.http = new EditorHttpFront({
      tools: this.tools,
      answer: (tool, args) => this.answer(tool, args),
      maxBodyBytes: MAX_LINE,
      onProblem: opts.onProblem,
    });
    this.dir = privateSocketDir();
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

  /**
   * The server as an http entry of session/new, for an agent that advertises
   * `mcpCapabilities.http`: served by this host, with no process between the agent and the editor.
   */
  get transport(): "stdio" | undefined {
    return this.opts.transport;
  }

  httpMcpServer(): Promise<HttpMcpServer> {
    return this.http.entry();
  }

  /** Values no trace, log or transcript may show. */
  get secrets(): string[] {
    return [this.token, this.http.token, this.socketPath, this.dir];
  }

  /** The tools offered to the agent. */
  get offered(): readonly ToolName[] {
    return this.tools;
  }

  get connections(): number {
    return this.sockets.size;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.http.close();
    for (const c of this.inflight) c.abort();
    for (const w of this.waiting.splice(0)) w();
    for (const s of this.sockets) s.destroy();
    this.server.close();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private accept(socket: Socket): void {
    if (this.closed) return void socket.destroy();
    this.sockets.add(socket);
    socket.on("close", () => this.sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    let mcp: SocketTransport | undefined;
    // Lines that came while the MCP SDK loads (the first proven connection), delivered in order.
    let early: unknown[] | undefined;
    let refused = false;
    const hello = setTimeout(() => this.refuse(socket, "no token within 5 s"), HELLO_MS);
    socket.on("close", () => clearTimeout(hello));
    const deliver = (msg: unknown) => {
      if (refused || !mcp) return;
      if (!mcp.deliver(msg)) {
        refused = true;
        this.refuse(socket, "closed: a line that is not a JSON-RPC message");
      }
    };
    readLines(
      socket,
      () => (mcp || early ? MAX_LINE : MAX_HELLO_LINE),
      (msg) => {
        if (refused) return;
        if (early) return void early.push(msg);
        if (!mcp) {
          clearTimeout(hello);
          if (!this.tokenMatches((msg as { token?: unknown })?.token)) {
            refused = true;
            return this.refuse(
              socket,
              "the editor refused this server's token (it belongs to another chat, or the chat was restarted)",
            );
          }
          writeLine(socket, { ok: true });
          early = [];
          this.serve(socket).then(
            (t) => {
              mcp = t;
              const waiting = early ?? [];
              early = undefined;
              for (const m of waiting) deliver(m);
            },
            (e) => {
              refused = true;
              this.refuse(socket, `the editor's MCP server did not start: ${errorMessage(e)}`);
            },
          );
          return;
        }
        deliver(msg);
      },
      (why) => this.refuse(socket, `closed: ${why}`),
    );
  }

  private tokenMatches(given: unknown): boolean {
    return sameToken(given, this.token);
  }

  private refuse(socket: Socket, why: string): void {
    this.opts.onProblem?.(`editor tools: a connection was refused: ${why}`);
    writeLine(socket, { error: why });
    socket.end();
    setTimeout(() => socket.destroy(), 100).unref();
  }

  /** The MCP server of one proven connection: the tools and `answer` the http endpoint has. */
  private async serve(socket: Socket): Promise<SocketTransport> {
    const { SocketTransport, editorMcpServer } = await loadMcpSdk();
    const transport = new SocketTransport(socket);
    const server = editorMcpServer(this.tools, (tool, args) => this.answer(tool, args, () => socket.destroyed));
    server.connect(transport).catch((e) => this.opts.onProblem?.(`editor tools: ${errorMessage(e)}`));
    return transport;
  }

  /**
   * One tool call from either way in (this socket, or the HTTP endpoint), within the channel's
   * limits: a client flooding calls must not flood the editor, so a few run, some wait, the rest
   * are refused. `gone`: the caller left while it waited.
   */
  async answer(tool: unknown, args: unknown, gone: () => boolean = () => false): Promise<ToolAnswer> {
    if (this.running >= MAX_RUNNING && this.waiting.length >= MAX_WAITING)
      return {
        text: `the editor is busy with ${this.running + this.waiting.length} calls of this server; call again once they have answered`,
        error: true,
      };
    if (this.running >= MAX_RUNNING) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      if (this.closed || gone()) return { text: "the chat closed", error: false };
      return { text: await this.run(tool, args), error: false };
    } catch (e) {
      return { text: errorMessage(e), error: true };
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /** One tool call: checked, asked of the editor with a time limit, formatted. */
  async run(tool: unknown, rawArgs: unknown): Promise<string | string[]> {
    if (!isToolName(tool) || !this.tools.includes(tool))
      throw new Error(`unknown tool ${JSON.stringify(tool)}; this editor offers: ${this.tools.join(", ")}`);
    const args = parseArgs(tool, rawArgs);
    if (isFileTool(tool)) return this.runFileTool(tool, args);
    if (typeof args.path === "string") {
      try {
        args.path = this.boundary.check(args.path, tool);
      } catch {
        throw new Error(
          `${args.path} is outside the session's folders (${this.boundary.cwd}); the editor answers only for files inside them`,
        );
      }
      // Opening a FIFO, a device or a directory would stop the editor (or hand it to netrw); a
      // huge file would stall it while it loads. Checked here, before the editor is asked.
      if (OPENS_FILE.has(tool)) await this.openable(args.path as string, tool);
    }
    const timeoutMs = this.opts.timeoutMs ?? 5_000;
    const abort = new AbortController();
    this.inflight.add(abort);
    const timer = setTimeout(
      () => abort.abort(new Error(`the editor did not answer ${tool} within ${timeoutMs} ms`)),
      timeoutMs + 1_000,
    );
    try {
      const raw = await new Promise<RawResult>((resolve, reject) => {
        abort.signal.addEventListener(
          "abort",
          () => reject(abort.signal.reason instanceof Error ? abort.signal.reason : new Error("the chat closed")),
          { once: true },
        );
        this.opts.query(tool, { ...args, timeout_ms: timeoutMs }, abort.signal).then(resolve, reject);
      });
      const files = await this.linesForLocations(tool, raw);
      return formatResult(
        tool,
        raw,
        {
          cwd: this.boundary.cwd,
          inside: (p) => this.boundary.contains(p),
          lineOf: (p, line) => files.get(p)?.[line - 1],
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

  /**
   * A file tool: the chat's file path checks the path (as fs/* do: the same boundary, the same
   * note to the user when it is outside) and reads or writes. No time limit: a write waits for
   * the user's review; closing the chat ends it.
   */
  private async runFileTool(tool: FileToolName, args: Record<string, unknown>): Promise<string | string[]> {
    const files = this.opts.files!;
    const abort = new AbortController();
    this.inflight.add(abort);
    const cwd = this.boundary.cwd;
    try {
      const path = args.path as string;
      switch (tool) {
        case "read_file": {
          const first = (args.line as number | undefined) ?? 1;
          const limit = (args.limit as number | undefined) ?? DEFAULT_READ_LINES;
          // One line more than shown: whether the file goes on.
          const r = await files.read(path, args.line as number | undefined, limit + 1, abort.signal, true);
          return formatRead(cwd, r, first, limit);
        }
        case "write_file":
          return await files.write(path, args.content as string, abort.signal);
        case "edit_file": {
          const r = await files.read(path, undefined, undefined, abort.signal);
          const next = applyEdit(
            shownPath(cwd, r.path),
            r.content,
            args.old_string as string,
            args.new_string as string,
            args.replace_all === true,
          );
          return await files.write(r.path, next, abort.signal);
        }
        case "list_files": {
          let dir = cwd;
          if (typeof args.path === "string") {
            try {
              dir = this.boundary.check(args.path, "list");
            } catch {
              throw new Error(
                `${args.path} is outside the session's folders (${cwd}); list_files lists only inside them`,
              );
            }
            const st = await stat(dir).catch(() => undefined);
            if (!st?.isDirectory()) throw new Error(`${shownPath(cwd, dir)} is not a folder`);
          }
          return await listFiles(cwd, dir, args.pattern as string | undefined, abort.signal);
        }
      }
    } finally {
      this.inflight.delete(abort);
    }
  }

  private async openable(path: string, tool: ToolName): Promise<void> {
    const shown = shownPath(this.boundary.cwd, path);
    let st;
    try {
      st = await stat(path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new Error(
        code === "ENOENT" || code === "ENOTDIR"
          ? `${shown}: no such file`
          : `${shown}: cannot be read (${code ?? errorMessage(e)})`,
      );
    }
    if (!st.isFile())
      throw new Error(
        `${shown} is not a regular file (${st.isDirectory() ? "a directory" : "a FIFO, socket or device"}); ${tool} needs a source file`,
      );
    const max = this.opts.maxFileBytes ?? 10 * 1024 * 1024;
    if (st.size > max)
      throw new Error(
        `${shown} is larger than ${max} bytes (fs.max_read_bytes); the editor does not open it for ${tool}`,
      );
    // Neovim would load an unreadable file as an empty buffer, and its language server see nothing.
    await access(path, fsc.R_OK).catch(() => {
      throw new Error(`${shown} cannot be read (permission denied)`);
    });
  }

  /**
   * The text of the lines the answer shows (definition, references) that the editor did not send:
   * only the locations that will be listed, read without blocking, from regular text files only.
   */
  private async linesForLocations(tool: ToolName, raw: RawResult): Promise<Map<string, string[] | undefined>> {
    const files = new Map<string, string[] | undefined>();
    if (tool !== "definition" && tool !== "references") return files;
    const wanted: string[] = [];
    for (const item of (raw.items ?? []) as { path?: unknown; text?: unknown }[]) {
      if (wanted.length >= (this.opts.maxItems ?? 200)) break;
      if (typeof item?.path !== "string" || !this.boundary.contains(item.path)) continue;
      if (item.text === undefined && !wanted.includes(item.path)) wanted.push(item.path);
    }
    await Promise.all(
      wanted.map(async (p) => {
        let real: string;
        try {
          real = this.boundary.check(p, "read");
        } catch {
          return; // moved outside since: its text is not shown
        }
        files.set(p, await readLinesOf(real));
      }),
    );
    return files;
  }
}

/**
 * A file's lines for showing a location's text: small regular text files only. Opened without
 * blocking (a FIFO would wait for a writer) and checked on the open descriptor, so a file swapped
 * for a FIFO after a check cannot stop the host.
 */
async function readLinesOf(path: string): Promise<string[] | undefined> {
  let fh;
  try {
    fh = await open(path, fsc.O_RDONLY | fsc.O_NONBLOCK);
    const st = await fh.stat();
    if (!st.isFile() || st.size > MAX_LINE_FILE) return undefined;
    // At most MAX_LINE_FILE + 1 bytes: the file may have grown since the stat.
    const bytes = readUpTo(fh.fd, MAX_LINE_FILE);
    if (bytes.length > MAX_LINE_FILE || bytes.includes(0)) return undefined;
    return new TextDecoder("utf-8", { fatal: false }).decode(bytes).split(/\r?\n/);
  } catch {
    return undefined;
  } finally {
    await fh?.close().catch(() => undefined);
  }
}
