#!/usr/bin/env node
// The Node host's cold start: a fresh Neovim each round, the plugin's first call (`ping`) made
// from Lua as any first use makes it (the host is started by that call), and at its answer: the
// wall time since the call and the host's CPU so far (every thread's time on a core, from
// /proc/<pid>/task/*/schedstat, read in Neovim the moment the answer arrives). For this
// checkout and a pinned build (bench/pinned.mjs), interleaved; medians.
//   node bench/host-start.mjs [rounds] [pinned-root|none]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { nvimBin, root, startBenchNvim, waitLua } from "./nvim.mjs";
import { PINNED, pinnedBuild } from "./pinned.mjs";

const say = (s) => process.stderr.write(`${s}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function round(pluginRoot, bin) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-hoststart-"));
  const { nvim, proc } = startBenchNvim(bin, dir, {}, dir, resolve(pluginRoot));
  await nvim.eval("1");
  // A profiler's wrapper of node for the host (ACPCHAT_BENCH_NODE), when profiling.
  if (process.env.ACPCHAT_BENCH_NODE) await nvim.setVar("acpchat_node", process.env.ACPCHAT_BENCH_NODE);
  await nvim.lua(`
    local function cpu_ms(pid)
      local ns = 0
      local dir = vim.uv.fs_scandir("/proc/" .. pid .. "/task")
      while dir do
        local t = vim.uv.fs_scandir_next(dir)
        if not t then break end
        local f = io.open("/proc/" .. pid .. "/task/" .. t .. "/schedstat")
        if f then ns = ns + (tonumber(f:read("*l"):match("^(%d+)")) or 0); f:close() end
      end
      return ns / 1e6
    end
    _G.hs = {}
    -- (acpchat.bridge in the pinned release, acpchat.host.bridge since.)
    local ok, bridge = pcall(require, "acpchat.host.bridge")
    local pinned_name = "acpchat.bridge"
    if not ok then bridge = require(pinned_name) end
    local t0 = vim.uv.hrtime()
    bridge.call("ping", {}, function(err, r)
      _G.hs.wall = (vim.uv.hrtime() - t0) / 1e6
      _G.hs.cpu = r and cpu_ms(r.pid)
      _G.hs.err = err
    end)
  `);
  const r = await waitLua(nvim, "_G.hs.wall and _G.hs", 30_000, 2);
  nvim.command("qa!").catch(() => undefined);
  await new Promise((res) => setTimeout(res, process.env.ACPCHAT_BENCH_NODE ? 1000 : 200));
  proc.kill("SIGTERM");
  if (r.err || typeof r.cpu !== "number") throw new Error(`no answer to ping: ${r.err}`);
  return { wall: r.wall, cpu: r.cpu };
}

/** `rounds` fresh hosts of each build, interleaved. */
export async function hostStart({ pinnedRoot, rounds = 7, bin = nvimBin() } = {}) {
  const out = { rounds, now: [], pinned: [] };
  for (let i = 0; i < rounds; i++) {
    if (pinnedRoot) out.pinned.push(await round(pinnedRoot, bin));
    out.now.push(await round(root, bin));
    const p = out.pinned.at(-1);
    const n = out.now.at(-1);
    say(
      `host start ${i + 1}: ${p ? `pinned cpu ${p.cpu.toFixed(0)} wall ${p.wall.toFixed(0)} ms; ` : ""}now cpu ${n.cpu.toFixed(0)} wall ${n.wall.toFixed(0)} ms`,
    );
  }
  for (const who of ["now", "pinned"]) {
    const xs = out[who];
    if (!xs.length) continue;
    out[`${who}Cpu`] = median(xs.map((x) => x.cpu));
    out[`${who}Wall`] = median(xs.map((x) => x.wall));
  }
  return out;
}

/** RESULTS.md's section. */
export function hostStartSection(r) {
  const f = (x) => (x === undefined ? "–" : x.toFixed(0));
  const all = (xs, k) => xs.map((x) => x[k].toFixed(0)).join(", ");
  return [
    "`bench/host-start.mjs`: a fresh Neovim each round; the plugin's first call (`ping`) starts the Node host, and at",
    "its answer Neovim reads the host's CPU (every thread, /proc schedstat) and the wall time since the call.",
    `Medians of ${r.rounds}, the builds interleaved.`,
    "",
    "| build | host CPU to the first answer | wall |",
    "| --- | --- | --- |",
    ...(r.pinned.length
      ? [
          `| pinned ${PINNED} | ${f(r.pinnedCpu)} ms [${all(r.pinned, "cpu")}] | ${f(r.pinnedWall)} ms [${all(r.pinned, "wall")}] |`,
        ]
      : []),
    `| this checkout | **${f(r.nowCpu)} ms** [${all(r.now, "cpu")}] | **${f(r.nowWall)} ms** [${all(r.now, "wall")}] |`,
    "",
  ].join("\n");
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const rounds = Number(process.argv[2] ?? 7);
  const pinnedRoot = process.argv[3] === "none" ? undefined : (process.argv[3] ?? pinnedBuild());
  hostStart({ pinnedRoot, rounds }).then(
    (r) => {
      say(
        `host start, median of ${rounds}: now cpu ${r.nowCpu.toFixed(0)} ms, wall ${r.nowWall.toFixed(0)} ms` +
          (r.pinnedCpu === undefined
            ? ""
            : `; pinned (${PINNED}) cpu ${r.pinnedCpu.toFixed(0)} ms, wall ${r.pinnedWall.toFixed(0)} ms`),
      );
      process.stdout.write(`${JSON.stringify({ ...r, now: undefined, pinned: undefined })}\n`);
      process.exit(0);
    },
    (e) => {
      say(`host-start failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
