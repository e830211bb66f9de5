#!/usr/bin/env node
// A long session opened from :AcpChatSessions on the user's clock: a fresh Neovim each round (the
// Node host cold, no chat open, a 160x50 UI attached), the agent listing 5,000 sessions and
// replaying 100,000 updates (bench/flood-agent.mjs) for the one picked. Times: from the command
// to the picker's first entry (then <CR> on it, sent as a user's key), and from that key to the
// replay's last line in a window (a 2 ms timer in Neovim looks); the editor's longest answer to
// a second client asking every 2 ms (a user typing) from the command to the end. For this
// checkout and for a pinned build (its vim.ui.select replaced by one that picks the first entry
// when called), interleaved; against a bare load: the same agent spawned by plain Node,
// initialize and session/load, every line JSON.parse'd, to the load's answer.
// Also the Node host's CPU (/proc, all threads) at the pick and at the last line, and how many
// session/list pages the agents were asked for after the pick (a listing left running).
//   node bench/ab-replay.mjs [rounds] [pinned-root]
//   AR_BEFORE=<root>: a third build, live like this checkout (an earlier commit's build).
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { bareLoad } from "./flood-baseline.mjs";
import { nvimBin, pinger, root, startFloodNvim, storeSessions, waitLua } from "./nvim.mjs";

export { bareLoad };

