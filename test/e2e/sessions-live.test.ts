/**
 * :AcpChatSessions with Neovim's own vim.ui.select: the live picker shows the sessions this
 * plugin recorded at once (before any agent is started), merges each agent's list as it answers
 * (the agents still asked in its title), and its titles are readable: no bare session ids, no
 * conversation handed over glued to the first prompt.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { chatHandle, nvim, setAgents, writeSessionIndex } from "../support/chat.js";

const bins = nvimBins();
const UUID = "0b3c9e2a-5f1d-4c8e-9a7b-2d6f4e1c8a90";
const HANDOFF =
  "The conversation so far with another agent (alpha, “old”), handed over to you: continue from it\n## You\nhello";

describe.each(bins)("Neovim $version", (bin) => {
  it("shows the local index at once, merges each agent's list as it answers, titles readable", async () => {
    const t = await nvim(bin);
    const cwd = `${t.dir}/work`;
    await setAgents(t, {
      alpha: {
        sessions: [
          { sessionId: UUID, cwd },
          { sessionId: "a-2", cwd, title: HANDOFF },
        ],
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
        delays: { "session/list": 1500 },
      },
      beta: {
        sessions: [
          { sessionId: "b-1", cwd, title: "beta's old work", history: [{ user: "hey" }, { text: "beta remembers" }] },
        ],
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
        delays: { "session/list": 4000 },
      },
    });
    // What the plugin recorded of alpha's two sessions: the user's own first words.
    await writeSessionIndex(t, [
      { agent: "alpha", sessionId: UUID, cwd, prompt: "fix the parser", updatedAt: "2026-01-02T10:00:00.000Z" },
      {
        agent: "alpha",
        sessionId: "a-2",
        cwd,
        prompt: "go on with the tests",
        updatedAt: "2026-01-01T10:00:00.000Z",
      },
    ]);
    const shown = await t.lua<{
      ms: number;
      host_before: boolean;
      host_started: boolean;
      ft: string;
      lines: string[];
      title: string;
    }>(`
      -- The editor's own time (CPU: a loaded machine's waits for a core are not the command's).
      local function cpu()
        local r = vim.uv.getrusage()
        return (r.utime.sec + r.stime.sec) * 1e3 + (r.utime.usec + r.stime.usec) / 1e3
      end
      local bridge = require("acpchat.host.bridge")
      local host_before = bridge.channel ~= nil
      local c0 = cpu()
      vim.cmd("AcpChatSessions")
      local ms = cpu() - c0
      -- Whether the command started the Node host (a fork of the editor) before returning.
      local host_started = not host_before and bridge.channel ~= nil
      local win = vim.api.nvim_get_current_win()
      local buf = vim.api.nvim_win_get_buf(win)
      local title = vim.api.nvim_win_get_config(win).title
      if type(title) == "table" then title = table.concat(vim.tbl_map(function(c) return c[1] end, title)) end
      return { ms = ms, host_before = host_before, host_started = host_started, ft = vim.bo[buf].filetype, lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false), title = title }
    `);
    // At once: the command returns with the picker open on the index's sessions.
    expect(shown.ms).toBeLessThan(200);
    // ... without starting the Node host first: the agents are asked once the picker is drawn.
    expect(shown.host_before).toBe(false);
    expect(shown.host_started).toBe(false);
    expect(shown.ft).toBe("acpchat_sessions");
    expect(shown.title).toContain("asking alpha, beta");
    expect(shown.lines).toHaveLength(2);
    expect(shown.lines[0]).toContain("fix the parser");
    expect(shown.lines.join("\n")).not.toContain(UUID);
    const state = () =>
      t.lua<{ lines: string[]; title: string }>(`
        local buf = vim.api.nvim_get_current_buf()
        local title = vim.api.nvim_win_get_config(0).title
        if type(title) == "table" then title = table.concat(vim.tbl_map(function(c) return c[1] end, title)) end
        return { lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false), title = title }`);
    // alpha answers first: merged (its titles cleaned), beta still asked.
    const afterAlpha = await t.waitFor(async () => {
      const s = await state();
      return !s.title.includes("alpha") && s;
    }, "alpha's list merged");
    expect(afterAlpha.title).toContain("asking beta");
    expect(afterAlpha.lines).toHaveLength(2);
    const all = afterAlpha.lines.join("\n");
    expect(all).not.toContain(UUID);
    expect(all).not.toContain("handed over");
    expect(all).toContain("go on with the tests");
    const done = await t.waitFor(
      async () => {
        const s = await state();
        return !s.title.includes("asking") && s;
      },
      "beta's list merged",
      20_000,
    );
    expect(done.lines).toHaveLength(3);
    const row = done.lines.findIndex((l) => l.includes("beta's old work")) + 1;
    expect(row).toBeGreaterThan(0);
    expect(done.lines[row - 1]).toMatch(/^\[beta\]/);
    // Picking it opens beta's session.
    await t.lua(`vim.api.nvim_win_set_cursor(0, { ${row}, 0 })`);
    await t.nvim.input("<CR>");
    const c = await t.waitFor(async () => {
      const n = await t.lua<number>("return vim.tbl_count(require('acpchat.chat.registry').chats)");
      return n > 0 && (await chatHandle(t));
    }, "the chat of beta's session");
    expect((await c.status()).agent).toBe("beta");
    await t.waitFor(async () => (await c.text()).includes("beta remembers"), "beta's replayed session");
  });
});
