// The editor's tools: what the safe path costs. An agent's MCP call goes agent ->
// MCP server (stdio) -> private socket -> the Node host (boundary check) -> Lua (editor_query
// event, answered by a call) -> host (formatting) -> server -> agent. The baseline is what an
// agent holding Neovim's own RPC socket could do instead, which is exactly what the design
// forbids: one nvim_exec_lua request returning the same data. Both are measured here, in
// alternating rounds from the same process, with the official MCP client standing in for the
// agent; and the editor's responsiveness (a second client's nvim_eval) while the calls run.
// Prints a markdown section (bench/run.mjs appends it to RESULTS.md).
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { nvimBin, root, startBenchNvim } from "./nvim.mjs";

const CALLS = Number(process.env.BENCH_CALLS ?? 60);
const DIAGNOSTICS = 500;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const bin = nvimBin();
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-tools-"));
  const work = join(dir, "work");
  mkdirSync(work, { recursive: true });
  const lines = Array.from({ length: DIAGNOSTICS }, (_, i) => `local v${i} = undefined_${i}`);
  writeFileSync(join(work, "big.lua"), lines.join("\n") + "\n");
  const record = join(dir, "record.jsonl");
  const agent = {
    command: process.execPath,
    args: [join(root, "test/agents/fake-agent.mjs")],
    env: { FAKE_AGENT_SCENARIO: JSON.stringify({ record }) },
  };
  const { nvim, proc, sock } = startBenchNvim(bin, dir, { agents: { fake: agent }, default_agent: "fake" }, work);
  await nvim.command("edit big.lua");
  await nvim.lua(
    `local items = {}
     for i = 0, ${DIAGNOSTICS - 1} do items[#items + 1] = { lnum = i, col = 10, message = "undefined global undefined_" .. i, severity = vim.diagnostic.severity.WARN, source = "bench" } end
     vim.diagnostic.set(vim.api.nvim_create_namespace("bench"), 0, items)`,
  );
  await nvim.command("AcpChat");
  let server;
  for (let i = 0; i < 200 && !server; i++) {
    await sleep(50);
    try {
      const newSession = readFileSync(record, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((m) => m.method === "session/new");
      server = newSession?.params.mcpServers.find((s) => s.name === "nvim");
    } catch {
      // not written yet
    }
  }
  if (!server) throw new Error("the chat offered no editor tools");
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { PATH: process.env.PATH, ...Object.fromEntries(server.env.map((e) => [e.name, e.value])) },
  });
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(transport);
  // The forbidden baseline: a client on Neovim's own socket.
  const direct = attach({ socket: sock });
  const path = join(work, "big.lua");
  const directCall = () =>
    direct.lua(
      `local b = vim.fn.bufnr(...)
       local out = {}
       for _, d in ipairs(vim.diagnostic.get(b)) do out[#out + 1] = { lnum = d.lnum, col = d.col, message = d.message, source = d.source, severity = d.severity } end
       return out`,
      [path],
    );
  const mcpCall = () => client.callTool({ name: "diagnostics", arguments: { path: "big.lua" } });
  // Warm both paths.
  for (let i = 0; i < 5; i++) {
    await mcpCall();
    await directCall();
  }
  const probe = attach({ socket: sock });
  const mcp = [];
  const base = [];
  const editor = [];
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const s = performance.now();
      await probe.eval("1");
      editor.push(performance.now() - s);
      await sleep(5);
    }
  })();
  let firstText = "";
  for (let i = 0; i < CALLS; i++) {
    let s = performance.now();
    const r = await mcpCall();
    mcp.push(performance.now() - s);
    firstText ||= r.content[0].text;
    s = performance.now();
    await directCall();
    base.push(performance.now() - s);
  }
  probing = false;
  await prober;
  const small = [];
  for (let i = 0; i < 20; i++) {
    const s = performance.now();
    await client.callTool({ name: "open_buffers", arguments: {} });
    small.push(performance.now() - s);
  }
  await client.close();
  proc.kill("SIGKILL");
  const f = (x) => x.toFixed(2);
  const ok = firstText.startsWith(`${DIAGNOSTICS} diagnostics in 1 file:`)
    ? ""
    : ` (unexpected answer: ${JSON.stringify(firstText.slice(0, 80))})`;
  process.stdout.write(
    [
      `Editor tools benchmark, ${new Date().toISOString()}: ${CALLS} alternating rounds; the official MCP client starts the server the chat offered, as an agent does.`,
      "",
      "| what | p50 | p95 | ratio (p50) |",
      "| --- | ---: | ---: | ---: |",
      `| \`diagnostics\` of a file with ${DIAGNOSTICS} (MCP server -> private socket -> host -> Lua -> back, formatted)${ok} | ${f(pct(mcp, 50))} ms | ${f(pct(mcp, 95))} ms | x${(pct(mcp, 50) / pct(base, 50)).toFixed(2)} |`,
      `| baseline: the same diagnostics through Neovim's own RPC socket (one nvim_exec_lua; what the design forbids agents) | ${f(pct(base, 50))} ms | ${f(pct(base, 95))} ms | x1 |`,
      `| \`open_buffers\` (the path's fixed cost) | ${f(pct(small, 50))} ms | ${f(pct(small, 95))} ms | |`,
      `| editor: a second client's nvim_eval("1") during the calls (${editor.length} samples) | ${f(pct(editor, 50))} ms | p99 ${f(pct(editor, 99))} ms, max ${f(Math.max(...editor))} ms | |`,
      "",
    ].join("\n"),
  );
  process.exit(0);
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exit(1);
});
