/**
 * The real claude-code-acp agent in a real Neovim, driven by a fake model server on 127.0.0.1:
 * it reads an unsaved buffer, writes a file through review, runs a command in a terminal, and is
 * denied once.
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { nvimBins, startNvim, type TestNvim } from "../support/nvim.js";
import { CLAUDE_ACP, claudeEnv } from "../support/claude.js";

// One Neovim version is enough here: the agent is what is under test.
const bin = nvimBins().at(-1)!;
let server: FakeAnthropic;
let t: TestNvim | undefined;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await t?.quit();
  t = undefined;
});

describe(`claude-code-acp in Neovim ${bin.version}`, () => {
  it("reads an unsaved buffer, writes through review, runs a terminal, is denied once", async () => {
    t = await startNvim(bin, {
      agents: { claude: { command: process.execPath, args: [CLAUDE_ACP], env: claudeEnv(server.url) } },
      default_agent: "claude",
      timeouts: { initialize_ms: 30000, new_session_ms: 60000 },
    });
    const tt = t;
    const work = join(tt.dir, "work");
    writeFileSync(join(work, "notes.txt"), "disk text\n");
    await tt.nvim.command("edit notes.txt");
    await tt.lua("vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'UNSAVED EDIT' })");
    await tt.lua(`
      _G.answers = {}
      vim.ui.select = function(items, opts, on_choice)
        local want = table.remove(_G.answers, 1) or "allow_once"
        for _, it in ipairs(items) do if it.kind == want and not it.remember then return on_choice(it) end end
        on_choice(nil)
      end
    `);
    await tt.nvim.command("AcpChat");
    const c = await tt.lua<{ id: number; buf: number }>("local c = require('acpchat.registry').current(); return { id = c.id, buf = c.buf }");
    await tt.waitFor(async () => (await tt.lua<string>("return require('acpchat.registry').get(...).status.state", [c.id])) === "ready", "claude to be ready", 60_000);
    const turns = async (n: number) =>
      tt.waitFor(async () => ((await tt.lua<number>("return require('acpchat.registry').get(...).turn_ended or 0", [c.id])) >= n ? true : false), `turn ${n}`, 60_000);
    const transcript = async () => (await tt.lines(c.buf)).join("\n");

    await tt.nvim.command(`AcpChatSend read ${join(work, "notes.txt")}`);
    await turns(1);
    expect(await transcript()).toContain("UNSAVED EDIT");

    await tt.nvim.command(`AcpChatSend write ${join(work, "new.txt")} from claude`);
    await tt.waitFor(async () => (await tt.lua<number>("return vim.tbl_count(require('acpchat.review').open_reviews)")) === 1, "the review", 60_000);
    await tt.waitFor(async () => (await tt.lua<number>("return vim.fn.tabpagenr('$')")) === 2, "the review tab");
    await tt.nvim.input("gA");
    await tt.nvim.input("ZZ");
    await turns(2);
    expect(readFileSync(join(work, "new.txt"), "utf8")).toBe("from claude");

    await tt.nvim.command("AcpChatSend run echo hi-from-terminal");
    await turns(3);
    const text3 = await transcript();
    expect(text3).toContain("hi-from-terminal");
    expect(await tt.lua<number>("return #require('acpchat.bridge').call_sync('terminal', { chat = ... })", [c.id])).toBeGreaterThanOrEqual(1);

    await tt.lua("_G.answers = { 'reject_once' }");
    await tt.nvim.command(`AcpChatSend write ${join(work, "denied.txt")} nope`);
    await turns(4);
    expect(existsSync(join(work, "denied.txt"))).toBe(false);
  }, 180_000);
});
