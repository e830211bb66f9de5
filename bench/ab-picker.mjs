#!/usr/bin/env node
// :AcpChatSessions with 5,000 stored sessions on the user's clock: a fresh Neovim each round
// (the Node host cold, no chat open, a 160x50 UI attached, 50 sessions in the local index),
// from the command to the picker on screen, for this checkout (Neovim's own vim.ui.select: the
// live picker; also when the agent's whole list is merged into it) and for a pinned build (its
// vim.ui.select replaced by one that records when it is called: the list handed to the picker).
//   node bench/ab-picker.mjs [rounds] [pinned-root]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { nvimBin, pinger, root, startFloodNvim, storeSessions, waitLua } from "./nvim.mjs";

const say = (s) => process.stderr.write(`${s}\n`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function round(pluginRoot, live, sessions, bin) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-picker-"));
  const work = join(dir, "work");
  const { nvim, proc, sock } = await startFloodNvim({
    bin,
    dir,
    work,
    pluginRoot,
    env: { FLOOD_SESSIONS: String(sessions) },
  });
  // The sessions this plugin recorded here (the index both builds read).
  await storeSessions(nvim, dir);
  const ping = attach({ socket: sock });
  await ping.eval("1");
  // AR_SERIES=1: the editor's answers over 40 ms, by when they were asked (ms from the start of the command).
  const slow = [];
  const t0 = performance.timeOrigin + performance.now();
  const stop = pinger(ping, (at, d) => d > 40 && slow.push(`${(at - t0).toFixed(0)}:${d.toFixed(0)}`));
  await nvim.lua(
    `
    _G.pk = {}
    if not ... then
      vim.ui.select = function(items, opts, cb)
        for _, it in ipairs(items) do opts.format_item(it) end
        _G.pk.shown = vim.uv.hrtime(); _G.pk.all = _G.pk.shown; _G.pk.items = #items
      end
    end
    _G.pk.t0 = vim.uv.hrtime()
    vim.cmd("AcpChatSessions")
    if vim.bo.filetype == "acpchat_sessions" then
      _G.pk.shown = vim.uv.hrtime()
      local win = vim.api.nvim_get_current_win()
      local t = vim.uv.new_timer()
      t:start(2, 2, vim.schedule_wrap(function()
        if not vim.api.nvim_win_is_valid(win) then return t:stop() end
        local title = vim.api.nvim_win_get_config(win).title
        if type(title) == "table" then title = table.concat(vim.tbl_map(function(c) return c[1] end, title)) end
        if not title:find("asking", 1, true) and not _G.pk.all then
          _G.pk.all = vim.uv.hrtime(); _G.pk.items = vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(win))
          t:stop()
        end
      end))
    end
  `,
    [live],
  );
  await waitLua(nvim, "_G.pk.all", 60_000, 5);
  const editor = await stop();
  const r = await nvim.lua(
    "return { shown = (_G.pk.shown - _G.pk.t0) / 1e6, all = (_G.pk.all - _G.pk.t0) / 1e6, items = _G.pk.items }",
  );
  proc.kill("SIGTERM");
  if (process.env.AR_SERIES)
    say(`${live ? "now" : "pinned"}: slow answers (ms from the command:ms): ${slow.join(" ")}`);
  return { ...r, max: editor.max };
}

/** `rounds` rounds, pinned and this checkout interleaved. */
export async function abPicker({ pinnedRoot, rounds = 3, sessions = 5000, bin = nvimBin() }) {
  const out = { sessions, pinned: [], now: [], nowAll: [], pinnedMax: 0, nowMax: 0, items: {} };
  for (let i = 0; i < rounds; i++) {
    const p = await round(pinnedRoot, false, sessions, bin);
    const n = await round(root, true, sessions, bin);
    out.pinned.push(p.shown);
    out.now.push(n.shown);
    out.nowAll.push(n.all);
    out.pinnedMax = Math.max(out.pinnedMax, p.max);
    out.nowMax = Math.max(out.nowMax, n.max);
    out.items = { pinned: p.items, now: n.items };
  }
  out.pinnedMs = median(out.pinned);
  out.nowMs = median(out.now);
  out.nowAllMs = median(out.nowAll);
  say(
    `picker of ${sessions}: pinned ${out.pinnedMs.toFixed(0)} ms [${out.pinned.map((x) => x.toFixed(0))}] (${out.items.pinned} items), ` +
      `now shown ${out.nowMs.toFixed(0)} ms [${out.now.map((x) => x.toFixed(0))}], all merged ${out.nowAllMs.toFixed(0)} ms (${out.items.now} lines); ` +
      `editor longest ${out.pinnedMax.toFixed(0)} / ${out.nowMax.toFixed(0)} ms`,
  );
  return out;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const rounds = Number(process.argv[2] ?? 3);
  const pinnedRoot = process.argv[3] ?? join(root, ".cache/bench/base-5937a17");
  abPicker({ pinnedRoot, rounds }).then(
    () => process.exit(0),
    (e) => {
      say(`ab-picker failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
