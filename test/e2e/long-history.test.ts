/**
 * End to end, long histories: a session of 100,000 updates loaded (session/load's replay) is
 * drawn whole, the window at its last line, also when picked in :AcpChatSessions as the editor
 * starts (the host cold, the agent's list still asked), never holding the editor 50 ms;
 * :AcpChatSessions lists 5,000 stored sessions. bench/replay.mjs, bench/ab-replay.mjs (the
 * user's clock) and bench/sessions-list.mjs time them.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editorLateness, nvimBins, ROOT } from "../support/nvim.js";
import { nvim, shareNvim, ownNvim, writeSessionIndex } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();
const FLOOD = join(ROOT, "bench/flood-agent.mjs");
const UPDATES = 100_000;

describe.each(bins)("Neovim $version", (bin) => {
  it("a session of 100,000 updates loads whole: every reply line and tool call, in order, the window at the last line", async () => {
    const t = await nvim(bin, {
      agents: { flood: { command: process.execPath, args: [FLOOD], env: { FLOOD_REPLAY: String(UPDATES) } } },
      default_agent: "flood",
      checkpoints: { enabled: false },
    });
    await t.lua(
      "local c = require('acpchat.app.chats').create('flood', { resume = 'stored' }); require('acpchat.chat.layout').show(c)",
    );
    const last = `w${UPDATES - 2} line ${UPDATES - 1} of the reply`;
    await t.waitFor(
      async () =>
        t.lua<boolean>(
          "local c = require('acpchat.chat.registry').current(); local n = vim.api.nvim_buf_line_count(c.buf); return n > 1 and vim.api.nvim_buf_get_lines(c.buf, n - 2, n - 1, false)[1] == ...",
          [last],
        ),
      "the replay's last line",
      120_000,
    );
    const r = await t.lua<{ reply: number[]; tools: number; turns: number; row: number; lines: number }>(`
      local c = require("acpchat.chat.registry").current()
      local lines = vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)
      local reply, tools, turns = {}, 0, 0
      for _, l in ipairs(lines) do
        local n = l:match("line (%d+) of the reply$")
        if n then reply[#reply + 1] = tonumber(n) end
        if l:match("Read file %d+") then tools = tools + 1 end
        if l:match("^> question %d+$") then turns = turns + 1 end
      end
      return { reply = reply, tools = tools, turns = turns, row = vim.api.nvim_win_get_cursor(vim.fn.win_findbuf(c.buf)[1])[1], lines = #lines }
    `);
    // Every odd update is a line of the reply, in order; a tool call every 100; a turn every 1,000.
    expect(r.reply).toHaveLength(UPDATES / 2);
    expect(r.reply.every((n, i) => n === 2 * i + 1)).toBe(true);
    expect(r.tools).toBe(UPDATES / 100);
    expect(r.turns).toBe(UPDATES / 1000);
    expect(r.row).toBe(r.lines);
  });

  it("picked from :AcpChatSessions as the editor starts, the session of 100,000 updates loads whole and never holds the editor 50 ms", async () => {
    ownNvim(); // measures the editor's lateness from its start
    const t = await nvim(bin, {
      agents: {
        flood: {
          command: process.execPath,
          args: [FLOOD],
          env: { FLOOD_REPLAY: String(UPDATES), FLOOD_SESSIONS: "5000" },
        },
      },
      default_agent: "flood",
      checkpoints: { enabled: false },
    });
    // Sessions this plugin recorded here: the live picker shows them before the host is up.
    const cwd = await t.lua<string>("return vim.fn.getcwd()");
    await writeSessionIndex(t, [
      { agent: "flood", sessionId: "big", cwd, title: "the big one", updatedAt: "2027-01-01T00:00:00Z" },
    ]);
    const stop = await editorLateness(t);
    // As a user does: the command, then <CR> on the first entry while the agent's list is asked.
    await t.nvim.command("AcpChatSessions");
    expect(await t.lua<string>("return vim.api.nvim_get_current_line()")).toContain("the big one");
    await t.nvim.input("<CR>");
    const last = `w${UPDATES - 2} line ${UPDATES - 1} of the reply`;
    await t.waitFor(
      async () =>
        t.lua<boolean>(
          "local c = require('acpchat.chat.registry').current(); if not c then return false end; local n = vim.api.nvim_buf_line_count(c.buf); return n > 1 and vim.api.nvim_buf_get_lines(c.buf, n - 2, n - 1, false)[1] == ...",
          [last],
        ),
      "the replay's last line",
      120_000,
    );
    const held = await stop();
    // The editor's own work between two ticks of a 5 ms timer (CPU time: a loaded machine's
    // waits for a core are not the plugin's).
    expect(held.busyMs).toBeLessThan(50);
    const r = await t.lua<{ reply: number; row: number; lines: number }>(`
      local c = require("acpchat.chat.registry").current()
      local reply = 0
      for _, l in ipairs(vim.api.nvim_buf_get_lines(c.buf, 0, -1, false)) do
        if l:match("line %d+ of the reply$") then reply = reply + 1 end
      end
      local n = vim.api.nvim_buf_line_count(c.buf)
      return { reply = reply, row = vim.api.nvim_win_get_cursor(vim.fn.win_findbuf(c.buf)[1])[1], lines = n }
    `);
    expect(r.reply).toBe(UPDATES / 2);
    expect(r.row).toBe(r.lines);
  });

  it(":AcpChatSessions lists 5,000 stored sessions, each once", async () => {
    const t = await nvim(bin, {
      agents: { flood: { command: process.execPath, args: [FLOOD], env: { FLOOD_SESSIONS: "5000" } } },
      default_agent: "flood",
      checkpoints: { enabled: false },
    });
    await t.nvim.command("AcpChat");
    await t.waitFor(
      async () =>
        t.lua<boolean>(
          "local c = require('acpchat.chat.registry').current(); return c and c.status and c.status.state == 'ready'",
        ),
      "the chat",
    );
    await t.lua(
      "_G.picked = nil; vim.ui.select = function(items, opts) local l = {}; for i, it in ipairs(items) do l[i] = opts.format_item(it) end; _G.picked = l end",
    );
    await t.nvim.command("AcpChatSessions");
    const labels = await t.waitFor(async () => t.lua<string[] | null>("return _G.picked"), "the picker", 30_000);
    const stored = labels.filter((l) => /Session \d+: a question/.test(l));
    expect(stored).toHaveLength(5000);
    expect(new Set(stored.map((l) => l.match(/Session (\d+):/)![1])).size).toBe(5000);
  });
});
