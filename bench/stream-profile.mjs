#!/usr/bin/env node
// Where a streamed reply's time goes, on both sides: one Neovim with the plugin of
// this checkout (or argv[4]), a 160x50 UI attached, the flood agent; for each reply a timeline
// on Neovim's clock (vim.uv.hrtime, the same monotonic clock as the agent's and the host's
// process.hrtime): the prompt sent, the agent's first byte (FLOOD_STAMP), every render batch
// arriving in Lua (its ops, bytes and the time it took), every UI flush, the turn's end drawn.
//   node bench/stream-profile.mjs <chunks> <tools> <long 0|1> [plugin-root]
// env: PROF_ROUNDS (default 5, the first two warm-up), PROF_CPU=<dir> (the host under
// `node --cpu-prof`, profiles written there when it exits), PROF_JIT=<file> (LuaJIT's sampling
// profiler, jit.profile, over the measured rounds: the heaviest stacks, 1 ms samples),
// PROF_NOCP=1 (turn checkpoints off: the host's CPU per reply is then the reply's own),
// PROF_LUA=1 (the CPU, os.clock, in the drawing's Lua helpers per reply: render.apply, text, ...),
// PROF_NOUI=1 (no UI attached: what drawing the screen costs Neovim, by difference),
// PROF_PROJECT=<folder>[:<folder>...] (copied into the chat's folder, a git repository: the
// prompt's start snapshot then walks a real project, not an empty folder).
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { cpuMs, hostPid } from "./flood-stream.mjs";
import { attachUi, nvimBin, profiledNode, root, startBenchNvim, waitChatReady, waitLua } from "./nvim.mjs";

const say = (s) => process.stderr.write(`${s}\n`);
/** Files under `dir`, its .git left out. */
const countFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true, recursive: true }).filter(
    (e) => e.isFile() && !e.parentPath.includes("/.git"),
  ).length;
const [chunks = "2000", tools = "20", long = "1", pluginRoot = root] = process.argv.slice(2);
const rounds = Number(process.env.PROF_ROUNDS ?? 5);

const dir = mkdtempSync(join(tmpdir(), "acpchat-prof-"));
const stamp = join(dir, "stamp");
process.env.FLOOD_STAMP = stamp;
process.env.FLOOD_STAMP_RECV = `${stamp}-recv`;
const setup = {
  agents: { flood: { command: process.execPath, args: [join(root, "bench/flood-agent.mjs")] } },
  default_agent: "flood",
  ...(process.env.PROF_NOCP === "1" ? { checkpoints: { enabled: false } } : {}),
};
if (process.env.PROF_PROJECT) {
  const work = join(dir, "work");
  mkdirSync(work, { recursive: true });
  for (const from of process.env.PROF_PROJECT.split(":")) cpSync(from, join(work, basename(from)), { recursive: true });
  execFileSync("git", ["init", "-q", "."], { cwd: work });
  say(`the chat's folder holds ${countFiles(work)} files of ${process.env.PROF_PROJECT}`);
}
const { nvim, proc, sock } = startBenchNvim(nvimBin(), dir, setup, join(dir, "work"), pluginRoot);
await nvim.eval("1");
if (process.env.PROF_CPU)
  await profiledNode(nvim, dir, `--cpu-prof --cpu-prof-interval 100 --cpu-prof-dir ${process.env.PROF_CPU}`);
const flushes = [];
if (process.env.PROF_NOUI !== "1")
  await attachUi(sock, (method, args) => {
    if (method !== "redraw") return;
    for (const ev of args) if (ev[0] === "flush") flushes.push(process.hrtime.bigint());
  });
