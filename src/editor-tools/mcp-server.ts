/**
 * The editor's MCP server, started by the agent over stdio for each session:
 * `node dist/acpchat-mcp.cjs --tools diagnostics,definition,...`. It knows nothing of Neovim: it
 * connects to the chat's private channel (channel.ts) named in its environment, proves the
 * token, and forwards each tool call there. When the channel closes (the chat closed, Neovim
 * exited) or the agent closes stdin, it exits.
 */
import { createConnection, type Socket } from "node:net";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { readLines, writeLine } from "./lines.js";
import { editorMcpServer } from "./mcp-tools.js";
import { ENV_SOCKET, ENV_TOKEN, TOOL_NAMES, isToolName, type ToolName } from "./tools.js";

interface Answer {
  id?: number;
  text?: string;
  error?: unknown;
  ok?: boolean;
}

/** The connection to the chat's host; calls fail with the reason once it is refused or gone. */
class EditorLink {
  private readonly socket: Socket;
  private readonly pending = new Map<number, (a: Answer) => void>();
  private next = 1;
  private failure: string | undefined;
  private readonly authed: Promise<void>;

  constructor(path: string, token: string, onGone: () => void) {
    this.socket = createConnection(path);
    this.authed = new Promise((resolve) => {
      this.socket.once("connect", () => writeLine(this.socket, { token }));
      readLines(
        this.socket,
        64 << 20,
        (msg, body) => {
          const a = msg as Answer;
          if (a.ok === true) return resolve();
          if (a.id === undefined) {
            this.failure = String(a.error ?? "the editor closed the channel");
            return resolve();
          }
          if (body) a.text = body.toString("utf8");
          this.pending.get(a.id)?.(a);
          this.pending.delete(a.id);
        },
        (why) => this.fail(`the channel to the editor broke (${why})`),
        // An answer's text follows its line as raw bytes (lines.ts writeAnswer).
        (msg) => {
          const n = (msg as { bytes?: unknown } | null)?.bytes;
          return typeof n === "number" ? n : undefined;
        },
      );
    });
    this.socket.on("error", (e: NodeJS.ErrnoException) =>
      this.fail(
        e.code === "ENOENT" || e.code === "ECONNREFUSED"
          ? "the chat that started this server is closed"
          : `cannot reach the editor: ${e.message}`,
      ),
    );
    this.socket.on("close", () => {
      this.fail(this.failure ?? "the chat that started this server closed");
      onGone();
    });
  }

  private fail(why: string): void {
    this.failure ??= why;
    for (const [, answer] of this.pending) answer({ text: this.failure, error: true });
    this.pending.clear();
  }

  async call(tool: ToolName, args: unknown): Promise<{ text: string; error: boolean }> {
    await Promise.race([this.authed, new Promise((r) => setTimeout(r, 5_000))]);
    if (this.failure) return { text: `The editor is not available: ${this.failure}.`, error: true };
    const id = this.next++;
    const answer = new Promise<Answer>((resolve) => this.pending.set(id, resolve));
    writeLine(this.socket, { id, tool, args });
    const a = await answer;
    return { text: a.text ?? "", error: a.error === true };
  }
}

function offered(argv: string[]): ToolName[] {
  const i = argv.indexOf("--tools");
  if (i < 0) return [...TOOL_NAMES];
  return (argv[i + 1] ?? "").split(",").filter(isToolName);
}

async function main(): Promise<void> {
  const path = process.env[ENV_SOCKET];
  const token = process.env[ENV_TOKEN];
  if (!path || !token) {
    process.stderr.write(
      `acpchat-mcp: ${ENV_SOCKET} and ${ENV_TOKEN} are not set: acp-chat.nvim starts this server for each chat, it is not meant to be run by hand\n`,
    );
    process.exit(2);
  }
  // Nothing this process starts should inherit the token.
  delete process.env[ENV_TOKEN];
  const link = new EditorLink(path, token, () => setTimeout(() => process.exit(0), 50));
  const server = editorMcpServer(offered(process.argv), (name, args) => link.call(name, args));
  process.stdin.on("end", () => process.exit(0));
  await server.connect(new StdioServerTransport());
}

void main();