const say = (s) => process.stderr.write(`${s}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const now = () => performance.timeOrigin + performance.now();

/** A process's CPU so far (user + system, every thread) in ms, from /proc; NaN when gone. */
function cpuMs(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

/** The Node host's pid (0 before it started). */
const hostPid = (nvim) =>
  nvim.lua(`
    -- (The pinned build's bridge is acpchat.bridge.)
    for _, m in ipairs({ "acpchat.host.bridge", "acpchat.bridge" }) do
      local ok, b = pcall(require, m)
      if ok and type(b) == "table" and b.channel then return vim.fn.jobpid(b.channel) end
    end
    return 0`);

async function round(pluginRoot, live, { sessions, updates, bin }) {
  // The editor's answers over 40 ms, by when they were asked (from the pick).
  const slow = [];
  let picked;
  const pickAt = () => picked ?? Number.NaN;
  const dir = mkdtempSync(join(tmpdir(), "acpchat-abreplay-"));
  const work = join(dir, "work");
  const { nvim, proc, sock } = await startFloodNvim({
    bin,
    dir,
    work,
    pluginRoot,
    env: {
      FLOOD_SESSIONS: String(sessions),
      FLOOD_REPLAY: String(updates),
      FLOOD_LOG: join(dir, "agent.log"),
    },
  });
  // A profiler's wrapper of node for the host (ACPCHAT_BENCH_NODE), when profiling.
  if (process.env.ACPCHAT_BENCH_NODE) await nvim.setVar("acpchat_node", process.env.ACPCHAT_BENCH_NODE);
  await storeSessions(nvim, dir, { from: 5000, month: 2 });
  const ping = attach({ socket: sock });
  await ping.eval("1");
  // The replay's last line (bench/flood-agent.mjs replayLines: updates even).
  const lastLine = `w${updates - 2} line ${updates - 1} of the reply`;
  await nvim.lua(
    `
    local live, want = ...
    _G.ar = {}
    local function ms() local s, us = vim.uv.gettimeofday(); return s * 1000 + us / 1000 end
    if not live then
      vim.ui.select = function(items, opts, cb)
        _G.ar.shown = ms()
        vim.schedule(function() _G.ar.pick = ms(); cb(items[1], 1) end)
      end
    end
    -- The last line in a window: looked for every 2 ms.
    local t = vim.uv.new_timer()
    t:start(2, 2, vim.schedule_wrap(function()
      for _, w in ipairs(vim.api.nvim_list_wins()) do
        local b = vim.api.nvim_win_get_buf(w)
        local n = vim.api.nvim_buf_line_count(b)
        if n > 2 then
          for _, l in ipairs(vim.api.nvim_buf_get_lines(b, n - 3, n, false)) do
            if l == want then
              _G.ar.done = ms(); _G.ar.lines = n; _G.ar.row = vim.api.nvim_win_get_cursor(w)[1]
              return t:stop()
            end
          end
        end
      end
    end))
    -- This checkout: the plugin's own handlers of Node's events, timed (the longest, their sum).
    local okb, bridge = pcall(require, "acpchat.host.bridge")
    if live and okb then
      local receive = bridge.receive
      _G.ar.recv, _G.ar.recv_max, _G.ar.recv_n = 0, 0, 0
      bridge.receive = function(event, payload)
        local t = vim.uv.hrtime()
        receive(event, payload)
        local d = (vim.uv.hrtime() - t) / 1e6
        _G.ar.recv, _G.ar.recv_n = _G.ar.recv + d, _G.ar.recv_n + 1
        if d > _G.ar.recv_max then _G.ar.recv_max, _G.ar.recv_what = d, event end
        if event == "render" and not _G.ar.first_render and _G.ar.pick then _G.ar.first_render = ms() end
        if os.getenv("AR_SERIES") and _G.ar.pick then
          _G.ar.series = _G.ar.series or {}
          local c = require("acpchat.chat.registry").current()
          table.insert(_G.ar.series, string.format("%s %.0f +%.1f %d", event, ms() - _G.ar.pick, d, c and vim.api.nvim_buf_line_count(c.buf) or -1))
        end
      end
    end
    _G.ar.t0 = ms()
    vim.cmd("AcpChatSessions")
    if vim.bo.filetype == "acpchat_sessions" then
      local buf = vim.api.nvim_get_current_buf()
      local p = vim.uv.new_timer()
      p:start(1, 1, vim.schedule_wrap(function()
        -- (A tick queued before the stop may run after the pick wiped the picker.)
        if _G.ar.shown or not vim.api.nvim_buf_is_valid(buf) then return p:stop() end
        local l = vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1]
        if l and l:find("session", 1, true) then _G.ar.shown = ms(); p:stop() end
      end))
    end
  `,
    [live, lastLine],
  );
  const stop = pinger(ping, (t0, d) => d > 40 && slow.push(`${(t0 - pickAt()).toFixed(0)}:${d.toFixed(0)}`));
  await waitLua(nvim, "_G.ar.shown", 60_000, 1);
  if (live) {
    const tp = now();
    picked = tp;
    await nvim.input("<CR>");
    await nvim.lua("_G.ar.pick = ...", [tp]);
  }
  const pidAtPick = await hostPid(nvim);
  const cpuAtPick = pidAtPick ? cpuMs(pidAtPick) : 0;
  await waitLua(nvim, "_G.ar.done", 180_000, 10);
  const pid = await hostPid(nvim);
  const hostCpu = pid ? cpuMs(pid) : Number.NaN;
  const editor = await stop();
  const r = await nvim.lua("return _G.ar");
  // session/list requests the agents heard after the pick (the pinned build's pick: its own clock).
  const agentLog = join(dir, "agent.log");
  const from = live ? picked : r.pick;
  const listsAfter = existsSync(agentLog)
    ? readFileSync(agentLog, "utf8")
        .split("\n")
        .filter((l) => l.endsWith(" session/list") && Number(l.split(" ")[0]) > from).length
    : 0;
  // Quit as a user does (the host then exits and writes a profile, when profiling).
  nvim.command("qa!").catch(() => undefined);
  await new Promise((r) => setTimeout(r, 500));
  proc.kill("SIGTERM");
  if (process.env.AR_SERIES) say(`slow answers (ms from the pick:ms): ${slow.join(" ")}`);
  if (r.series) {
    say(r.series.join("\n"));
    const log = readFileSync(join(dir, "agent.log"), "utf8").trim().split("\n");
    say(
      log
        .map((l) => {
          const [t, ...rest] = l.split(" ");
          return `${(Number(t) - r.pick).toFixed(0)} ${rest.join(" ")}`;
        })
        .join("\n"),
    );
  }
  return {
    shown: r.shown - r.t0,
    load: r.done - r.pick,
    total: r.done - r.t0,
    atEnd: r.row >= r.lines - 2,
    max: editor.max,
    p99: editor.p99,
    recv: r.recv,
    recvMax: r.recv_max,
    recvWhat: r.recv_what,
    recvN: r.recv_n,
    firstRender: r.first_render && r.first_render - r.pick,
    hostCpu,
    hostCpuAfterPick: pid === pidAtPick ? hostCpu - cpuAtPick : hostCpu,
    listsAfter,
  };
}

/** `rounds` rounds, pinned and this checkout interleaved, a bare load after each pair. */
export async function abReplay({
  pinnedRoot,
  beforeRoot = process.env.AR_BEFORE,
  rounds = 3,
  sessions = 5000,
  updates = 100_000,
  bin = nvimBin(),
}) {
  const out = { sessions, updates, pinned: [], before: [], now: [], bare: [], pinnedMax: 0, nowMax: 0, atEnd: true };
  const cpu = (x) =>
    `host CPU ${x.hostCpu.toFixed(0)} (${x.hostCpuAfterPick.toFixed(0)} after the pick), lists after ${x.listsAfter}`;
  for (let i = 0; i < rounds; i++) {
    const o = { sessions, updates, bin };
    if (pinnedRoot) out.pinned.push(await round(pinnedRoot, false, o));
    if (beforeRoot) {
      const b = await round(beforeRoot, true, o);
      out.before.push(b);
      say(
        `replay round ${i + 1}: before shown ${b.shown.toFixed(0)} load ${b.load.toFixed(0)} total ${b.total.toFixed(0)} max ${b.max.toFixed(0)}; ${cpu(b)}`,
      );
    }
    out.now.push(await round(root, true, o));
    out.bare.push((await bareLoad(updates)).ms);
    const p = out.pinned.at(-1);
    const n = out.now.at(-1);
    say(
      `replay round ${i + 1}: ${p ? `pinned shown ${p.shown.toFixed(0)} load ${p.load.toFixed(0)} total ${p.total.toFixed(0)} max ${p.max.toFixed(0)}; ` : ""}` +
        `now shown ${n.shown.toFixed(0)} load ${n.load.toFixed(0)} total ${n.total.toFixed(0)} max ${n.max.toFixed(0)} p99 ${n.p99.toFixed(1)} (Lua handlers ${n.recv?.toFixed(0)} ms in ${n.recvN}, longest ${n.recvMax?.toFixed(1)} ${n.recvWhat}; first render ${n.firstRender?.toFixed(0)}); bare ${out.bare.at(-1).toFixed(0)} ms; now ${cpu(n)}`,
    );
  }
  const m = (xs, k) => (xs.length ? median(xs.map((x) => x[k])) : undefined);
  for (const [who, xs] of [
    ["pinned", out.pinned],
    ["before", out.before],
    ["now", out.now],
  ]) {
    out[`${who}HostCpu`] = m(xs, "hostCpu");
    out[`${who}HostCpuAfterPick`] = m(xs, "hostCpuAfterPick");
    out[`${who}ListsAfter`] = m(xs, "listsAfter");
    out[`${who}Load`] = m(xs, "load");
    out[`${who}Total`] = m(xs, "total");
    out[`${who}Shown`] = m(xs, "shown");
    out[`${who}Max`] = xs.length ? Math.max(...xs.map((x) => x.max)) : undefined;
    out.atEnd = out.atEnd && xs.every((x) => x.atEnd);
  }
  out.bareMs = median(out.bare);
  out.nowRatio = out.nowLoad / out.bareMs;
  out.pinnedRatio = out.pinnedLoad === undefined ? undefined : out.pinnedLoad / out.bareMs;
  out.beforeRatio = out.beforeLoad === undefined ? undefined : out.beforeLoad / out.bareMs;
  // The two builds compared from the command: the pinned build's picker waits for the agent's
  // whole list (its pick comes with the host warm), this one's shows at once (the host still cold).
  out.nowTotalRatio = out.nowTotal / out.bareMs;
  out.pinnedTotalRatio = out.pinnedTotal === undefined ? undefined : out.pinnedTotal / out.bareMs;
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const rounds = Number(process.argv[2] ?? 3);
  const pinnedRoot =
    process.argv[3] === "none" ? undefined : (process.argv[3] ?? join(root, ".cache/bench/base-5937a17"));
  abReplay({ pinnedRoot, rounds, sessions: Number(process.env.AR_SESSIONS ?? 5000) }).then(
    (r) => {
      process.stdout.write(`${JSON.stringify({ ...r, pinned: undefined, before: undefined, now: undefined })}\n`);
      process.exit(0);
    },
    (e) => {
      say(`ab-replay failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
