#!/usr/bin/env node
// Streaming at the speed of the pipe: the plugin against the plain baseline
// (bench/flood-baseline.mjs) for replies of 20,000 and 200,000 chunks, as many short lines and
// as one long line, with a UI attached (160x50, redraw events consumed) and headless.
// Default config: trace on, redaction on. Run by bench/run.mjs; alone:
//   node bench/flood-stream.mjs [ui|headless] [rounds] [20000|200000]
// ACPCHAT_BENCH_NODE=<program> runs the plugin's Node host with it (e.g. a --cpu-prof wrapper).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { attach } from "neovim";
import { floodLines } from "./flood-agent.mjs";
import { nvimBin, startBenchNvim } from "./nvim.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const FLOOD = join(root, "bench/flood-agent.mjs");
const BASELINE = join(root, "bench/flood-baseline.mjs");
const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** CPU time of every thread of `pid`, in ms (scheduler statistics: nanoseconds on the CPU). */
export function cpuMs(pid) {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended meanwhile.
    }
  }
  return ns / 1e6;
}

function childPids(pid) {
  const out = [];
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    for (const c of readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/))
      if (c) out.push(Number(c));
  }
  return out;
}

/** The plugin's Node host: the child of Neovim that runs node. */
export function hostPid(nvimPid) {
  for (const c of childPids(nvimPid)) {
    const cmd = readFileSync(`/proc/${c}/cmdline`, "utf8");
    if (cmd.includes("node")) return c;
  }
  throw new Error("no node host under Neovim");
}

function baseline(chunks, long, tools = 0) {
  const out = execFileSync(process.execPath, [BASELINE, String(chunks), String(tools), ...(long ? ["long"] : [])], {
    encoding: "utf8",
  });
  return JSON.parse(out.trim().split("\n").pop());
}

export const CASES = [
  { chunks: 20000, long: false },
  { chunks: 20000, long: true },
  { chunks: 200000, long: false },
  { chunks: 200000, long: true },
  // A tool call update every 100 chunks (200 in all) into the one long line.
  { chunks: 20000, long: true, tools: 200 },
];

/**
 * One Neovim (a UI attached when `ui`), one chat; for each case, `rounds` plugin floods
 * alternating with `rounds` baselines. Returns per case: the medians, the ratios, the editor's
 * answers to a second client during the plugin's floods, and whether the transcript held the
 * reply byte for byte.
 */
