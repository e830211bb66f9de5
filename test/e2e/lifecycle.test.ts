/**
 * Chats never get lost: one visible chat per tab, every live chat listed and
 * reachable (:AcpChatList), a closed tab hides its chat (the agent keeps running), chat windows
 * keep their buffers, :AcpChat in a review tab goes to the review's chat, one :q closes a tab
 * where only chat windows would be left.
 */
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import { call, chatCount, chatHandle, withAgents, shareNvim, ownNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

/** The windows of the current tab: buffer's chat id (0: not a chat), width, height. */
function tabWins(t: TestNvim) {
  return t.lua<{ chat: number; width: number; height: number }[]>(`
    local out = {}
    for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
      local b, id = vim.api.nvim_win_get_buf(w), 0
      for _, c in pairs(require('acpchat.chat.registry').chats) do
        if c.buf == b or c.prompt_buf == b then id = c.id end
      end
      out[#out + 1] = { chat = id, width = vim.api.nvim_win_get_width(w), height = vim.api.nvim_win_get_height(w) }
    end
    return out`);
}

const mode = (t: TestNvim) => t.lua<string>("return vim.api.nvim_get_mode().mode");
const agentOf = (t: TestNvim) => t.lua<string>("return require('acpchat.chat.registry').current().agent");
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** vim.ui.select records its items' labels in _G.listed and picks the one containing `pick`. */
function pickFromList(t: TestNvim, pick: string | null) {
  return t.lua(
    `_G.pick = ...
     vim.ui.select = function(items, opts, cb)
       _G.listed, _G.list_prompt = {}, opts.prompt
       for _, it in ipairs(items) do table.insert(_G.listed, opts.format_item(it)) end
       for i, it in ipairs(items) do
         if _G.pick and opts.format_item(it):find(_G.pick, 1, true) then return cb(it, i) end
       end
       cb(nil, nil)
     end`,
    [pick],
  );
}

describe.each(bins)("Neovim $version: chats never get lost", (bin) => {
  it(":AcpChat! starts this tab's agent beside nothing: one chat shown per tab, no zero-width windows; :AcpChat gemini focuses the gemini chat", async () => {
    const t = await withAgents(bin, { fake: {}, gemini: {} });
    await t.nvim.command("AcpChat gemini");
    const first = await chatHandle(t);
    expect(await agentOf(t)).toBe("gemini");
    await t.nvim.command("AcpChat!");
    const second = await chatHandle(t);
    expect(second.id).not.toBe(first.id);
    // The new chat is of the tab's agent, and the tab shows it alone.
    expect(await agentOf(t)).toBe("gemini");
    let wins = await tabWins(t);
    expect(wins.filter((w) => w.chat !== 0).map((w) => w.chat)).toEqual([second.id, second.id]);
    expect(wins.every((w) => w.width > 0 && w.height > 0)).toBe(true);
    expect(await first.windows()).toBe(0);
    // Another agent: a chat of its own, shown instead.
    await t.nvim.command("AcpChat fake");
    const third = await chatHandle(t);
    expect(await agentOf(t)).toBe("fake");
    expect(await second.windows()).toBe(0);
    // :AcpChat gemini goes back to the gemini chat of this tab (the last one shown), no new chat.
    await t.nvim.command("AcpChat gemini");
    expect((await chatHandle(t)).id).toBe(second.id);
    expect(await chatCount(t)).toBe(3);
    expect(await third.windows()).toBe(0);
    wins = await tabWins(t);
    expect(wins.length).toBe(3);
    expect(wins.every((w) => w.width > 0 && w.height > 0)).toBe(true);
    // In the prompt, typing, every time.
    await t.waitFor(async () => (await mode(t)) === "i", "insert mode");
    // Toggle hides and shows that one chat; it never cycles to another.
    await t.nvim.command("stopinsert");
    await t.nvim.command("AcpChatToggle");
    expect(await second.windows()).toBe(0);
    await t.nvim.command("AcpChatToggle");
    expect(await second.windows()).toBe(1);
    expect((await tabWins(t)).filter((w) => w.chat !== 0).every((w) => w.chat === second.id)).toBe(true);
    await t.waitFor(async () => (await mode(t)) === "i", "insert mode after :AcpChatToggle");
    // :AcpChat on the open chat from the editor window: the prompt, in insert mode.
    await t.nvim.command("stopinsert");
    await t.nvim.command("wincmd t");
    await t.nvim.command("AcpChat");
    expect(await t.lua<number>("return vim.api.nvim_get_current_buf()")).toBe(second.promptBuf);
    await t.waitFor(async () => (await mode(t)) === "i", "insert mode after :AcpChat on an open chat");
    // i in the transcript: to the prompt, typing (it gave E21).
    await t.nvim.input("<Esc>");
    await second.focus();
    await t.nvim.input("i");
    await t.waitFor(
      async () =>
        (await mode(t)) === "i" && (await t.lua<number>("return vim.api.nvim_get_current_buf()")) === second.promptBuf,
      "i to go to the prompt",
    );
  });

  it(":AcpChatList lists every chat (agent, title, state, tab); picking one shows it here; :tabclose hides a chat, :AcpChatClose ends its agent", async () => {
    const t = await withAgents(bin, { fake: {} });
    await t.nvim.command("AcpChat");
    const a = await chatHandle(t);
    await a.ready();
    await t.nvim.command("tabnew");
    await t.nvim.command("AcpChat");
    const b = await chatHandle(t);
    expect(b.id).not.toBe(a.id);
    await b.ready();
    await t.nvim.command("tabnew");
    await t.nvim.command("AcpChat");
    const c = await chatHandle(t);
    await c.ready();
    const pid = await c.agentPid();
    // Closing the tab hides its chat: the agent runs, the chat is listed.
    await t.nvim.command("stopinsert");
    await t.nvim.command("tabclose");
    expect(await c.windows()).toBe(0);
    expect(await chatCount(t)).toBe(3);
    expect(alive(pid)).toBe(true);
    await pickFromList(t, `chat ${a.id} `);
    await t.nvim.command("AcpChatList");
    const listed = await t.lua<string[]>("return _G.listed");
    expect(listed).toEqual([
      `chat ${a.id} · fake · untitled · ready · tab 1`,
      `chat ${b.id} · fake · untitled · ready · tab 2`,
      `chat ${c.id} · fake · untitled · ready · hidden`,
    ]);
    // Picked from tab 2: chat a is shown here, taken from tab 1; tab 2's own chat is hidden.
    expect(await t.lua<number>("return vim.fn.tabpagenr()")).toBe(2);
    expect((await tabWins(t)).filter((w) => w.chat !== 0).map((w) => w.chat)).toEqual([a.id, a.id]);
    expect(await b.windows()).toBe(0);
    expect(await t.lua<number>("return #vim.api.nvim_tabpage_list_wins(vim.api.nvim_list_tabpages()[1])")).toBe(1);
    // The hidden chat of the closed tab comes back here, alive.
    await pickFromList(t, `chat ${c.id} `);
    await t.nvim.command("AcpChatList");
    expect(await c.windows()).toBe(1);
    await pickFromList(t, null);
    await t.nvim.command("AcpChatList");
    expect((await t.lua<string[]>("return _G.listed"))[0]).toBe(
      `chat ${a.id} · fake · untitled · ready · hidden in tab 2`,
    );
    expect((await t.lua<string[]>("return _G.listed"))[2]).toBe(`chat ${c.id} · fake · untitled · ready · tab 2`);
    // :AcpChatClose ends the agent.
    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => !alive(pid), "the agent to end");
    expect(await chatCount(t)).toBe(2);
  });

  it("chat windows keep their buffers: :e in the transcript or the prompt opens the file in an editor window, the chat stays whole", async () => {
    const t = await withAgents(bin, { fake: {} });
    await t.nvim.command("AcpChat");
    const c = await chatHandle(t);
    await t.nvim.command("stopinsert");
    const editorWin = await t.lua<number>("return vim.fn.win_getid(1)");
    await c.focus();
    await t.nvim.command("edit other.txt");
    const where = () =>
      t.lua<{ win: number; name: string }>(
        "return { win = vim.api.nvim_get_current_win(), name = vim.fn.expand('%:t') }",
      );
    await t.waitFor(
      async () => (await where()).name === "other.txt" && (await where()).win === editorWin,
      "other.txt in the editor window",
    );
    expect(await c.windows()).toBe(1);
    expect(await t.lua<number>("return vim.api.nvim_win_get_buf(vim.fn.win_findbuf(...)[1])", [c.buf])).toBe(c.buf);
    await c.focusPrompt();
    await t.nvim.command("edit third.txt");
    await t.waitFor(
      async () => (await where()).name === "third.txt" && (await where()).win === editorWin,
      "third.txt in the editor window",
    );
    expect(await t.lua<number>("return #vim.fn.win_findbuf(...)", [c.promptBuf])).toBe(1);
    // With no editor window left in the tab, one is made for the file.
    await t.nvim.command("only");
    await t.nvim.command("AcpChat");
    await t.nvim.command("stopinsert");
    await t.lua(
      "for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do if not vim.w[w].acpchat_buf then vim.api.nvim_win_close(w, true) end end",
    );
    expect(await tabWins(t)).toHaveLength(2);
    await c.focus();
    await t.nvim.command("edit other.txt");
    await t.waitFor(async () => (await where()).name === "other.txt", "other.txt in a new window");
    const wins = await tabWins(t);
    expect(wins.map((w) => w.chat).sort()).toEqual([0, c.id, c.id]);
    expect(wins.every((w) => w.width > 0 && w.height > 0)).toBe(true);
    // :AcpChat then opens no other pair.
    await t.nvim.command("AcpChat");
    expect((await tabWins(t)).length).toBe(3);
  });

  it(":AcpChat in a review tab goes to the chat that owns the review", async () => {
    const t = await withAgents(bin, {
      fake: {
        turns: [[{ request: "fs/write_text_file", params: { path: "$DIR/work/r.txt", content: "new\n" }, echo: true }]],
      },
    });
    await t.nvim.command("AcpChat");
    // Out of the prompt's Insert mode: the review opens by itself (chat/waiting.lua).
    await t.nvim.command("stopinsert");
    const c = await chatHandle(t);
    await c.ready();
    await c.send("write");
    await t.waitFor(
      async () =>
        (await t.lua<number>("return vim.fn.tabpagenr('$')")) === 2 &&
        (await t.lua<number>("return vim.fn.tabpagenr()")) === 2,
      "the review tab",
    );
    await t.nvim.command("AcpChat");
    expect(await chatCount(t)).toBe(1);
    expect(await t.lua<number>("return vim.fn.tabpagenr()")).toBe(1);
    expect(await t.lua<number>("return vim.api.nvim_get_current_buf()")).toBe(c.promptBuf);
    expect(await call(t, "chats")).toHaveLength(1);
  });

  it("one :q closes a tab where only chat windows would be left, and quits Neovim from the last one", async () => {
    ownNvim(); // Neovim quits in it
    const t = await withAgents(bin, { fake: {} });
    await t.nvim.command("AcpChat");
    const c = await chatHandle(t);
    await t.nvim.command("stopinsert");
    await t.nvim.command("tabnew");
    await t.nvim.command("AcpChat");
    await t.nvim.command("stopinsert");
    await t.nvim.command("wincmd t");
    await t.nvim.command("q");
    expect(await t.lua<number>("return vim.fn.tabpagenr('$')")).toBe(1);
    expect(await chatCount(t)).toBe(2);
    // Tab 1: the editor window and chat c. One :q quits.
    expect(await c.windows()).toBe(1);
    await t.nvim.command("wincmd t");
    const exited = new Promise((r) => t.proc.once("exit", r));
    t.nvim.command("q").catch(() => undefined);
    await Promise.race([
      exited,
      new Promise((_, rej) => setTimeout(() => rej(new Error("Neovim did not quit")), 5000)),
    ]);
  });
});
