/**
 * The real claude-code-acp agent in a real Neovim, driven by a fake model server on 127.0.0.1:
 * it reads an unsaved buffer, writes a file once approved, runs a command in a terminal, and is
 * denied once.
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { nvimBins } from "../support/nvim.js";
import { CLAUDE_ACP, claudeEnv } from "../support/claude.js";
import { answerKinds, call, nvim, openChat, reviews } from "../support/chat.js";

// One Neovim version is enough here: the agent is what is under test.
const bin = nvimBins().at(-1)!;
let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});

describe(`claude-code-acp in Neovim ${bin.version}`, () => {
  it("reads an unsaved buffer, writes once allowed and accepted in its review, runs a terminal, is denied once", async () => {
    const t = await nvim(bin, {
      agents: { claude: { command: process.execPath, args: [CLAUDE_ACP], env: claudeEnv(server.url) } },
      default_agent: "claude",
      timeouts: { initialize_ms: 30000, new_session_ms: 60000 },
    });
    const work = join(t.dir, "work");
    writeFileSync(join(work, "notes.txt"), "disk text\n");
    await t.nvim.command("edit notes.txt");
    await t.lua("vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'UNSAVED EDIT' })");
    // Every permission question is allowed once, until a test says otherwise.
    await answerKinds(t, []);
    const c = await openChat(t);
    await c.ready(60_000);

    await t.nvim.command(`AcpChatSend read ${join(work, "notes.txt")}`);
    await c.turns(1, 60_000);
    expect(await c.text()).toContain("UNSAVED EDIT");

    // The permission question (counts, not the diff) was allowed: with write = "review" the
    // write that follows opens in review, and lands once accepted there.
    await t.nvim.command(`AcpChatSend write ${join(work, "new.txt")} from claude`);
    await t.waitFor(async () => (await reviews(t)) === 1, "the write's review to open", 60_000);
    expect(existsSync(join(work, "new.txt"))).toBe(false);
    await t.waitFor(
      async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the write's review tab",
    );
    await t.nvim.input("gAZZ");
    await c.turns(2, 60_000);
    expect(readFileSync(join(work, "new.txt"), "utf8")).toBe("from claude");
    expect(await t.lua<number>("return vim.fn.tabpagenr('$')")).toBe(1);

    await t.nvim.command("AcpChatSend run echo hi-from-terminal");
    await c.turns(3, 60_000);
    expect(await c.text()).toContain("hi-from-terminal");
    expect((await call<unknown[]>(t, "terminal", { chat: c.id })).length).toBeGreaterThanOrEqual(1);

    await answerKinds(t, ["reject_once"]);
    await t.nvim.command(`AcpChatSend write ${join(work, "denied.txt")} nope`);
    await c.turns(4, 60_000);
    expect(existsSync(join(work, "denied.txt"))).toBe(false);
  }, 180_000);
});