export async function streamBench({ bin = nvimBin(), ui = true, rounds = 3, cases = CASES } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-stream-"));
  const stamp = join(dir, "first-byte");
  const setup = {
    agents: { flood: { command: process.execPath, args: [FLOOD], env: { FLOOD_STAMP: stamp } } },
    default_agent: "flood",
  };
  // ACPCHAT_ROOT: another checkout's plugin (the "before" figures).
  const { nvim, proc, sock } = startBenchNvim(bin, dir, setup, dir, process.env.ACPCHAT_ROOT);
  await nvim.eval("1");
  let redraws = 0;
  let uiClient;
  if (ui) {
    uiClient = attach({ socket: sock });
    uiClient.on("notification", (method, args) => {
      if (method === "redraw") redraws += args.length;
    });
    await uiClient.uiAttach(160, 50, { ext_linegrid: true, rgb: true });
  }
  // ACPCHAT_BENCH_NODE: the program that runs the plugin's Node host (a profiling wrapper).
  if (process.env.ACPCHAT_BENCH_NODE) await nvim.lua("vim.g.acpchat_node = ...", [process.env.ACPCHAT_BENCH_NODE]);
  await nvim.lua(`
    _G.fb = {}
    vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function()
      local s, us = vim.uv.gettimeofday()
      _G.fb.done = s * 1000 + us / 1000
    end })
    vim.cmd("AcpChat")
  `);
  const waitLua = async (expr) => {
    const end = Date.now() + 300000;
    for (;;) {
      if (await nvim.lua(`return ${expr}`)) return;
      if (Date.now() > end) throw new Error(`timed out waiting for ${expr}`);
      await sleep(10);
    }
  };
  await waitLua(
    "(function() local c = require('acpchat.chat.registry').current(); return c and c.status and c.status.state == 'ready' end)()",
  );
  const chat = await nvim.lua("return require('acpchat.chat.registry').current().id");
  const nvimPid = await nvim.call("getpid");
  const host = hostPid(nvimPid);
  const pinger = attach({ socket: sock });
  await pinger.eval("1");
  let rtts = null;
  let pinging = true;
  const ping = (async () => {
    while (pinging) {
      const t0 = performance.now();
      await pinger.eval("1");
      if (rtts) rtts.push(performance.now() - t0);
      await sleep(5);
    }
  })();
  const flood = async (chunks, long, tools = 0) => {
    await nvim.lua(
      `_G.fb.done = nil; require("acpchat.app.chats").send(require("acpchat.chat.registry").get(...), "flood ${chunks} ${tools}${long ? " long" : ""}")`,
      [chat],
    );
    await waitLua("_G.fb.done");
    return (await nvim.lua("return _G.fb.done")) - Number(readFileSync(stamp, "utf8"));
  };
  // The reply of the last turn, as the transcript holds it: its agent blocks' text, in order
  // (lines broken for their length joined back; none before the plugin broke them).
  const lastReply = async () =>
    nvim.lua(
      `local c = require("acpchat.chat.registry").get(...)
      local blocks = require("acpchat.transcript.blocks")
      local ok, ll = pcall(require, "acpchat.transcript.long_line")
      local rs = blocks.state(c)
      local start = 1
      for i = #rs.order, 1, -1 do if rs.blocks[rs.order[i]].type == "turn" then start = i break end end
      local out = {}
      for i = start, #rs.order do
        local b = rs.blocks[rs.order[i]]
        if b.type == "agent" then
          local first, last = blocks.range(c.buf, rs, b)
          out[#out + 1] = ok and ll.text(c.buf, first, last + 1) or table.concat(vim.api.nvim_buf_get_lines(c.buf, first, last + 1, false), "\\n")
        end
      end
      return table.concat(out)`,
      [chat],
    );
  // Warm-up: the JIT on both sides, on every path the cases take (tool call updates included:
  // a long-lived host has drawn tool calls before).
  for (let i = 0; i < 5; i++) await flood(4000, i % 2 === 1, 40);
  const results = [];
  for (const c of cases) {
    const name = `${c.chunks} chunks, ${c.long ? "one long line" : "many lines"}${c.tools ? `, ${c.tools} tool call updates` : ""}`;
    const plugin = [];
    const base = [];
    const hostCpu = [];
    const nvimCpu = [];
    const baseCpu = [];
    const samples = [];
    let complete = true;
    for (let r = 0; r < rounds; r++) {
      const h0 = cpuMs(host);
      const n0 = cpuMs(nvimPid);
      rtts = [];
      plugin.push(await flood(c.chunks, c.long, c.tools));
      samples.push(...rtts);
      rtts = null;
      hostCpu.push(cpuMs(host) - h0);
      nvimCpu.push(cpuMs(nvimPid) - n0);
      if (r === 0) {
        const expected = floodLines("x", c.chunks, c.tools ?? 0, 0, c.long).text;
        complete = (await lastReply()) === expected;
      }
      await sleep(100);
      const b = baseline(c.chunks, c.long, c.tools);
      base.push(b.ms);
      baseCpu.push(b.cpuMs);
      await sleep(100);
    }
    samples.sort((a, b) => a - b);
    const res = {
      name,
      ...c,
      pluginMs: median(plugin),
      plugin,
      baseMs: median(base),
      base,
      ratio: median(plugin) / median(base),
      hostCpuMs: median(hostCpu),
      nvimCpuMs: median(nvimCpu),
      baseCpuMs: median(baseCpu),
      cpuRatio: median(hostCpu) / median(baseCpu),
      p50: pct(samples, 50),
      p99: pct(samples, 99),
      max: samples[samples.length - 1],
      samples: samples.length,
      complete,
    };
    results.push(res);
    say(
      `${ui ? "ui" : "headless"} ${name}: plugin ${res.pluginMs.toFixed(0)} ms [${plugin.map((x) => x.toFixed(0))}] vs baseline ${res.baseMs.toFixed(0)} ms [${base.map((x) => x.toFixed(0))}] x${res.ratio.toFixed(2)}; ` +
        `cpu host ${res.hostCpuMs.toFixed(0)} nvim ${res.nvimCpuMs.toFixed(0)} baseline ${res.baseCpuMs.toFixed(0)} ms (x${res.cpuRatio.toFixed(2)}); ` +
        `editor p50 ${res.p50?.toFixed(2)} p99 ${res.p99?.toFixed(2)} max ${res.max?.toFixed(2)} ms (${samples.length}); complete=${complete}`,
    );
  }
  pinging = false;
  await ping;
  await nvim.command("AcpChatClose").catch(() => undefined);
  proc.kill("SIGTERM");
  return { ui, redraws, results };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const ui = process.argv[2] !== "headless";
  const rounds = Number(process.argv[3] ?? 3);
  const only = process.argv[4]; // e.g. "20000" to run those cases only
  streamBench({ ui, rounds, cases: only ? CASES.filter((c) => String(c.chunks) === only) : CASES }).then(
    (r) => {
      say(`redraw batches consumed: ${r.redraws}`);
      process.exit(0);
    },
    (e) => {
      say(`flood-stream failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
