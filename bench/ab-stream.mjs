#!/usr/bin/env node
// Streams on the user's clock, side by side: one Neovim per plugin checkout (this one and a
// pinned earlier build, bench/pinned.mjs), each with a 160x50 UI attached, one chat each, the
// same flood agent. Time runs from the prompt sent (in Neovim) to the turn's end drawn
// (AcpChatTurnEnd, after its last chunk); the bare parse from its prompt sent to the response
// parsed. Rounds interleave: pinned, this checkout, bare. Figures are medians.
//   node bench/ab-stream.mjs [rounds] [pinned-root]   (env: AB_ONLY=<stream key>, AB_NOCP=1, AB_ALSO=name=dir)
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { cpuMs, hostPid } from "./flood-stream.mjs";
import { spawn } from "node:child_process";
import { readFrames } from "./flood-baseline.mjs";
import { nvimBin, root, startBenchNvim, waitLua } from "./nvim.mjs";

const FLOOD = join(root, "bench/flood-agent.mjs");
const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The headline streams: chunks, tool call updates, one long line; the ratio each must stay within. */
export const STREAMS = [
  { key: "2k-line-tools", chunks: 2000, tools: 20, long: true, goal: 1.5 },
  { key: "20k-line-tools", chunks: 20000, tools: 200, long: true, goal: 1.5 },
  { key: "20k-lines", chunks: 20000, tools: 0, long: false, goal: 1.5 },
  { key: "200k-lines", chunks: 200000, tools: 0, long: false, goal: 2.2 },
];

// Both layouts of the Lua side (the modules moved after 5937a17: the older names are built, so
// test/lua/modules_spec.lua does not take them for this checkout's requires).
const either = (now, old) =>
  `(function() local ok, r = pcall(require, "${now}"); if ok then return r end; return require("acpchat" .. ".${old}") end)()`;
const REG = either("acpchat.chat.registry", "registry");
const CHATS = either("acpchat.app.chats", "chats");

/** One Neovim with the plugin of `pluginRoot`, a UI attached, a chat ready; `flood()` times one reply. */
export async function openStreamer(pluginRoot, bin = nvimBin(), extra = {}) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-ab-"));
  const setup = {
    agents: { flood: { command: process.execPath, args: [FLOOD] } },
    default_agent: "flood",
    ...extra,
  };
  // The project: a folder of its own (the XDG folders beside it hold the growing trace, which
  // the turn checkpoints would otherwise snapshot).
  const { nvim, proc, sock } = startBenchNvim(bin, dir, setup, join(dir, "work"), pluginRoot);
  await nvim.eval("1");
  const ui = attach({ socket: sock });
  ui.on("notification", () => undefined);
  await ui.uiAttach(160, 50, { ext_linegrid: true, rgb: true });
  // The turn's end is told to this client (a notification), not polled for: asking Neovim every
  // few ms would load the editor (and the machine's two cores) while it draws the reply.
  const [chan] = await nvim.apiInfo;
  let ended;
  nvim.on("notification", (method) => {
    if (method === "ab_done") ended?.();
  });
  await nvim.lua(
    `
    _G.ab = { chan = ... }
    vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function()
      _G.ab.done = vim.uv.hrtime()
      vim.rpcnotify(_G.ab.chan, "ab_done")
    end })
    vim.cmd("AcpChat")
  `,
    [chan],
  );
  await waitLua(
    nvim,
    `(function() local c = ${REG}.current(); return c and c.status and c.status.state == 'ready' end)()`,
    60_000,
    10,
  );
  const chat = await nvim.lua(`return ${REG}.current().id`);
  const nvimPid = await nvim.call("getpid");
  const ping = attach({ socket: sock });
  await ping.eval("1");
  const host = hostPid(nvimPid);
  const flood = async (chunks, tools, long) => {
    let samples = [];
    let on = true;
    const loop = (async () => {
      while (on) {
        const t0 = performance.now();
        await ping.eval("1");
        samples.push(performance.now() - t0);
        await sleep(2);
      }
    })();
    const c0 = cpuMs(nvimPid);
    const h0 = cpuMs(host);
    const done = new Promise((resolve) => {
      ended = resolve;
    });
    await nvim.lua(
      `_G.ab.done = nil; _G.ab.send = vim.uv.hrtime(); ${CHATS}.send(${REG}.get(...), "flood ${chunks} ${tools}${long ? " long" : ""}")`,
      [chat],
    );
    await Promise.race([done, sleep(300_000)]);
    await waitLua(nvim, "_G.ab.done", 10_000, 2);
    on = false;
    await loop;
    samples = samples.sort((a, b) => a - b);
    const t = await nvim.lua("return (_G.ab.done - _G.ab.send) / 1e6");
    return { ms: t, max: samples[samples.length - 1] ?? 0, cpu: cpuMs(nvimPid) - c0 + cpuMs(host) - h0 };
  };
  const close = async () => {
    await nvim.command("AcpChatClose").catch(() => undefined);
    proc.kill("SIGTERM");
  };
  return { flood, close };
}

