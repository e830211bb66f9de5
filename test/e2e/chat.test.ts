/** End to end: a real headless Neovim, the plugin loaded from this checkout, the fake agent. */
import { afterEach, describe, expect, it } from "vitest";
import { groupAlive } from "../../src/agent/process-group.js";
import { fakeAgents, nvimBins, startNvim, type TestNvim } from "../support/nvim.js";

const bins = nvimBins();
let current: TestNvim | undefined;
afterEach(async () => {
  await current?.quit();
  current = undefined;
});

interface ChatInfo {
  id: number;
  buf: number;
  prompt_buf: number;
}

async function open(t: TestNvim, cmd = "AcpChat"): Promise<ChatInfo> {
  await t.nvim.command(cmd);
  return t.lua<ChatInfo>("local c = require('acpchat.registry').current(); return { id = c.id, buf = c.buf, prompt_buf = c.prompt_buf }");
}

async function status(t: TestNvim, id: number): Promise<Record<string, unknown>> {
  return t.lua("return require('acpchat.registry').get(...).status", [id]);
}

async function waitReady(t: TestNvim, id: number) {
  await t.waitFor(async () => (await status(t, id)).state === "ready", "the chat to be ready");
}

async function waitTurnEnds(t: TestNvim, id: number, n = 1) {
  await t.waitFor(async () => ((await t.lua<number>("return require('acpchat.registry').get(...).turn_ended or 0", [id])) >= n ? true : false), `turn ${n} to end`);
}

