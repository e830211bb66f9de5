/** End to end: a real headless Neovim, the plugin loaded from this checkout, the fake agent. */
import { describe, expect, it } from "vitest";
import { groupAlive } from "../../src/agent/process-group.js";
import { nvimBins } from "../support/nvim.js";
import { call, nvim, openChat, startChat, withAgents, shareNvim, ownNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("opens a chat, sends with <CR> from the prompt, streams the answer into the transcript", async () => {
    const c = await startChat(bin, {
      turns: [
        [{ text: "Hello" }, { chunks: 200, text: "." }, { thought: "let me think\nabout it" }, { text: "Done." }],
      ],
    });
    const t = c.t;
    expect(await t.lua("return vim.api.nvim_buf_get_name(...)", [c.buf])).toMatch(/acpchat:\/\/\d+\/chat$/);
    expect(await t.lua("return vim.bo[...].filetype", [c.buf])).toBe("acpchat");
    expect(await t.lua("return vim.bo[...].buftype", [c.buf])).toBe("nofile");
    expect(await t.lua("return vim.api.nvim_buf_get_name(...)", [c.promptBuf])).toMatch(/acpchat:\/\/\d+\/prompt$/);
    await c.ready();
    // Type in the prompt and send with <CR> in normal mode.
    await c.focusPrompt();
    await t.nvim.input("<Esc>ihi there<Esc>");
    await t.nvim.input("<CR>");
    await c.turns(1);
    // The turn reads as a conversation: the user's header and words, the agent's header and reply.
    expect(await c.lines()).toEqual([
      "## You · turn 1",
      "> hi there",
      "",
      "## fake",
      `Hello${".".repeat(200)}`,
      "",
      "  ┆ let me think",
      "  ┆ about it",
      "",
      "Done.",
    ]);
    expect(await c.promptLines()).toEqual([""]);
    // The empty prompt shows a hint; typing removes it.
    const hint = await t.lua<unknown[]>(
      "return vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_get_namespaces().acpchat_prompt_hint, 0, -1, { details = true })",
      [c.promptBuf],
    );
    expect(JSON.stringify(hint)).toContain("Ask fake");
    // 200 chunks arrive in a handful of batches, not 200.
    expect(await c.batches()).toBeLessThan(60);
    // Thoughts are folded.
    expect(
      await t.lua("return vim.api.nvim_win_call(..., function() return vim.fn.foldclosed(7) end)", [await c.win()]),
    ).toBe(7);
    const bar = await c.winbar();
    expect(bar).toContain("fake");
    expect(bar).toContain("ready");
  });

  it("draws tool calls and the plan once, updated in place, with gf to their locations", async () => {
    const tool = (u: Record<string, unknown>) => ({
      update: { sessionUpdate: "tool_call_update", toolCallId: "t1", ...u },
    });
    const plan = (statuses: string[]) => ({
      update: {
        sessionUpdate: "plan",
        entries: statuses.map((s, i) => ({ content: `step ${i + 1}`, priority: "medium", status: s })),
      },
    });
    const t = await withAgents(bin, {
      fake: {
        turns: [
          [
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "t1",
                title: "Read notes",
                kind: "read",
                status: "pending",
              },
            },
            plan(["pending", "pending"]),
            { text: "between" },
            tool({ status: "in_progress", locations: [{ path: "notes.txt", line: 2 }] }),
            { sleep: 50 },
            tool({
              status: "completed",
              content: [{ type: "diff", path: "notes.txt", oldText: "a\nb\n", newText: "a\nB\nc\n" }],
            }),
            plan(["completed", "in_progress"]),
            { text: " and after" },
          ],
        ],
      },
    });
    await t.lua("vim.fn.writefile({ 'one', 'two', 'three' }, 'notes.txt')");
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    await c.turns(1);
    expect(await c.lines()).toEqual([
      "## You · turn 1",
      "> go",
      "",
      "## fake",
      "● done · read · Read notes",
      "  ↳ notes.txt:2",
      "  +2 -1 notes.txt",
      "",
      "Plan",
      "  ✓ step 1",
      "  ◐ step 2",
      "",
      "between and after",
    ]);
    // One block extmark per block: updates redrew in place.
    const marks = await t.lua<number>(
      "return #vim.api.nvim_buf_get_extmarks(..., require('acpchat.chat.render').ns_blocks, 0, -1, {})",
      [c.buf],
    );
    expect(marks).toBe(6);
    // gf on the tool call opens its location in an editor window.
    await c.focus();
    await t.lua("vim.api.nvim_win_set_cursor(0, {5, 0})");
    await t.nvim.input("<Esc>gf");
    await t.waitFor(
      async () => (await t.lua<string>("return vim.fn.expand('%:t')")) === "notes.txt",
      "gf to open notes.txt",
    );
    expect(await t.lua("return vim.api.nvim_win_get_cursor(0)[1]")).toBe(2);
  });

  it("cancels mid-turn with <C-c>: the running tool call is marked cancelled and the turn ends", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          {
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "long",
              title: "Long job",
              kind: "execute",
              status: "in_progress",
            },
          },
          { chunks: 100000, text: "z", every: 50, pause: 5 },
        ],
      ],
    });
    await c.ready();
    await c.t.nvim.command("AcpChatSend work");
    await c.t.waitFor(async () => (await c.status()).activity === "streaming", "streaming");
    await c.focusPrompt();
    await c.t.nvim.input("<C-c>");
    await c.turns(1);
    expect(await c.lastStop()).toBe("cancelled");
    expect((await c.lines())[4]).toBe("⊘ cancelled · execute · Long job");
    // The turn says where it ended, and how.
    await c.t.waitFor(async () => (await c.lines()).at(-1) === "── turn cancelled ──", "the end marker");
    expect(await c.state()).toBe("ready");
  });

  it("runs two chats with different agents at once, each with its own process; close leaves none", async () => {
    ownNvim(); // Neovim quits in it
    const t = await withAgents(bin, {
      alpha: { turns: [[{ text: "from alpha" }]] },
      beta: { spawnChild: true, turns: [[{ text: "from beta" }]] },
    });
    const a = await openChat(t, "AcpChat alpha");
    await t.nvim.command("tabnew");
    const b = await openChat(t, "AcpChat beta");
    expect(b.id).not.toBe(a.id);
    await a.ready();
    await b.ready();
    await a.send("one");
    await t.nvim.command("AcpChatSend two");
    await a.turns(1);
    await b.turns(1);
    expect((await a.lines()).at(-1)).toBe("from alpha");
    expect((await b.lines()).at(-1)).toBe("from beta");
    const list = await call<{ chat: number; pid: number }[]>(t, "chats");
    const pids = list.map((x) => x.pid);
    expect(new Set(pids).size).toBe(2);
    expect(pids.every((p) => groupAlive(p))).toBe(true);
    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => !groupAlive(list.find((x) => x.chat === b.id)!.pid), "beta's process group to be gone");
    expect(groupAlive(list.find((x) => x.chat === a.id)!.pid)).toBe(true);
    // Quitting Neovim takes the other agent with it.
    await t.quit();
    await t.waitFor(
      async () => !groupAlive(list.find((x) => x.chat === a.id)!.pid),
      "alpha's process group to be gone after :qa",
    );
  });

  it(":AcpChat focuses this tab's chat, :AcpChat! starts another, :AcpChatToggle hides and shows", async () => {
    const a = await startChat(bin, {});
    const t = a.t;
    await t.nvim.command("wincmd p");
    const again = await openChat(t);
    expect(again.id).toBe(a.id);
    await t.nvim.command("AcpChatToggle");
    expect(await a.windows()).toBe(0);
    await t.nvim.command("AcpChatToggle");
    expect(await a.windows()).toBe(1);
    const b = await openChat(t, "AcpChat!");
    expect(b.id).not.toBe(a.id);
    expect(await b.windows()).toBe(1);
  });

  it("follows the reply to the user's prompt, and ]] / [[ move between turns", async () => {
    const c = await startChat(bin, { turns: [[{ text: "a\nb\nc\nd" }], [{ text: "e\nf\ng" }], [{ text: "h" }]] });
    const t = c.t;
    await c.ready();
    const win = await c.win();
    await t.nvim.command("AcpChatSend 1");
    await c.turns(1);
    const last1 = await t.lua<number>("return vim.api.nvim_buf_line_count(...)", [c.buf]);
    expect(await t.lua("return vim.api.nvim_win_get_cursor(...)[1]", [win])).toBe(last1);
    // Sending from a window scrolled up brings it to the end to follow the answer (scrolling up
    // while it streams keeps the place: test/e2e/windows.test.ts).
    await t.lua("vim.api.nvim_win_set_cursor(..., {1, 0})", [win]);
    await t.nvim.command("AcpChatSend 2");
    await c.turns(2);
    expect(await t.lua("return vim.api.nvim_win_get_cursor(...)[1]", [win])).toBe(
      await t.lua<number>("return vim.api.nvim_buf_line_count(...)", [c.buf]),
    );
    // ]] jumps to the next turn header.
    await c.focus();
    await t.lua("vim.api.nvim_win_set_cursor(..., {1, 0})", [win]);
    await t.nvim.input("<Esc>]]");
    const lines = await c.lines();
    await t.waitFor(
      async () => lines[(await t.lua<number>("return vim.api.nvim_win_get_cursor(0)[1]")) - 1] === "## You · turn 2",
      "]] to reach turn 2",
    );
    await t.nvim.input("[[");
    await t.waitFor(
      async () => lines[(await t.lua<number>("return vim.api.nvim_win_get_cursor(0)[1]")) - 1] === "## You · turn 1",
      "[[ to reach turn 1",
    );
  });

  it("reports an agent that cannot start, naming the command", async () => {
    const t = await nvim(bin, {
      agents: { broken: { command: "no-such-agent-cmd", args: ["--acp"] } },
      default_agent: "broken",
    });
    const c = await openChat(t);
    await c.waitState("crashed");
    expect(await c.text()).toMatch(/no-such-agent-cmd --acp/);
    await t.waitFor(
      async () => (await t.lua<string>("return vim.fn.execute('messages')")).includes("broken stopped"),
      "a notification",
    );
  });

  it("exposes status() for statuslines and fires User autocommands", async () => {
    const t = await withAgents(bin, {
      fake: {
        turns: [
          [
            { update: { sessionUpdate: "usage_update", used: 5000, size: 100000 } },
            { text: "x" },
            { stop: "max_tokens" },
          ],
        ],
      },
    });
    await t.lua(`
      _G.events = {}
      vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function(ev) table.insert(_G.events, ev.data) end })
    `);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    await c.turns(1);
    await t.waitFor(async () => (await t.lua<unknown[]>("return _G.events")).length > 0, "AcpChatTurnEnd");
    expect(await t.lua("return _G.events")).toEqual([{ chat: c.id, stop_reason: "max_tokens" }]);
    const s = await t.lua<Record<string, unknown>>("return require('acpchat').status()");
    expect(s).toMatchObject({ agent: "fake", state: "ready", queued: 0, usage: { used: 5000, size: 100000 } });
    expect(await c.winbar()).toContain("ctx 5k/100k (5%%)"); // escaped for 'winbar'
  });

  it("<C-s> sends from insert mode; q hides the chat; wiping the transcript stops the agent", async () => {
    const c = await startChat(bin, { turns: [[{ text: "insert-mode send" }]] });
    const t = c.t;
    await c.ready();
    await c.focusPrompt();
    await t.nvim.input("<Esc>ihello<C-s>");
    await c.turns(1);
    expect((await c.lines()).at(-1)).toBe("insert-mode send");
    const pid = (await call<{ pid: number }[]>(t, "chats"))[0]!.pid;
    await c.focus();
    await t.nvim.input("<Esc>q");
    await t.waitFor(async () => (await c.windows()) === 0, "q to hide the chat");
    expect(groupAlive(pid)).toBe(true); // hidden, not closed
    await t.nvim.command(`bwipeout! ${c.buf}`);
    await t.waitFor(async () => !groupAlive(pid), "the agent to stop with its transcript");
  });
});
