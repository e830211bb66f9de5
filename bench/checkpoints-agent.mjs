#!/usr/bin/env node
// A minimal ACP agent for bench/checkpoints.mjs. Each prompt is "bench <stamp-file> <shell command>":
// it notes (in the stamp file) the monotonic time at which the prompt arrived (the same clock as
// Neovim's vim.uv.hrtime()), then runs the command itself in its cwd as an "execute" tool call
// (no fs/write_text_file: the files change behind the client's back, as with claude-agent-acp's
// own tools or a `sed -i`), and ends the turn.
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const out = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const update = (u) => out({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "bench", update: u } });
let calls = 0;

createInterface({ input: process.stdin }).on("line", async (line) => {
  const m = JSON.parse(line);
  if (m.method === "initialize")
    return out({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });
  if (m.method === "session/new") return out({ jsonrpc: "2.0", id: m.id, result: { sessionId: "bench" } });
  if (m.method === "session/prompt") {
    const at = process.hrtime.bigint();
    const text = m.params.prompt.map((b) => b.text ?? "").join("");
    const [, stamp, ...cmd] = text.split(" ");
    writeFileSync(stamp, String(at));
    const id = `t${++calls}`;
    update({ sessionUpdate: "tool_call", toolCallId: id, title: "edit files", kind: "execute", status: "in_progress" });
    await new Promise((r) =>
      spawn("sh", ["-c", cmd.join(" ")], { stdio: "ignore" })
        .on("exit", r)
        .on("error", r),
    );
    update({ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" });
    update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "done" } });
    return out({ jsonrpc: "2.0", id: m.id, result: { stopReason: "end_turn" } });
  }
  if (m.method === "session/cancel") return;
  if (m.id !== undefined) out({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
});
