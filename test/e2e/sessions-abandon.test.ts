/**
 * :AcpChatSessions stops listing when its picker closes: a session picked (or the picker
 * dismissed) while an agent's session/list pages are still arriving asks that agent for no
 * further page, whether it was asked through a short-lived agent or a live chat's (which is
 * sent `$/cancel_request` and lives on); the picked session loads whole, and the next
 * :AcpChatSessions lists fully.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { chatHandle, nvim, setAgents, writeSessionIndex } from "../support/chat.js";

const bins = nvimBins();
const SESSIONS = 24;
const PAGE = 3;
const PAGE_MS = 250;

describe.each(bins)("Neovim $version", (bin) => {
  it("stops asking for pages once the picker closes; the picked session loads whole", async () => {
    const t = await nvim(bin);
    const cwd = `${t.dir}/work`;
    const record = `${t.dir}/alpha-requests.jsonl`;
    const history = [{ user: "the old question" }, ...Array.from({ length: 40 }, (_, i) => ({ text: `step ${i}\n` }))];
    history.push({ text: "the end of s-0" });
    await setAgents(t, {
      alpha: {
        sessions: Array.from({ length: SESSIONS }, (_, i) => ({
          sessionId: `s-${i}`,
          cwd,
          title: `listed session ${i}`,
          history: i === 0 ? history : [],
        })),
        listPage: PAGE,
        delays: { "session/list": PAGE_MS },
        record,
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
      },
    });
    // The plugin recorded s-0: the picker shows it at once, before alpha's list is in.
    await writeSessionIndex(t, [
      { agent: "alpha", sessionId: "s-0", cwd, prompt: "the old question", updatedAt: "2026-01-02T10:00:00.000Z" },
    ]);
    const received = (method: string) =>
      existsSync(record)
        ? readFileSync(record, "utf8")
            .split("\n")
            .filter((l) => l !== "" && (JSON.parse(l) as { method?: string }).method === method).length
        : 0;
    const lists = () => received("session/list");
    const pickerState = () =>
      t.lua<{ ft: string; lines: string[]; title: string }>(`
        local buf = vim.api.nvim_get_current_buf()
        local title = vim.bo[buf].filetype == "acpchat_sessions" and vim.api.nvim_win_get_config(0).title or ""
        if type(title) == "table" then title = table.concat(vim.tbl_map(function(c) return c[1] end, title)) end
        return { ft = vim.bo[buf].filetype, lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false), title = title }`);
    /** No session/list asked for over several pages' time (a listing left running asks every PAGE_MS). */
    const expectNoMorePages = async () => {
      const at = lists();
      await new Promise((r) => setTimeout(r, PAGE_MS * 6));
      expect(lists()).toBe(at);
    };

    // 1. Through a short-lived agent (no chat with alpha yet): pick s-0 while pages arrive.
    await t.lua("vim.cmd('AcpChatSessions')");
    expect((await pickerState()).ft).toBe("acpchat_sessions");
    await t.waitFor(async () => lists() >= 2, "alpha's listing paging", 15_000);
    const first = await pickerState();
    expect(first.title).toContain("asking alpha");
    expect(first.lines[0]).toContain("the old question");
    await t.nvim.input("<CR>");
    await expectNoMorePages();
    expect(lists()).toBeLessThan(SESSIONS / PAGE);
    const c = await t.waitFor(async () => {
      const n = await t.lua<number>("return vim.tbl_count(require('acpchat.chat.registry').chats)");
      return n > 0 && (await chatHandle(t));
    }, "the chat of the picked session");
    await t.waitFor(async () => (await c.text()).includes("the end of s-0"), "the picked session replayed");
    const text = await c.text();
    for (let i = 0; i < 40; i++) expect(text).toContain(`step ${i}`);
    expect((await c.status()).agent).toBe("alpha");

    // 2. Through the live chat's agent: dismissed while paging; the agent is told and lives on.
    const before = lists();
    await t.lua("vim.cmd('AcpChatSessions')");
    await t.waitFor(async () => lists() >= before + 2, "alpha's listing paging again", 15_000);
    expect((await pickerState()).ft).toBe("acpchat_sessions");
    await t.nvim.input("q");
    await expectNoMorePages();
    expect(lists() - before).toBeLessThan(SESSIONS / PAGE);
    expect(received("$/cancel_request")).toBeGreaterThan(0);
    expect((await c.status()).state).toBe("ready");

    // 3. A third :AcpChatSessions still lists every session.
    await t.lua("vim.cmd('AcpChatSessions')");
    const done = await t.waitFor(
      async () => {
        const s = await pickerState();
        return s.ft === "acpchat_sessions" && !s.title.includes("asking") && s.lines.length > 1 && s;
      },
      "the whole list",
      20_000,
    );
    expect(done.lines).toHaveLength(SESSIONS);
  });
});
