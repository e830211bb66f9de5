#!/usr/bin/env node
// A minimal ACP agent for bench/edits.mjs: each prompt "write <path> <content-file> <stamp-file>"
// sends one fs/write_text_file with the content file's text, after noting (in the stamp file) the
// monotonic time at which it sent the request (the same clock as Neovim's vim.uv.hrtime()).
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const out = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const pending = new Map();
let next = 1000;

createInterface({ input: process.stdin }).on("line", async (line) => {
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
    const text = m.params.prompt.map((b) => b.text ?? "").join("");
    const [, path, contentFile, stampFile] = text.split(" ");
    const content = readFileSync(contentFile, "utf8");
    const id = next++;
    const answered = new Promise((resolve) => pending.set(id, resolve));
    writeFileSync(stampFile, String(process.hrtime.bigint()));
    out({ jsonrpc: "2.0", id, method: "fs/write_text_file", params: { sessionId: "bench", path, content } });
    await answered;
    return out({ jsonrpc: "2.0", id: m.id, result: { stopReason: "end_turn" } });
  }
  if (m.method === "session/cancel") return;
  if (m.id !== undefined) out({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
});
