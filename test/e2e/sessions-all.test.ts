/**
 * :AcpChatSessions with no agent named and several configured: every agent's past sessions in
 * one list, each marked with its agent; picking one opens it with that agent.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { chatHandle, nvim, setAgents } from "../support/chat.js";

const bins = nvimBins();

describe.each(bins)("Neovim $version", (bin) => {
  it("lists the sessions of every agent, marked; an agent that cannot list is named once; picking opens it with its agent", async () => {
    const t = await nvim(bin);
    const cwd = `${t.dir}/work`;
    await setAgents(t, {
      alpha: {
        sessions: [
          { sessionId: "a-1", cwd, title: "alpha's old work", history: [{ user: "hi" }, { text: "alpha remembers" }] },
        ],
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
      },
      beta: {
        sessions: [
          { sessionId: "b-1", cwd, title: "beta's old work", history: [{ user: "hey" }, { text: "beta remembers" }] },
        ],
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
      },
      gamma: {
        failMethods: { "session/list": "boom" },
        agentCapabilities: { loadSession: false, sessionCapabilities: { list: {} } },
      },
    });
    await t.lua(`_G.asked = nil; vim.ui.select = function(items, opts, cb)
      _G.asked = { prompt = opts.prompt, labels = vim.tbl_map(opts.format_item, items) }
      for i, it in ipairs(items) do if opts.format_item(it):find("beta's old work", 1, true) then return cb(it, i) end end
    end`);
    await t.lua("_G.notes = {}; vim.notify = function(m) table.insert(_G.notes, m) end");
    await t.nvim.command("AcpChatSessions");
    const asked = await t.waitFor(
      async () => t.lua<{ prompt: string; labels: string[] } | null>("return _G.asked"),
      "the sessions list",
      20_000,
    );
    expect(asked.prompt).toBe("Open a session:");
    expect(asked.labels.some((l) => l.startsWith("[alpha]") && l.includes("alpha's old work"))).toBe(true);
    expect(asked.labels.some((l) => l.startsWith("[beta]") && l.includes("beta's old work"))).toBe(true);
    const c = await t.waitFor(async () => {
      const n = await t.lua<number>("return vim.tbl_count(require('acpchat.chat.registry').chats)");
      return n > 0 && (await chatHandle(t));
    }, "the chat of beta's session");
    expect((await c.status()).agent).toBe("beta");
    await t.waitFor(async () => (await c.text()).includes("beta remembers"), "beta's replayed session");
    // The agent that could not list is named once, with why.
    expect(
      (await t.lua<string[]>("return _G.notes")).filter((n) => n.startsWith("acpchat: no sessions from gamma")),
    ).toHaveLength(1);
  });
});
