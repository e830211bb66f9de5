#!/usr/bin/env node
// The plain baseline for the flood benchmarks: the fastest reader of the same bytes in Node.
// It starts bench/flood-agent.mjs, says initialize and session/new, sends the prompt
// `flood CHUNKS TOOLS [long]`, and reads the agent's stdout as it arrives: no readline, no
// streams on top, each `data` buffer is split on \n (indexOf), a line cut by the buffer's end is
// kept and joined to the next buffer, and each line is decoded and JSON.parse'd. It stops at
// the prompt's response. It prints one JSON line: `ms` from the agent's first byte of the flood
// (the agent's FLOOD_STAMP file) to the response parsed, `cpuMs` the CPU this process used
// (all threads, process.cpuUsage) from the prompt sent to the response, `frames` parsed.
// Run as a script, it first reads five floods of 4,000 chunks (JIT warm-up), then the measured one.
//
//   node bench/flood-baseline.mjs 20000 0 [long]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const FLOOD = join(dirname(fileURLToPath(import.meta.url)), "flood-agent.mjs");

/**
 * The plain reader: each `data` buffer split on \n, a line cut by the buffer's end joined to the
 * next buffer, each line decoded and JSON.parse'd.
 */
export function readFrames(stream, onMessage) {
  let carry = null;
  stream.on("data", (buf) => {
    let start = 0;
    let nl = buf.indexOf(10);
    if (carry !== null && nl >= 0) {
      onMessage(JSON.parse(Buffer.concat([carry, buf.subarray(0, nl)]).toString("utf8")));
      carry = null;
      start = nl + 1;
      nl = buf.indexOf(10, start);
    }
    while (nl >= 0) {
      onMessage(JSON.parse(buf.toString("utf8", start, nl)));
      start = nl + 1;
      nl = buf.indexOf(10, start);
    }
    if (start < buf.length)
      carry = carry === null ? Buffer.from(buf.subarray(start)) : Buffer.concat([carry, buf.subarray(start)]);
  });
}

export function runBaseline(chunks, tools, long) {
  const stamp = join(mkdtempSync(join(tmpdir(), "acpchat-base-")), "first-byte");
  const child = spawn(process.execPath, [FLOOD], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { ...process.env, FLOOD_STAMP: stamp },
  });
  const send = (m) => child.stdin.write(JSON.stringify(m) + "\n");
  let frames = 0;
  let cpu0;
  return new Promise((resolve) => {
    const onMessage = (m) => {
      frames++;
      if (m.id === 1) {
        cpu0 = process.cpuUsage();
        frames = 0;
        send({
          jsonrpc: "2.0",
          id: 2,
          method: "session/prompt",
          params: {
            sessionId: m.result.sessionId,
            prompt: [{ type: "text", text: `flood ${chunks} ${tools}${long ? " long" : ""}` }],
          },
        });
      } else if (m.id === 2) {
        const end = performance.timeOrigin + performance.now();
        const cpu = process.cpuUsage(cpu0);
        child.kill();
        resolve({
          ms: end - Number(readFileSync(stamp, "utf8")),
          cpuMs: (cpu.user + cpu.system) / 1000,
          frames: frames - 1,
        });
      }
    };
    readFrames(child.stdout, onMessage);
    send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } });
    send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } });
  });
}

/**
 * The bare load: the agent spawned (FLOOD_REPLAY=updates), initialize, session/load, every line
 * parsed, to the load's answer: what a long history costs with nothing but the pipe and
 * JSON.parse (bench/replay.mjs, bench/ab-replay.mjs).
 */
export function bareLoad(updates) {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [FLOOD], {
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, FLOOD_REPLAY: String(updates) },
    });
    const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
    let parsed = 0;
    readFrames(child.stdout, (m) => {
      if (m.id === 0) {
        send({
          jsonrpc: "2.0",
          id: 1,
          method: "session/load",
          params: { sessionId: "s", cwd: "/tmp", mcpServers: [] },
        });
      } else if (m.method === "session/update") parsed++;
      else if (m.id === 1) {
        const ms = performance.now() - t0;
        child.kill();
        resolve({ ms, parsed });
      }
    });
    send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } });
  });
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const [chunks, tools, long] = process.argv.slice(2);
  // Five small floods first: the JIT warms up, as the plugin's long-lived host has (with tool
  // call updates when the measured flood has them, as the plugin's warm-up has).
  (async () => {
    for (let i = 0; i < 5; i++) await runBaseline(4000, Number(tools ?? 0) > 0 ? 40 : 0, long === "long");
    const r = await runBaseline(Number(chunks ?? 20000), Number(tools ?? 0), long === "long");
    process.stdout.write(JSON.stringify(r) + "\n");
    process.exit(0);
  })();
}
