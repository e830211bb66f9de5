#!/usr/bin/env node
// A minimal ACP agent for bench/sizes.mjs. Prompts (space-separated words):
//   write <path> <content-file> <stamp>   one fs/write_text_file with the content file's text
//   permit <path> <content-file> <stamp>  a permission question for an edit of <path> whose diff
//                                         is the content file's text (no old text, as Claude's Write)
//   read <path> <n> <out> [line limit]    n fs/read_text_file of <path>, one after another; the
//                                         last answer's content is written to <out>
// <stamp> gets the monotonic time (Neovim's vim.uv.hrtime() clock) at which the request was sent.
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const out = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const pending = new Map();
let next = 1000;

function request(method, params) {
  const id = next++;
  const answered = new Promise((resolve) => pending.set(id, resolve));
  out({ jsonrpc: "2.0", id, method, params: { sessionId: "bench", ...params } });
  return answered;
}

createInterface({ input: process.stdin, crlfDelay: Infinity }).on("line", async (line) => {
  const m = JSON.parse(line);
  if (m.id !== undefined && !m.method) {
    pending.get(m.id)?.(m);
    pending.delete(m.id);
    return;
  }
  if (m.method === "initialize")
    return out({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  if (m.method === "session/new") return out({ jsonrpc: "2.0", id: m.id, result: { sessionId: "bench" } });
  if (m.method === "session/prompt") {
    // The command is the user's words; a block before them may be the plugin's note (the
    // buffer read below is modified and unsaved, which the prompt tells the agent).
    const words = m.params.prompt.map((b) => b.text ?? "");
    const text = words.find((t) => /^(write|permit|read) /.test(t)) ?? words.join("");
    const [what, path, a, b, line, limit] = text.split(" ");
    if (what === "write") {
      const content = readFileSync(a, "utf8");
      writeFileSync(b, String(process.hrtime.bigint()));
      await request("fs/write_text_file", { path, content });
    } else if (what === "permit") {
      const diff = { type: "diff", path, oldText: null, newText: readFileSync(a, "utf8") };
      out({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "bench",
          update: {
            sessionUpdate: "tool_call",
            toolCallId: "p1",
            title: "Write",
            kind: "edit",
            status: "pending",
            content: [diff],
            locations: [{ path }],
          },
        },
      });
      writeFileSync(b, String(process.hrtime.bigint()));
      await request("session/request_permission", {
        toolCall: { toolCallId: "p1" },
        options: [
          { optionId: "yes", name: "Yes", kind: "allow_once" },
          { optionId: "no", name: "No", kind: "reject_once" },
        ],
      });
      out({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "bench",
          update: { sessionUpdate: "tool_call_update", toolCallId: "p1", status: "completed" },
        },
      });
    } else if (what === "read") {
      let r;
      for (let i = 0; i < Number(a); i++)
        r = await request("fs/read_text_file", {
          path,
          ...(line ? { line: Number(line) } : {}),
          ...(limit ? { limit: Number(limit) } : {}),
        });
      writeFileSync(b, r.error ? `ERROR ${r.error.message}` : r.result.content);
    }
    return out({ jsonrpc: "2.0", id: m.id, result: { stopReason: "end_turn" } });
  }
  if (m.method === "session/cancel") return;
  if (m.id !== undefined) out({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
});
