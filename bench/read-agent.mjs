// A minimal ACP agent for bench/file-read.mjs. On each prompt it reads BENCH_READ_PATH
// BENCH_READS times each way, alternating call by call so both ways see the same load:
// fs/read_text_file over ACP, and the editor's read_file over the MCP server session/new offered
// (the stdio server it starts, or, when BENCH_HTTP says it takes http servers, the host's own
// endpoint). Timed here, in the agent, as a real agent would see them: BENCH_OUT.<way>-N.json.
// The MCP server offered is recorded in BENCH_OUT.<way>.servers.json.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const out = process.env.BENCH_OUT;
const path = process.env.BENCH_READ_PATH;
const reads = Number(process.env.BENCH_READS ?? 60);
const lines = Number(process.env.BENCH_LINES ?? 10_000);
const http = process.env.BENCH_HTTP === "1";
/** The pause before each call (ms): longer than the host's 50 ms deferral of trace work. */
const PAUSE_MS = Number(process.env.BENCH_PAUSE_MS ?? 80);
const way = http ? "http" : "stdio";
let next = 1;
let prompts = 0;
let mcp;
const waiting = new Map();
const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
const request = (method, params) =>
  new Promise((resolve, reject) => {
    const id = `a${next++}`;
    waiting.set(id, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
    send({ id, method, params });
  });

async function connect(servers) {
  const s = servers.find((x) => x.name === "nvim");
  const client = new Client({ name: "bench-agent", version: "1" });
  const pairs = (list) => Object.fromEntries(list.map((e) => [e.name, e.value]));
  await client.connect(
    s.type === "http"
      ? new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers: pairs(s.headers) } })
      : new StdioClientTransport({
          command: s.command,
          args: s.args,
          env: { PATH: process.env.PATH, ...pairs(s.env) },
        }),
  );
  return client;
}

createInterface({ input: process.stdin }).on("line", async (line) => {
  const m = JSON.parse(line);
  if (m.id !== undefined && !m.method) return waiting.get(m.id)?.(m);
  if (m.method === "initialize")
    return send({
      id: m.id,
      result: {
        protocolVersion: 1,
        agentCapabilities: http ? { mcpCapabilities: { http: true } } : {},
        authMethods: [],
      },
    });
  if (m.method === "session/new") {
    writeFileSync(`${out}.${way}.servers.json`, JSON.stringify(m.params.mcpServers));
    return send({ id: m.id, result: { sessionId: "bench" } });
  }
  if (m.method === "session/prompt") {
    mcp ??= await connect(JSON.parse(readFileSync(`${out}.${way}.servers.json`, "utf8")));
    const args = { name: "read_file", arguments: { path, limit: lines } };
    if (prompts === 0) for (let i = 0; i < 5; i++) await mcp.callTool(args);
    const fs = [];
    const tool = [];
    let text = "";
    // A pause before each call, as between a model's tool calls: the host's deferred work of
    // the call before (its trace, 50 ms later) is done by then, not billed to the next call.
    const pause = () => new Promise((r) => setTimeout(r, PAUSE_MS));
    // Where a call's time goes (BENCH_HOPS=1): its answer's first and last byte as this process
    // read them, and the call's end after the client library parsed it.
    const hops = { fs: [], tool: [] };
    const watch = (stream) => {
      const w = { first: 0, last: 0 };
      stream.prependListener("data", (c) => {
        const t = performance.now();
        if (!w.first) w.first = t;
        if (c.includes(10)) w.last = t;
      });
      return w;
    };
    const fsWatch = process.env.BENCH_HOPS === "1" ? watch(process.stdin) : undefined;
    const toolWatch = process.env.BENCH_HOPS === "1" && !http ? watch(mcp.transport._process.stdout) : undefined;
    const hop = (list, w, s) => {
      if (w) list.push([w.first - s, w.last - s, performance.now() - s]);
      if (w) w.first = w.last = 0;
    };
    for (let i = 0; i < reads; i++) {
      await pause();
      if (fsWatch) fsWatch.first = fsWatch.last = 0;
      let s = performance.now();
      await request("fs/read_text_file", { sessionId: "bench", path });
      fs.push(performance.now() - s);
      hop(hops.fs, fsWatch, s);
      await pause();
      if (toolWatch) toolWatch.first = toolWatch.last = 0;
      s = performance.now();
      const r = await mcp.callTool(args);
      tool.push(performance.now() - s);
      hop(hops.tool, toolWatch, s);
      text = r.content.map((c) => c.text).join("");
    }
    // Whole or not at all: the bench reads it as soon as it exists.
    const f = `${out}.${way}-${prompts++}.json`;
    writeFileSync(`${f}.part`, JSON.stringify({ fs, tool, text, hops }));
    renameSync(`${f}.part`, f);
    return send({ id: m.id, result: { stopReason: "end_turn" } });
  }
  if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: "Method not found" } });
});
