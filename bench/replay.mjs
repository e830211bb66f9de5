#!/usr/bin/env node
// Long histories: a session of 100,000 updates (a transcript of ~50,000 lines with a tool call
// every 100 updates) loaded with session/load into a chat with a 160x50 UI attached, against a
// bare parse of the same updates (the same agent, the same bytes, read and JSON.parse'd by a
// plain Node reader). Time runs from the chat asked for (the agent started, initialize) to the
// replay's last line on screen (AcpChatUpdate), the Node host already up; the bare parse's from
// starting the same agent. The editor: a second client's nvim_eval("1") every 2 ms. The
// transcript is checked complete, and the window at its last line.
// Run by bench/run.mjs; alone: node bench/replay.mjs [updates]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { bareLoad } from "./flood-baseline.mjs";
import { attachUi, nvimBin, pinger, root, startBenchNvim, waitLua } from "./nvim.mjs";

const FLOOD = join(root, "bench/flood-agent.mjs");
const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Before: the plugin at 56598e0, one round of this bench (NVIM 0.12, the machine of bench/RESULTS.md). */
export const REPLAY_BEFORE = {
  commit: "56598e0",
  pluginMs: 5169,
  bareMs: 2589,
  ratio: 2.0,
  max: 59.7,
  p99: 11.1,
  complete: true,
  atEnd: true,
};

export async function replayBench({
  bin = nvimBin(),
  updates = 100_000,
  rounds = 3,
  pluginRoot = process.env.ACPCHAT_ROOT,
} = {}) {
  // The replay's last line (updates even, its last two plain chunks: "w<n-2> ", "line <n-1> ...\n").
  const lastLine = `w${updates - 2} line ${updates - 1} of the reply`;
  const tools = Math.floor((updates + 49) / 100);
  const plugin = [];
  const bares = [];
  const editor = [];
  let complete = true;
  let atEnd = true;
  for (let r = 0; r < rounds; r++) {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-replay-"));
    const setup = {
      agents: { flood: { command: process.execPath, args: [FLOOD], env: { FLOOD_REPLAY: String(updates) } } },
      default_agent: "flood",
      checkpoints: { enabled: false },
    };
    const { nvim, proc, sock } = startBenchNvim(bin, dir, setup, join(dir, "work"), pluginRoot);
    await nvim.eval("1");
    await attachUi(sock);
    const pingClient = attach({ socket: sock });
    await pingClient.eval("1");
    // The Node host up first, as when the sessions picker resumes a session (the picker needs
    // it): the bare reader runs in a Node that is already up too.
    await nvim.lua('return require("acpchat.host.bridge").call_sync("ping", {})');
    await nvim.lua(
      `
      local want = ...
      _G.rp = {}
      vim.api.nvim_create_autocmd("User", { pattern = "AcpChatUpdate", callback = function(a)
        if _G.rp.done then return end
        local c = require("acpchat.chat.registry").get(a.data.chat)
        local n = vim.api.nvim_buf_line_count(c.buf)
        if n > 1 and vim.api.nvim_buf_get_lines(c.buf, n - 2, n - 1, false)[1] == want then
          local s, us = vim.uv.gettimeofday()
          _G.rp.done = s * 1000 + us / 1000
        end
      end })
      local s, us = vim.uv.gettimeofday()
      _G.rp.start = s * 1000 + us / 1000
      local c = require("acpchat.app.chats").create("flood", { resume = "stored-session" })
      require("acpchat.chat.layout").show(c) -- as the sessions picker does
    `,
      [lastLine],
    );
    const stopPinging = pinger(pingClient);
    await waitLua(nvim, "_G.rp.done", 180_000, 20);
    await sleep(200);
    const ping = await stopPinging();
    const chat = await nvim.lua("return require('acpchat.chat.registry').current().id");
    plugin.push(await nvim.lua("return _G.rp.done - _G.rp.start"));
    const check = await nvim.lua(
      `local c = require("acpchat.chat.registry").get(...)
      local lines = vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)
      local reply, tools = 0, 0
      for _, l in ipairs(lines) do
        if l:match("line %d+ of the reply$") then reply = reply + 1 end
        if l:match("Read file %d+") then tools = tools + 1 end
      end
      local win = vim.fn.win_findbuf(c.buf)[1]
      return { lines = #lines, reply = reply, tools = tools, row = vim.api.nvim_win_get_cursor(win)[1] }`,
      [chat],
    );
    // Every odd update is a chunk ending a line of the reply; a tool call every 100 updates.
    complete = complete && check.tools === tools && check.reply === Math.floor(updates / 2);
    atEnd = atEnd && check.row === check.lines;
    editor.push({ max: ping.max, p99: ping.p99, samples: ping.count });
    await nvim.command("AcpChatClose").catch(() => undefined);
    proc.kill("SIGTERM");
    const b = await bareLoad(updates);
    bares.push(b.ms);
    say(
      `replay ${updates} updates: plugin ${plugin.at(-1).toFixed(0)} ms, bare ${b.ms.toFixed(0)} ms (${b.parsed} parsed); editor longest ${editor.at(-1).max.toFixed(1)} p99 ${editor.at(-1).p99.toFixed(1)} ms; ${check.lines} lines, ${check.reply} reply lines, ${check.tools} tool calls, cursor row ${check.row}`,
    );
  }
  const maxes = editor.map((e) => e.max);
  return {
    updates,
    pluginMs: median(plugin),
    plugin,
    bareMs: median(bares),
    bares,
    ratio: median(plugin) / median(bares),
    max: Math.max(...maxes),
    p99: median(editor.map((e) => e.p99)),
    complete,
    atEnd,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  replayBench({ updates: Number(process.argv[2] ?? 100_000), rounds: Number(process.argv[3] ?? 3) }).then(
    (r) => {
      process.stdout.write(JSON.stringify(r) + "\n");
      process.exit(0);
    },
    (e) => {
      say(`replay failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
