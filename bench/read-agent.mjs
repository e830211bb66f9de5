// A minimal ACP agent for bench/file-read.mjs: it records the MCP servers session/new offers
// (BENCH_OUT.servers.json, or .servers-http.json when BENCH_HTTP says it takes http servers) and, on each prompt, reads BENCH_READ_PATH through
// fs/read_text_file BENCH_READS times, timing each round trip (BENCH_OUT.fs-N.json).
import { writeFileSync } from "node:fs";
import { createInterface } from "node:readline";

const out = process.env.BENCH_OUT;
const path = process.env.BENCH_READ_PATH;
const reads = Number(process.env.BENCH_READS ?? 60);
const http = process.env.BENCH_HTTP === "1";
let next = 1;
let prompts = 0;
const waiting = new Map();
const send = (m) => process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", ...m })}\n`);
const request = (method, params) =>
  new Promise((resolve, reject) => {
    const id = `a${next++}`;
    waiting.set(id, (m) => (m.error ? reject(new Error(m.error.message)) : resolve(m.result)));
    send({ id, method, params });
  });

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
    writeFileSync(`${out}.servers${http ? "-http" : ""}.json`, JSON.stringify(m.params.mcpServers));
    return send({ id: m.id, result: { sessionId: "bench" } });
  }
  if (m.method === "session/prompt") {
    const times = [];
    let size = 0;
    for (let i = 0; i < reads; i++) {
      const s = performance.now();
      const r = await request("fs/read_text_file", { sessionId: "bench", path });
      times.push(performance.now() - s);
      size = r.content.length;
    }
    writeFileSync(`${out}.fs-${prompts++}.json`, JSON.stringify({ times, size }));
    return send({ id: m.id, result: { stopReason: "end_turn" } });
  }
  if (m.id !== undefined) send({ id: m.id, error: { code: -32601, message: "Method not found" } });
});
