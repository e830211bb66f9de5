/**
 * The editor's MCP server as the agent starts it over stdio for each session:
 * `node dist/acpchat-mcp.cjs --tools diagnostics,definition,...`. It knows nothing of Neovim: it
 * connects to the chat's private channel (channel.ts) named in its environment, proves the
 * token, and from then on only pipes bytes, the agent's messages to the channel and the answers
 * back: the MCP server runs in the host. A read of a large file crosses this process as bytes,
 * with no decoding, parsing or escaping here (it did all three when the server lived here).
 * When the channel closes (the chat closed, Neovim exited) or the agent closes stdin, it exits.
 * Refused (a wrong token, a closed chat), it answers the agent itself: every tool call says why.
 */
import { createConnection, type Socket } from "node:net";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { editorMcpServer } from "./mcp-tools.js";
import { ENV_SOCKET, ENV_TOKEN, TOOL_NAMES, isToolName, type ToolName } from "./tools.js";

const HELLO_MS = 5_000;
/** The channel's answer to the token is one short line. */
const MAX_HELLO = 64 << 10;

/** Connect and prove the token: the socket, with what came after the channel's "ok" line; else why not. */
function link(path: string, token: string): Promise<{ socket: Socket; rest: Buffer } | { failure: string }> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let got = Buffer.alloc(0);
    let settled = false;
    const done = (r: { socket: Socket; rest: Buffer } | { failure: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off("data", onData);
      if ("failure" in r) socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => done({ failure: "the editor did not answer within 5 s" }), HELLO_MS);
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      const nl = got.indexOf(10);
      if (nl < 0) {
        if (got.length > MAX_HELLO) done({ failure: "the editor's answer was not understood" });
        return;
      }
      let hello: { ok?: unknown; error?: unknown } | null = null;
      try {
        hello = JSON.parse(got.subarray(0, nl).toString("utf8"));
      } catch {
        // not understood: below
      }
      if (hello?.ok === true) {
        socket.pause();
        return done({ socket, rest: got.subarray(nl + 1) });
      }
      done({ failure: String(hello?.error ?? "the editor's answer was not understood") });
    };
    socket.on("data", onData);
    socket.once("connect", () => socket.write(`${JSON.stringify({ token })}\n`));
    socket.on("error", (e: NodeJS.ErrnoException) =>
      done({
        failure:
          e.code === "ENOENT" || e.code === "ECONNREFUSED"
            ? "the chat that started this server is closed"
            : `cannot reach the editor: ${e.message}`,
      }),
    );
    socket.once("close", () => done({ failure: "the chat that started this server closed" }));
  });
}

/** From the "ok" on: the agent's bytes to the channel, the channel's to the agent, until either ends. */
function pipe(socket: Socket, rest: Buffer): void {
  socket.removeAllListeners("close");
  socket.removeAllListeners("error");
  if (rest.length > 0) process.stdout.write(rest);
  socket.pipe(process.stdout, { end: false });
  process.stdin.pipe(socket);
  // The chat closed: what it sent last reaches the agent, then this process ends.
  socket.on("close", () => process.stdout.write("", () => process.exit(0)));
  socket.on("error", () => socket.destroy());
  process.stdin.on("end", () => socket.end());
  socket.resume();
}

/** Refused: an MCP server of its own whose every tool call says why, until the agent leaves. */
async function refused(tools: ToolName[], failure: string): Promise<void> {
  const server = editorMcpServer(tools, async () => ({
    text: `The editor is not available: ${failure}.`,
    error: true,
  }));
  process.stdin.on("end", () => process.exit(0));
  await server.connect(new StdioServerTransport());
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
  const r = await link(path, token);
  if ("failure" in r) return refused(offered(process.argv), r.failure);
  pipe(r.socket, r.rest);
}

void main();
