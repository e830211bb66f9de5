// Reading through the editor's MCP tool (read_file) against fs/read_text_file, both of a
// 10,000-line file whose buffer holds unsaved edits (so both read the buffer). fs: the agent
// (bench/read-agent.mjs) asks the host over ACP; MCP over stdio: the official MCP client asks the
// editor's MCP server, which asks the host over its private socket; MCP over http: the official
// client asks the host's own endpoint (offered to agents that take http servers). Both MCP ways
// take the same read path and number the lines. Rounds alternate in one run (two chats: one whose
// agent takes http servers). Prints a markdown section.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { nvimBin, root, startBenchNvim } from "./nvim.mjs";

const LINES = 10_000;
const READS = Number(process.env.BENCH_CALLS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
async function until(what, ok, ms = 60_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (ok()) return;
  throw new Error(`timed out: ${what}`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-read-"));
  const work = join(dir, "work");
  mkdirSync(work, { recursive: true });
  const file = join(work, "big.txt");
  writeFileSync(
    file,
    Array.from({ length: LINES }, (_, i) => `line ${i + 1} of the file, some text to read`).join("\n") + "\n",
  );
  const out = join(dir, "bench");
  const agent = (http) => ({
    command: process.execPath,
    args: [join(root, "bench/read-agent.mjs")],
    env: { BENCH_OUT: out, BENCH_READ_PATH: file, BENCH_READS: String(READS), BENCH_HTTP: http ? "1" : "0" },
  });
  const { nvim, proc } = startBenchNvim(
    nvimBin(),
    dir,
    { agents: { reader: agent(false), reader_http: agent(true) }, default_agent: "reader" },
    work,
  );
  await nvim.eval("1");
  await nvim.command("edit big.txt");
  await nvim.call("setline", [1, "line 1 EDITED in the buffer, unsaved"]);
  // The http chat first; the stdio one last, the tab's chat, which the prompts go to.
  await nvim.command("AcpChat reader_http");
  await until("session/new (http)", () => existsSync(`${out}.servers-http.json`));
  await nvim.command("AcpChat! reader");
  await until("session/new", () => existsSync(`${out}.servers.json`));
  const server = JSON.parse(readFileSync(`${out}.servers.json`, "utf8")).find((s) => s.name === "nvim");
  const client = new Client({ name: "bench", version: "1" });
  await client.connect(
    new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { PATH: process.env.PATH, ...Object.fromEntries(server.env.map((e) => [e.name, e.value])) },
    }),
  );
  const hs = JSON.parse(readFileSync(`${out}.servers-http.json`, "utf8")).find((s) => s.name === "nvim");
  if (hs?.type !== "http") throw new Error(`the http agent was offered ${JSON.stringify(hs?.type ?? "nothing")}`);
  const httpClient = new Client({ name: "bench", version: "1" });
  await httpClient.connect(
    new StreamableHTTPClientTransport(new URL(hs.url), {
      requestInit: { headers: Object.fromEntries(hs.headers.map((h) => [h.name, h.value])) },
    }),
  );
  const args = { name: "read_file", arguments: { path: "big.txt", limit: LINES } };
  for (let i = 0; i < 5; i++) await client.callTool(args);
  for (let i = 0; i < 5; i++) await httpClient.callTool(args);
  const mcp = [];
  const mcpHttp = [];
  const fs = [];
  let text = "";
  let textHttp = "";
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < READS; i++) {
      let s = performance.now();
      const r = await client.callTool(args);
      mcp.push(performance.now() - s);
      text = r.content[0].text;
      s = performance.now();
      const h = await httpClient.callTool(args);
      mcpHttp.push(performance.now() - s);
      textHttp = h.content[0].text;
    }
    await nvim.command("AcpChatSend go");
    await until("the agent's reads", () => existsSync(`${out}.fs-${round}.json`), 120_000);
    fs.push(...JSON.parse(readFileSync(`${out}.fs-${round}.json`, "utf8")).times);
  }
  // Closing the client would wait on the server's exit; the editor going ends it.
  proc.kill("SIGKILL");
  const good = (t) => t.includes("line 1 EDITED in the buffer, unsaved") && t.includes(`${LINES}\tline ${LINES} of`);
  const ok = good(text) && good(textHttp) && text === textHttp;
  const f = (x) => x.toFixed(1);
  const row = (name, xs) => `| ${name} | ${xs.length} | ${f(pct(xs, 50))} | ${f(pct(xs, 90))} | ${f(pct(xs, 99))} |`;
  const report = [
    "## Reading a file through the editor: read_file (MCP) vs fs/read_text_file",
    "",
    `A ${LINES.toLocaleString("en")}-line file whose buffer holds unsaved edits, read whole ${READS * ROUNDS} times each of three ways, in ${ROUNDS} alternating rounds (bench/file-read.mjs). Times in ms, round trip as the agent sees it.`,
    "",
    "| path | reads | p50 | p90 | p99 |",
    "| --- | ---: | ---: | ---: | ---: |",
    row("fs/read_text_file (ACP)", fs),
    row("read_file (MCP over stdio: the server process)", mcp),
    row("read_file (MCP over http: the host itself)", mcpHttp),
    "",
    `read_file returned the buffer's text, numbered, the same both ways: ${ok ? "yes" : "NO"}. p50 ratio MCP / fs: stdio ${(pct(mcp, 50) / pct(fs, 50)).toFixed(2)}, http ${(pct(mcpHttp, 50) / pct(fs, 50)).toFixed(2)}. p99 ratio: stdio ${(pct(mcp, 99) / pct(fs, 99)).toFixed(2)}, http ${(pct(mcpHttp, 99) / pct(fs, 99)).toFixed(2)}.`,
    "",
  ].join("\n");
  process.stdout.write(`${report}\n`, () => process.exit(ok ? 0 : 1));
}

main().catch((e) => {
  // Not console.error: the neovim client library takes over `console`.
  process.stderr.write(`${e?.stack ?? e}\n`, () => process.exit(1));
});
