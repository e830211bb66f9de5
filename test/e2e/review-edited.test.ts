/**
 * The review loop and what the user did since the agent's turns: files changed on disk since,
 * or with unsaved edits in their buffer, are marked in :AcpChatReview's list; and moving
 * through the files (]f) opens each review at once, even right after typing (the review is
 * the answer to the key, not a question to hold while the user types).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import { checkpointsReady, nvim, openChat, sendAndWaitChanges, setAgents } from "../support/chat.js";

const bins = nvimBins();

const tool = (id: string) => ({
  update: { sessionUpdate: "tool_call", toolCallId: id, title: "edit", kind: "execute", status: "in_progress" },
});
const done = (id: string) => ({ update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } });

async function listLines(t: TestNvim): Promise<string[]> {
  return t.lua<string[]>(
    "local _, loop = next(require('acpchat.review.loop').loops); return loop and vim.api.nvim_buf_get_lines(loop.list_buf, 0, -1, false) or {}",
  );
}

const shownReview = (t: TestNvim, name: string) =>
  t.lua<boolean>(
    "for _, r in pairs(require('acpchat.ask.review').open_reviews) do if r.lw and r.path:match(...) then return true end end return false",
    [name.replace(/\./g, "%.") + "$"],
  );

describe.each(bins)("Neovim $version", (bin) => {
  it("marks the files the user changed since, and ]f opens the next review at once", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    for (const f of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(work, f), "one\ntwo\nthree\n");
    await setAgents(t, {
      fake: {
        byText: {
          go: [tool("t1"), { sh: "sed -i 's/^two$/TWO/' a.txt b.txt c.txt" }, done("t1"), { text: "done" }],
        },
        turns: [[{ text: "ok" }]],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWaitChanges(c, "go");

    // Since the turn: b.txt changed on disk by the user, c.txt edited in a buffer, not saved.
    writeFileSync(join(work, "b.txt"), "one\nTWO\nthree\nfour\n");
    await t.lua(
      "local b = vim.fn.bufadd(...); vim.fn.bufload(b); vim.bo[b].buflisted = true; vim.api.nvim_buf_set_lines(b, 0, 1, false, { 'ONE' })",
      [join(work, "c.txt")],
    );

    await t.nvim.command("AcpChatReview 1");
    const list = await t.waitFor(async () => {
      const l = await listLines(t);
      return l.some((x) => x.includes("changed since")) && l;
    }, "the list with its marks");
    // The mark next to the status letter too: a narrow list cuts the line's end.
    expect(list[0]).toMatch(/^M {2}a\.txt {2}\+1 -1 {2}turn 1$/);
    expect(list[1]).toMatch(/^M✎ b\.txt {2}\+1 -1 {2}turn 1 {2}✎ changed since$/);
    expect(list[2]).toMatch(/^M✎ c\.txt {2}\+1 -1 {2}turn 1 {2}✎ unsaved edits$/);
    const width = await t.lua<number>(
      "local _, loop = next(require('acpchat.review.loop').loops); return vim.api.nvim_win_get_width(loop.list_win)",
    );
    expect(width).toBeLessThan(list[1]!.length);

    // ]f typed (keys count as typing; a long typing pause): b.txt's review still opens.
    await t.waitFor(() => shownReview(t, "a.txt"), "a.txt's review");
    await t.lua("require('acpchat.chat.waiting').pause_ms = 600000");
    await t.nvim.input("]f");
    await t.waitFor(() => shownReview(t, "b.txt"), "b.txt's review after ]f, not held as a question");
    expect(await t.lua("return #require('acpchat.chat.waiting').held")).toBe(0);

    // From the list: gR and ZZ act on the shown review (Vim's ZZ would close the list's window):
    // b.txt's change taken back, merged with the user's line added since.
    await t.lua("vim.api.nvim_set_current_win(select(2, next(require('acpchat.review.loop').loops)).list_win)");
    await t.nvim.input("gR");
    await t.nvim.input("ZZ");
    await t.waitFor(
      async () => readFileSync(join(work, "b.txt"), "utf8") === "one\ntwo\nthree\nfour\n",
      "b.txt taken back, the user's line kept",
    );
    // :q on the list closes the whole review, not just its window.
    const tabs = await t.lua<number>("return #vim.api.nvim_list_tabpages()");
    await t.nvim.command("quit");
    await t.waitFor(
      async () => (await t.lua<number>("return #vim.api.nvim_list_tabpages()")) === tabs - 1,
      "the review's tab closed",
    );
    expect(await t.lua("return next(require('acpchat.review.loop').loops) == nil")).toBe(true);
  });
});