describe.each(bins)("Neovim $version", (bin) => {
  it("opens a chat, sends with <CR> from the prompt, streams the answer into the transcript", async () => {
    const t = (current = await startNvim(bin, fakeAgents({ fake: { turns: [[{ text: "Hello" }, { chunks: 200, text: "." }, { thought: "let me think\nabout it" }, { text: "Done." }]] } })));
    const c = await open(t);
    expect(await t.lua("return vim.api.nvim_buf_get_name(...)", [c.buf])).toMatch(/acpchat:\/\/\d+\/chat$/);
    expect(await t.lua("return vim.bo[...].filetype", [c.buf])).toBe("acpchat");
    expect(await t.lua("return vim.bo[...].buftype", [c.buf])).toBe("nofile");
    expect(await t.lua("return vim.api.nvim_buf_get_name(...)", [c.prompt_buf])).toMatch(/acpchat:\/\/\d+\/prompt$/);
    await waitReady(t, c.id);
    // Type in the prompt and send with <CR> in normal mode.
    await t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [c.prompt_buf]);
    await t.nvim.input("<Esc>ihi there<Esc>");
    await t.nvim.input("<CR>");
    await waitTurnEnds(t, c.id);
    const lines = await t.lines(c.buf);
    expect(lines).toEqual(["## You · turn 1", "> hi there", "", `Hello${".".repeat(200)}`, "", "  ┆ let me think", "  ┆ about it", "", "Done."]);
    expect(await t.lines(c.prompt_buf)).toEqual([""]);
    // The empty prompt shows a hint; typing removes it.
    const hint = await t.lua<unknown[]>("return vim.api.nvim_buf_get_extmarks(..., vim.api.nvim_get_namespaces().acpchat_prompt_hint, 0, -1, { details = true })", [c.prompt_buf]);
    expect(JSON.stringify(hint)).toContain("Ask fake");
    // 200 chunks arrive in a handful of batches, not 200.
    expect(await t.lua<number>("return require('acpchat.registry').get(...).batches", [c.id])).toBeLessThan(60);
    // Thoughts are folded.
    const win = await t.lua<number>("return vim.fn.win_findbuf(...)[1]", [c.buf]);
    expect(await t.lua("return vim.api.nvim_win_call(..., function() return vim.fn.foldclosed(6) end)", [win])).toBe(6);
    const bar = await t.lua<string>("return vim.wo[...].winbar", [win]);
    expect(bar).toContain("fake");
    expect(bar).toContain("ready");
  });

  it("draws tool calls and the plan once, updated in place, with gf to their locations", async () => {
    const tool = (u: Record<string, unknown>) => ({ update: { sessionUpdate: "tool_call_update", toolCallId: "t1", ...u } });
    const plan = (statuses: string[]) => ({ update: { sessionUpdate: "plan", entries: statuses.map((s, i) => ({ content: `step ${i + 1}`, priority: "medium", status: s })) } });
    const t = (current = await startNvim(
      bin,
      fakeAgents({
        fake: {
          turns: [
            [
              { update: { sessionUpdate: "tool_call", toolCallId: "t1", title: "Read notes", kind: "read", status: "pending" } },
              plan(["pending", "pending"]),
              { text: "between" },
              tool({ status: "in_progress", locations: [{ path: "notes.txt", line: 2 }] }),
              { sleep: 50 },
              tool({ status: "completed", content: [{ type: "diff", path: "notes.txt", oldText: "a\nb\n", newText: "a\nB\nc\n" }] }),
              plan(["completed", "in_progress"]),
              { text: " and after" },
            ],
          ],
        },
      }),
    ));
    await t.lua("vim.fn.writefile({ 'one', 'two', 'three' }, 'notes.txt')");
    const c = await open(t);
    await waitReady(t, c.id);
    await t.nvim.command("AcpChatSend go");
    await waitTurnEnds(t, c.id);
    const lines = await t.lines(c.buf);
    expect(lines).toEqual([
      "## You · turn 1",
      "> go",
      "",
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
    const marks = await t.lua<number>("return #vim.api.nvim_buf_get_extmarks(..., require('acpchat.render').ns_blocks, 0, -1, {})", [c.buf]);
    expect(marks).toBe(5);
    // gf on the tool call opens its location in an editor window.
    const win = await t.lua<number>("return vim.fn.win_findbuf(...)[1]", [c.buf]);
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, {4, 0})", [win]);
    await t.nvim.input("<Esc>gf");
    await t.waitFor(async () => (await t.lua<string>("return vim.fn.expand('%:t')")) === "notes.txt", "gf to open notes.txt");
    expect(await t.lua("return vim.api.nvim_win_get_cursor(0)[1]")).toBe(2);
  });

  it("cancels mid-turn with <C-c>: the running tool call is marked cancelled and the turn ends", async () => {
    const t = (current = await startNvim(
      bin,
      fakeAgents({
        fake: {
          turns: [[{ update: { sessionUpdate: "tool_call", toolCallId: "long", title: "Long job", kind: "execute", status: "in_progress" } }, { chunks: 100000, text: "z", every: 50, pause: 5 }]],
        },
      }),
    ));
    const c = await open(t);
    await waitReady(t, c.id);
    await t.nvim.command("AcpChatSend work");
    await t.waitFor(async () => (await status(t, c.id)).activity === "streaming", "streaming");
    await t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [c.prompt_buf]);
    await t.nvim.input("<C-c>");
    await waitTurnEnds(t, c.id);
    expect(await t.lua("return require('acpchat.registry').get(...).last_stop", [c.id])).toBe("cancelled");
    const lines = await t.lines(c.buf);
    expect(lines[3]).toBe("⊘ cancelled · execute · Long job");
    expect((await status(t, c.id)).state).toBe("ready");
  });

  it("runs two chats with different agents at once, each with its own process; close leaves none", async () => {
    const t = (current = await startNvim(bin, fakeAgents({ alpha: { turns: [[{ text: "from alpha" }]] }, beta: { spawnChild: true, turns: [[{ text: "from beta" }]] } })));
    const a = await open(t, "AcpChat alpha");
    await t.nvim.command("tabnew");
    const b = await open(t, "AcpChat beta");
    expect(b.id).not.toBe(a.id);
    await waitReady(t, a.id);
    await waitReady(t, b.id);
    await t.lua("require('acpchat.chats').send(require('acpchat.registry').get(...), 'one')", [a.id]);
    await t.nvim.command("AcpChatSend two");
    await waitTurnEnds(t, a.id);
    await waitTurnEnds(t, b.id);
    expect((await t.lines(a.buf)).at(-1)).toBe("from alpha");
    expect((await t.lines(b.buf)).at(-1)).toBe("from beta");
    const list = await t.lua<{ chat: number; pid: number }[]>("return require('acpchat.bridge').call_sync('chats', {})");
    const pids = list.map((x) => x.pid);
    expect(new Set(pids).size).toBe(2);
    expect(pids.every((p) => groupAlive(p))).toBe(true);
    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => !groupAlive(list.find((x) => x.chat === b.id)!.pid), "beta's process group to be gone");
    expect(groupAlive(list.find((x) => x.chat === a.id)!.pid)).toBe(true);
    // Quitting Neovim takes the other agent with it.
    await t.quit();
    await t.waitFor(async () => !groupAlive(list.find((x) => x.chat === a.id)!.pid), "alpha's process group to be gone after :qa");
  });

  it(":AcpChat focuses this tab's chat, :AcpChat! starts another, :AcpChatToggle hides and shows", async () => {
    const t = (current = await startNvim(bin, fakeAgents({ fake: {} })));
    const a = await open(t);
    await t.nvim.command("wincmd p");
    const again = await open(t);
    expect(again.id).toBe(a.id);
    await t.nvim.command("AcpChatToggle");
    expect(await t.lua("return #vim.fn.win_findbuf(...)", [a.buf])).toBe(0);
    await t.nvim.command("AcpChatToggle");
    expect(await t.lua("return #vim.fn.win_findbuf(...)", [a.buf])).toBe(1);
    const b = await open(t, "AcpChat!");
    expect(b.id).not.toBe(a.id);
    expect(await t.lua("return #vim.fn.win_findbuf(...)", [b.buf])).toBe(1);
  });

  it("follows new text only while the cursor is at the end", async () => {
    const t = (current = await startNvim(bin, fakeAgents({ fake: { turns: [[{ text: "a\nb\nc\nd" }], [{ text: "e\nf\ng" }], [{ text: "h" }]] } })));
    const c = await open(t);
    await waitReady(t, c.id);
    const win = await t.lua<number>("return vim.fn.win_findbuf(...)[1]", [c.buf]);
    await t.nvim.command("AcpChatSend 1");
    await waitTurnEnds(t, c.id, 1);
    const last1 = await t.lua<number>("return vim.api.nvim_buf_line_count(...)", [c.buf]);
    expect(await t.lua("return vim.api.nvim_win_get_cursor(...)[1]", [win])).toBe(last1);
    await t.lua("vim.api.nvim_win_set_cursor(..., {1, 0})", [win]);
    await t.nvim.command("AcpChatSend 2");
    await waitTurnEnds(t, c.id, 2);
    expect(await t.lua("return vim.api.nvim_win_get_cursor(...)[1]", [win])).toBe(1);
    // ]] jumps to the next turn header.
    await t.lua("vim.api.nvim_set_current_win(...)", [win]);
    await t.nvim.input("<Esc>]]");
    const lines = await t.lines(c.buf);
    await t.waitFor(async () => lines[(await t.lua<number>("return vim.api.nvim_win_get_cursor(0)[1]")) - 1] === "## You · turn 2", "]] to reach turn 2");
    await t.nvim.input("[[");
    await t.waitFor(async () => lines[(await t.lua<number>("return vim.api.nvim_win_get_cursor(0)[1]")) - 1] === "## You · turn 1", "[[ to reach turn 1");
  });

  it("reports an agent that cannot start, naming the command", async () => {
    const t = (current = await startNvim(bin, { agents: { broken: { command: "no-such-agent-cmd", args: ["--acp"] } }, default_agent: "broken" }));
    const c = await open(t);
    await t.waitFor(async () => (await status(t, c.id)).state === "crashed", "the chat to fail");
    const lines = await t.lines(c.buf);
    expect(lines.join("\n")).toMatch(/no-such-agent-cmd --acp/);
    await t.waitFor(async () => (await t.lua<string>("return vim.fn.execute('messages')")).includes("broken stopped"), "a notification");
  });

  it("exposes status() for statuslines and fires User autocommands", async () => {
    const t = (current = await startNvim(bin, fakeAgents({ fake: { turns: [[{ update: { sessionUpdate: "usage_update", used: 5000, size: 100000 } }, { text: "x" }, { stop: "max_tokens" }]] } })));
    await t.lua(`
      _G.events = {}
      vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function(ev) table.insert(_G.events, ev.data) end })
    `);
    const c = await open(t);
    await waitReady(t, c.id);
    await t.nvim.command("AcpChatSend go");
    await waitTurnEnds(t, c.id);
    await t.waitFor(async () => (await t.lua<unknown[]>("return _G.events")).length > 0, "AcpChatTurnEnd");
    expect(await t.lua("return _G.events")).toEqual([{ chat: c.id, stop_reason: "max_tokens" }]);
    const s = await t.lua<Record<string, unknown>>("return require('acpchat').status()");
    expect(s).toMatchObject({ agent: "fake", state: "ready", queued: 0, usage: { used: 5000, size: 100000 } });
    const win = await t.lua<number>("return vim.fn.win_findbuf(...)[1]", [c.buf]);
    expect(await t.lua<string>("return vim.wo[...].winbar", [win])).toContain("ctx 5k/100k (5%%)"); // escaped for 'winbar'
  });

  it("<C-s> sends from insert mode; q hides the chat; wiping the transcript stops the agent", async () => {
    const t = (current = await startNvim(bin, fakeAgents({ fake: { turns: [[{ text: "insert-mode send" }]] } })));
    const c = await open(t);
    await waitReady(t, c.id);
    await t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [c.prompt_buf]);
    await t.nvim.input("<Esc>ihello<C-s>");
    await waitTurnEnds(t, c.id);
    expect((await t.lines(c.buf)).at(-1)).toBe("insert-mode send");
    const pid = (await t.lua<{ pid: number }[]>("return require('acpchat.bridge').call_sync('chats', {})"))[0]!.pid;
    await t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [c.buf]);
    await t.nvim.input("<Esc>q");
    await t.waitFor(async () => (await t.lua<number>("return #vim.fn.win_findbuf(...)", [c.buf])) === 0, "q to hide the chat");
    expect(groupAlive(pid)).toBe(true); // hidden, not closed
    await t.nvim.command(`bwipeout! ${c.buf}`);
    await t.waitFor(async () => !groupAlive(pid), "the agent to stop with its transcript");
  });
});