/**
 * The bare parse: the same agent, started once and kept (warm, as the plugin's is), read as
 * plainly as Node allows (bench/flood-baseline.mjs's reader); from the prompt sent to its
 * response parsed.
 */
export async function openBare() {
  const child = spawn(process.execPath, [FLOOD], { stdio: ["pipe", "pipe", "inherit"] });
  const send = (m) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const waiting = new Map();
  let sid;
  readFrames(child.stdout, (m) => {
    if (m.id !== undefined && waiting.has(m.id)) {
      waiting.get(m.id)(m);
      waiting.delete(m.id);
    }
  });
  let next = 0;
  const call = (method, params) =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      send({ jsonrpc: "2.0", id, method, params });
    });
  await call("initialize", { protocolVersion: 1 });
  sid = (await call("session/new", { cwd: tmpdir(), mcpServers: [] })).result.sessionId;
  const flood = async (chunks, tools, long) => {
    const t0 = performance.now();
    await call("session/prompt", {
      sessionId: sid,
      prompt: [{ type: "text", text: `flood ${chunks} ${tools}${long ? " long" : ""}` }],
    });
    return { ms: performance.now() - t0 };
  };
  return { flood, close: async () => child.kill() };
}

/** Every stream, `rounds` times, interleaved: pinned, candidate, bare, each round starting one later. */
export async function abStreams({
  pinnedRoot,
  rounds = 3,
  streams = STREAMS,
  bin = nvimBin(),
  nocp = false,
  /** More builds timed in the same rounds, by name: { before: "/path/to/checkout" }. */
  also = {},
}) {
  const sides = {
    pinned: await openStreamer(pinnedRoot, bin),
    now: await openStreamer(root, bin),
    bare: await openBare(),
  };
  const names = ["pinned", "now"];
  // The same build without turn checkpoints (the pinned build has none): what they cost apart.
  if (nocp) {
    sides.nocp = await openStreamer(root, bin, { checkpoints: { enabled: false } });
    names.push("nocp");
  }
  for (const [name, dir] of Object.entries(also)) {
    sides[name] = await openStreamer(dir, bin);
    names.push(name);
  }
  // Warm-up: the JIT on both sides, tool call updates included.
  for (let i = 0; i < 4; i++) for (const s of Object.values(sides)) await s.flood(4000, 40, i % 2 === 1);
  const out = [];
  for (const st of streams) {
    const r = { ...st, bare: [] };
    for (const n of names) Object.assign(r, { [n]: [], [`${n}Max`]: 0, [`${n}Cpu`]: [] });
    // Each round starts one build later: where a build runs in the round moved its figure by
    // 10-20% (the same checkout listed twice read 92 and 102 ms, cpu 39 and 58, in one run).
    const order = [...names, "bare"];
    for (let i = 0; i < rounds; i++) {
      for (let k = 0; k < order.length; k++) {
        const side = order[(i + k) % order.length];
        const f = await sides[side].flood(st.chunks, st.tools, st.long);
        await sleep(50);
        if (side === "bare") {
          r.bare.push(f.ms);
          continue;
        }
        r[side].push(f.ms);
        r[`${side}Cpu`].push(f.cpu);
        r[`${side}Max`] = Math.max(r[`${side}Max`], f.max);
      }
    }
    r.bareMs = median(r.bare);
    const parts = [];
    for (const n of names) {
      r[`${n}Ms`] = median(r[n]);
      r[`${n}Ratio`] = r[`${n}Ms`] / r.bareMs;
      r[`${n}CpuMs`] = median(r[`${n}Cpu`]);
      parts.push(
        `${n} ${r[`${n}Ms`].toFixed(0)} [${r[n].map((x) => x.toFixed(0))}] x${r[`${n}Ratio`].toFixed(2)} max ${r[`${n}Max`].toFixed(0)} cpu ${r[`${n}CpuMs`].toFixed(0)}`,
      );
    }
    say(`${st.key}: ${parts.join(" | ")} | bare ${r.bareMs.toFixed(0)} [${r.bare.map((x) => x.toFixed(0))}]`);
    out.push(r);
  }
  for (const s of Object.values(sides)) await s.close();
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const rounds = Number(process.argv[2] ?? 3);
  const pinnedRoot = process.argv[3] ?? join(root, ".cache/bench/base-5937a17");
  const only = process.env.AB_ONLY;
  abStreams({
    pinnedRoot,
    rounds,
    nocp: process.env.AB_NOCP === "1",
    // AB_ALSO=name=/path/to/checkout[,name2=/path]: builds besides this one (a branch's base, say).
    also: Object.fromEntries(
      (process.env.AB_ALSO ?? "")
        .split(",")
        .filter(Boolean)
        .map((x) => x.split("=")),
    ),
    streams: only ? STREAMS.filter((s) => s.key === only) : STREAMS,
  }).then(
    (out) => {
      // AB_JSON=<file>: every figure, for a table of one's own.
      if (process.env.AB_JSON) writeFileSync(process.env.AB_JSON, JSON.stringify(out, null, 1));
      process.exit(0);
    },
    (e) => {
      say(`ab-stream failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
