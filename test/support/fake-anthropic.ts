/**
 * A fake Anthropic Messages API on 127.0.0.1 for driving the real claude-code-acp and
 * claude-agent-acp agents without a network. The user's prompt is a small script, one command per turn:
 *   read <abs path>            -> tool_use mcp__acp__Read, then a reply quoting the result
 *   write <abs path> <text>    -> tool_use mcp__acp__Write, then a reply quoting the result
 *   run <command>              -> tool_use mcp__acp__Bash, then a reply quoting the result
 *   tool <name> <json input>   -> tool_use of any tool the agent offers (an MCP server's:
 *                                 mcp__<server>__<tool>), then a reply quoting the result
 *   anything else              -> a plain text reply
 * Requests are answered with server-sent events like the real API.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

interface Block {
  type: string;
  text?: string;
  content?: unknown;
  tool_use_id?: string;
  is_error?: boolean;
}
interface Message {
  role: "user" | "assistant";
  content: string | Block[];
}

export interface FakeAnthropic {
  url: string;
  requests: { path: string; body: unknown }[];
  close(): Promise<void>;
}

function blocks(m: Message): Block[] {
  return typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
}

/** The last user text that is a script command (not a tool result, not a system reminder). */
function command(messages: Message[]): { text: string; results: Block[] } {
  let text = "";
  let results: Block[] = [];
  for (const m of messages) {
    if (m.role !== "user") continue;
    const bs = blocks(m);
    const tr = bs.filter((b) => b.type === "tool_result");
    // The client's notes ("[acp-chat.nvim] Note: ...") go before the user's words, and
    // claude-agent-acp adds the output of its own commands (`<local-command-stdout>`, ...):
    // neither is the command.
    const texts = bs
      .filter((b) => b.type === "text" && b.text && !b.text.includes("<system-reminder>"))
      .map((b) => b.text!.replace(/^\[acp-chat\.nvim\] .*$/gm, "").trim())
      .filter((t) => t !== "" && !/^<(local-command|command-)/.test(t));
    if (tr.length > 0) results.push(...tr);
    else if (texts.length > 0) {
      text = texts.join("\n").trim();
      results = [];
    }
  }
  return { text, results };
}

function resultText(b: Block): string {
  if (typeof b.content === "string") return b.content;
  if (Array.isArray(b.content)) return (b.content as Block[]).map((x) => x.text ?? "").join("");
  return JSON.stringify(b.content);
}

function sse(res: ServerResponse, events: [string, unknown][]): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

let ids = 0;
function reply(
  res: ServerResponse,
  model: string,
  content: { text?: string; tool?: { name: string; input: unknown } },
  stream: boolean,
): void {
  const id = `msg_fake_${ids++}`;
  const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block = content.tool
    ? { type: "tool_use", id: `toolu_fake_${ids++}`, name: content.tool.name, input: content.tool.input }
    : { type: "text", text: content.text ?? "" };
  const stop = content.tool ? "tool_use" : "end_turn";
  if (!stream) {
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id,
        type: "message",
        role: "assistant",
        model,
        content: [block],
        stop_reason: stop,
        stop_sequence: null,
        usage,
      }),
    );
    return;
  }
  const start = content.tool ? { ...block, input: {} } : { type: "text", text: "" };
  const delta = content.tool
    ? { type: "input_json_delta", partial_json: JSON.stringify(content.tool.input) }
    : { type: "text_delta", text: content.text ?? "" };
  sse(res, [
    [
      "message_start",
      {
        type: "message_start",
        message: {
          id,
          type: "message",
          role: "assistant",
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
    ],
    ["content_block_start", { type: "content_block_start", index: 0, content_block: start }],
    ["content_block_delta", { type: "content_block_delta", index: 0, delta }],
    ["content_block_stop", { type: "content_block_stop", index: 0 }],
    [
      "message_delta",
      { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 20 } },
    ],
    ["message_stop", { type: "message_stop" }],
  ]);
}

function decide(body: { messages: Message[]; tools?: { name: string }[] }): {
  text?: string;
  tool?: { name: string; input: unknown };
} {
  // The agent's turn offers tools (claude-code-acp's mcp__acp__*, claude-agent-acp's Bash); its
  // side requests (a title) offer none.
  const hasAcpTools = (body.tools ?? []).some((t) => t.name.startsWith("mcp__acp__") || t.name === "Bash");
  const { text, results } = command(body.messages ?? []);
  if (!hasAcpTools) return { text: "Fake title" };
  if (results.length > 0) {
    const r = results[results.length - 1]!;
    return { text: `${r.is_error ? "TOOL ERROR" : "TOOL RESULT"}: ${resultText(r)}` };
  }
  let m: RegExpMatchArray | null;
  if ((m = text.match(/^read (\S+)$/))) return { tool: { name: "mcp__acp__Read", input: { file_path: m[1] } } };
  if ((m = text.match(/^write (\S+) ([\s\S]*)$/)))
    return { tool: { name: "mcp__acp__Write", input: { file_path: m[1], content: m[2] } } };
  if ((m = text.match(/^tool (\S+)(?: ([\s\S]+))?$/))) {
    const name = m[1]!;
    if (!(body.tools ?? []).some((t) => t.name === name))
      return { text: `NO SUCH TOOL: ${name} (offered: ${(body.tools ?? []).map((t) => t.name).join(", ")})` };
    return { tool: { name, input: m[2] ? JSON.parse(m[2]) : {} } };
  }
  if ((m = text.match(/^run ([\s\S]+)$/)))
    return { tool: { name: "mcp__acp__Bash", input: { command: m[1], timeout: 20000, description: "Run a command" } } };
  return { text: `You said: ${text}` };
}

export async function startFakeAnthropic(): Promise<FakeAnthropic> {
  const requests: FakeAnthropic["requests"] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: Record<string, unknown> = {};
      try {
        body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      } catch {
        body = {};
      }
      const path = (req.url ?? "").split("?")[0]!;
      requests.push({ path, body });
      if (req.method === "POST" && path === "/v1/messages/count_tokens") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ input_tokens: 100 }));
      } else if (req.method === "POST" && path === "/v1/messages") {
        reply(res, String(body.model ?? "claude-fake"), decide(body as never), body.stream === true);
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ type: "error", error: { type: "not_found_error", message: "not found" } }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const addr = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${addr.port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
