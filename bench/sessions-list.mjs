#!/usr/bin/env node
// :AcpChatSessions with 5,000 stored sessions (the agent's session/list, 500 a page), a 160x50
// UI attached, the chat open: from the command to the picker's entries labelled (vim.ui.select
// called, format_item on each), median of 5 (the first, JIT cold, included); the editor's longest
// answer to a second client meanwhile.
// Run by bench/run.mjs; alone: node bench/sessions-list.mjs [sessions]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { nvimBin, pinger, root, startFloodNvim, waitChatReady, waitLua } from "./nvim.mjs";

const say = (s) => process.stderr.write(s + "\n");
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function sessionsListBench({
  bin = nvimBin(),
  sessions = 5000,
  rounds = 5,
  pluginRoot = process.env.ACPCHAT_ROOT,
} = {}) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-sessions-"));
  const { nvim, proc, sock } = await startFloodNvim({
    bin,
    dir,
    pluginRoot: pluginRoot ?? root,
    env: { FLOOD_SESSIONS: String(sessions) },
  });
  await nvim.command("AcpChat");
  await waitChatReady(nvim);
  const pingClient = attach({ socket: sock });
  await pingClient.eval("1");
  const times = [];
  let max = 0;
  let complete = true;
  for (let r = 0; r < rounds; r++) {
    await nvim.lua(`
      _G.sl = {}
      -- A picker labels every entry (format_item), as vim.ui.select's own does.
      vim.ui.select = function(items, opts, cb)
        for _, it in ipairs(items) do opts.format_item(it) end
        _G.sl.shown = vim.uv.hrtime(); _G.sl.items = #items; _G.sl.first = opts.format_item(items[1])
      end
      _G.sl.t0 = vim.uv.hrtime()
      vim.cmd("AcpChatSessions")
    `);
    const stopPinging = pinger(pingClient);
    await waitLua(nvim, "_G.sl.shown", 60_000, 5);
    max = Math.max(max, (await stopPinging()).max);
    const r1 = await nvim.lua(
      "return { ms = (_G.sl.shown - _G.sl.t0) / 1e6, items = _G.sl.items, first = _G.sl.first }",
    );
    times.push(r1.ms);
    // Every stored session, and the chat open now (its own session, marked [open]).
    complete = complete && r1.items === sessions + 1;
    say(`sessions list of ${sessions}: ${r1.ms.toFixed(1)} ms, ${r1.items} items (first: ${r1.first})`);
  }
  await nvim.command("AcpChatClose").catch(() => undefined);
  proc.kill("SIGTERM");
  return { sessions, ms: median(times), times, max, complete };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  sessionsListBench({ sessions: Number(process.argv[2] ?? 5000) }).then(
    (r) => {
      process.stdout.write(JSON.stringify(r) + "\n");
      process.exit(0);
    },
    (e) => {
      say(`sessions-list failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