await nvim.lua(`
  _G.prof = { batches = {} }
  local render = require("acpchat.chat.render")
  local apply = render.apply
  render.apply = function(id, ops)
    local t0 = vim.uv.hrtime()
    apply(id, ops)
    local t1 = vim.uv.hrtime()
    local kinds, bytes = {}, 0
    for _, op in ipairs(ops) do
      kinds[op.op] = (kinds[op.op] or 0) + 1
      if op.op == "append" then bytes = bytes + #op.text end
    end
    local k = {}
    for name, n in pairs(kinds) do k[#k + 1] = name .. "=" .. n end
    table.sort(k)
    table.insert(_G.prof.batches, { t0, t1, table.concat(k, ","), bytes })
  end
  -- The send's way to the agent: when the host's question for the unsaved buffers came, answered.
  local tools = require("acpchat.editor.editor_tools")
  local query = tools.query
  tools.query = function(p)
    local t0 = vim.uv.hrtime()
    query(p)
    _G.prof.query = { t0, vim.uv.hrtime(), p.tool }
  end
  -- PROF_LUA=1: CPU (os.clock) in the drawing's helpers, summed per reply.
  _G.prof.cpu = {}
  if ${JSON.stringify(process.env.PROF_LUA === "1")} then
    local spans = {
      ["acpchat.chat.render"] = { "apply" },
      ["acpchat.transcript.history"] = { "save" },
      ["acpchat.editor.follow"] = { "follow" },
      ["acpchat.chat.attention"] = { "turn_ended" },
      ["acpchat.chat.layout"] = { "refresh_winbar" },
      ["acpchat.transcript.long_line"] = { "park", "unpark", "follow_view" },
      ["acpchat.transcript.text"] = vim.tbl_keys(require("acpchat.transcript.text")),
      ["acpchat.transcript.blocks"] = vim.tbl_keys(require("acpchat.transcript.blocks")),
    }
    for mod, names in pairs(spans) do
      local m = require(mod)
      for _, name in ipairs(names) do
        local f = m[name]
        if type(f) == "function" then
          local key = mod:gsub("^acpchat%.", "") .. "." .. name
          m[name] = function(...)
            local t0 = os.clock()
            local r = { f(...) }
            _G.prof.cpu[key] = (_G.prof.cpu[key] or 0) + (os.clock() - t0) * 1e3
            return unpack(r)
          end
        end
      end
    end
  end
  vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function() _G.prof.done = vim.uv.hrtime() end })
  vim.cmd("AcpChat")
`);
await waitChatReady(nvim, 60_000, 10);
const chat = await nvim.lua("return require('acpchat.chat.registry').current().id");
const ms = (a, b) => (Number(BigInt(a) - BigInt(b)) / 1e6).toFixed(1);
// The host's CPU per reply (all its threads, /proc schedstat): from before the send to 100 ms
// after the turn's end is drawn (what the reply's ingest, drawing and the turn's end cost it).
const host = hostPid(proc.pid);
const hostCpu = [];
const nvimCpu = [];
const turnMs = [];
for (let r = 0; r < rounds; r++) {
  const measured = r >= 2;
  if (measured && r === 2 && process.env.PROF_JIT)
    await nvim.lua(`
      _G.prof.samples = {}
      require("jit.profile").start("fi1", function(th, n, vmstate)
        local k = vmstate .. " " .. require("jit.profile").dumpstack(th, "pl;", -6)
        _G.prof.samples[k] = (_G.prof.samples[k] or 0) + n
      end)`);
  flushes.length = 0;
  const cpu0 = cpuMs(host);
  const nv0 = cpuMs(proc.pid);
  await nvim.lua(
    `_G.prof.batches = {}; _G.prof.done = nil; _G.prof.query = nil; _G.prof.cpu = {}; _G.prof.send = vim.uv.hrtime(); local sec, usec = vim.uv.gettimeofday(); _G.prof.wall = sec * 1e3 + usec / 1e3; require("acpchat.app.chats").send(require("acpchat.chat.registry").get(...), "flood ${chunks} ${tools}${long === "1" ? " long" : ""}")`,
    [chat],
  );
  await waitLua(nvim, "_G.prof.done", 120_000, 2);
  await new Promise((res) => setTimeout(res, 100));
  const cpu = cpuMs(host) - cpu0;
  const nv = cpuMs(proc.pid) - nv0;
  const p = await nvim.lua(
    "return { cpu = _G.prof.cpu, q = _G.prof.query and { tostring(_G.prof.query[1]), tostring(_G.prof.query[2]), _G.prof.query[3] }, wall = _G.prof.wall, send = tostring(_G.prof.send), done = tostring(_G.prof.done), b = vim.tbl_map(function(b) return { tostring(b[1]), tostring(b[2]), b[3], b[4] } end, _G.prof.batches) }",
  );
  // The agent's clock is performance.timeOrigin + now (wall): only the gap to the send is used.
  const send = BigInt(p.send);
  say(
    `round ${r}${measured ? "" : " (warm-up)"} (send at ${(Number(send) / 1e6).toFixed(1)} ms monotonic): send → turn end drawn ${ms(p.done, send)} ms, ${p.b.length} batches, ${flushes.length} UI flushes`,
  );
  say(`  the host's CPU for the reply: ${cpu.toFixed(1)} ms; Neovim's: ${nv.toFixed(1)} ms`);
  if (measured) {
    hostCpu.push(cpu);
    nvimCpu.push(nv);
    turnMs.push(Number(ms(p.done, send)));
  }
  say(`  the agent got the prompt at +${(Number(readFileSync(`${stamp}-recv`, "utf8")) - p.wall).toFixed(1)} ms`);
  say(`  the agent's first byte at +${(Number(readFileSync(stamp, "utf8")) - p.wall).toFixed(1)} ms (wall clocks)`);
  const lua = Object.entries(p.cpu ?? {}).sort((a, b) => b[1] - a[1]);
  if (lua.length > 0) say(`  Lua CPU: ${lua.map(([k, v]) => `${k} ${v.toFixed(2)}`).join(", ")}`);
  if (p.q)
    say(`  the host asked the editor (${p.q[2]}) at +${ms(p.q[0], send)} ms, answered in ${ms(p.q[1], p.q[0])} ms`);
  for (const b of p.b) say(`  batch at +${ms(b[0], send)} ms, ${ms(b[1], b[0])} ms in Lua: ${b[2]} (${b[3]} bytes)`);
  const fl = flushes.filter((t) => t >= send).map((t) => `+${ms(t, send)}`);
  say(`  UI flushes: ${fl.slice(0, 40).join(" ")}${fl.length > 40 ? " ..." : ""}`);
  await new Promise((res) => setTimeout(res, 100));
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
say(
  `measured rounds: send → turn end drawn median ${median(turnMs).toFixed(1)} ms; the host's CPU per reply median ${median(hostCpu).toFixed(1)} ms (min ${Math.min(...hostCpu).toFixed(1)}); Neovim's median ${median(nvimCpu).toFixed(1)} ms (min ${Math.min(...nvimCpu).toFixed(1)})`,
);
if (process.env.PROF_JIT) {
  const top = await nvim.lua(`
    require("jit.profile").stop()
    local t = {}
    for k, n in pairs(_G.prof.samples) do t[#t + 1] = { k, n } end
    table.sort(t, function(a, b) return a[2] > b[2] end)
    local out = {}
    for i = 1, math.min(#t, 60) do out[i] = string.format("%5d %s", t[i][2], t[i][1]) end
    return table.concat(out, "\\n")`);
  writeFileSync(process.env.PROF_JIT, top);
}
await nvim.command("AcpChatClose").catch(() => undefined);
await new Promise((res) => setTimeout(res, 300));
nvim.quit();
proc.kill("SIGTERM");
if (process.env.PROF_JIT) say(readFileSync(process.env.PROF_JIT, "utf8"));
process.exit(0);
