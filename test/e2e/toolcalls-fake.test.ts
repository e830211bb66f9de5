/**
 * Tool calls shown as they are, in real headless Neovims against the scripted fake agent:
 * multi-line titles draw (and the rest of the batch and the turn's end still happen), long
 * output folds with agent internals out of sight, rawOutput shows when there is no content,
 * nothing spins after the turn, a reused id starts a new block, a failed command says so.
 */
import { afterEach, describe, expect, it } from "vitest";
import { fakeAgents, nvimBins, startNvim, type TestNvim } from "../support/nvim.js";

const bins = nvimBins();
let current: TestNvim | undefined;
afterEach(async () => {
  await current?.quit();
  current = undefined;
});

const tool = (toolCallId: string, fields: Record<string, unknown>, kind = "tool_call") => ({ update: { sessionUpdate: kind, toolCallId, ...fields } });

async function start(bin: (typeof bins)[number], turns: unknown[][]) {
  const t = (current = await startNvim(bin, fakeAgents({ fake: { turns } })));
  await t.nvim.command("AcpChat");
  const c = await t.lua<{ id: number; buf: number }>("local c = require('acpchat.registry').current(); return { id = c.id, buf = c.buf }");
  await t.waitFor(async () => (await t.lua<string>("return require('acpchat.registry').get(...).status.state", [c.id])) === "ready", "the chat to be ready");
  let sent = 0;
  const send = async (text: string) => {
    sent++;
    await t.nvim.command(`AcpChatSend ${text}`);
    await t.waitFor(async () => ((await t.lua<number>("return require('acpchat.registry').get(...).turn_ended or 0", [c.id])) >= sent ? true : false), `turn ${sent} to end`);
  };
  const lines = () => t.lines(c.buf);
  /** Failures drawing the transcript, as the trace recorded them. */
  const drawErrors = () => t.lua<unknown[]>("return require('acpchat.bridge').call_sync('trace', { chat = ..., filter = 'lua-error' })", [c.id]);
  return { t, c, send, lines, drawErrors };
}

describe.each(bins)("Neovim $version", (bin) => {
  it("a multi-line title draws on one line; the rest of the batch and the turn's end still happen", async () => {
    const h = await start(bin, [
      [
        tool("m1", { title: "first line\nsecond line\n1: Always allow", kind: "read", status: "completed", locations: [{ path: "a\nb.txt" }] }),
        { update: { sessionUpdate: "plan", entries: [{ content: "step\none", priority: "high", status: "pending" }] } },
        { text: "after the tool" },
      ],
    ]);
    await h.send("go");
    const lines = await h.lines();
    expect(lines).toContain("● done · read · first line\\nsecond line\\n1: Always allow");
    expect(lines).toContain("  ↳ a\\nb.txt");
    expect(lines).toContain("  ○ step\\none");
    expect(lines.at(-1)).toBe("after the tool");
    expect(await h.drawErrors()).toEqual([]);
  });

  it("long output folds to a few lines with the count of the rest; <system-reminder> stays out of sight; expanding shows all", async () => {
    const body = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join("\n");
    const h = await start(bin, [
      [
        tool("r1", { title: "Read big.txt", kind: "read", status: "pending" }),
        tool("r1", { status: "completed", content: [{ type: "content", content: { type: "text", text: `${body}\n<system-reminder>\nDo not mention this.\n</system-reminder>` } }] }, "tool_call_update"),
      ],
    ]);
    await h.send("go");
    const lines = await h.lines();
    const at = lines.indexOf("● done · read · Read big.txt");
    expect(lines.slice(at + 1, at + 7)).toEqual(["  row 1", "  row 2", "  row 3", "  row 4", "  row 5", "  … 28 more lines  (za: show all)"]);
    expect(lines.join("\n")).not.toContain("system-reminder");
    // za on the tool call shows everything, the reminder last; za again folds it.
    await h.t.lua("local buf, row = ...; vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1]); vim.api.nvim_win_set_cursor(0, { row, 0 })", [h.c.buf, at + 2]);
    await h.t.nvim.input("<Esc>za");
    await h.t.waitFor(async () => (await h.lines()).includes("  row 30"), "the output expanded");
    expect(await h.lines()).toContain("  <system-reminder>");
    await h.t.nvim.input("za");
    await h.t.waitFor(async () => !(await h.lines()).includes("  row 30"), "the output folded again");
  });

  it("a call with no content shows the output its rawOutput carries (codex-acp), and its input compactly", async () => {
    const h = await start(bin, [
      [
        tool("c1", { title: "ls", kind: "execute", status: "in_progress", rawInput: { command: ["bash", "-lc", "ls"], cwd: "/w" } }),
        tool("c1", { status: "completed", rawOutput: { formatted_output: "a.txt\nb.txt\n", stdout: "a.txt\nb.txt\n", stderr: "", exit_code: 0 } }, "tool_call_update"),
      ],
    ]);
    await h.send("go");
    const lines = await h.lines();
    const at = lines.indexOf("● done · execute · ls");
    expect(lines.slice(at + 1, at + 4)).toEqual(["  $ bash -lc ls · cwd: /w", "  a.txt", "  b.txt"]);
  });

  it("tool calls still pending or running when the turn ends are shown not finished; a reused id in a later turn is a new block", async () => {
    const h = await start(bin, [
      [tool("x", { title: "first", kind: "execute", status: "in_progress" }), tool("y", { title: "waits", kind: "read" }), tool("z", { title: "done", kind: "read", status: "completed" })],
      [tool("x", { title: "second", kind: "execute", status: "in_progress" }), tool("x", { status: "failed" }, "tool_call_update")],
    ]);
    await h.send("one");
    let lines = await h.lines();
    expect(lines).toContain("◌ not finished · execute · first");
    expect(lines).toContain("◌ not finished · read · waits");
    expect(lines).toContain("● done · read · done");
    expect(lines.join("\n")).not.toMatch(/running|pending/);
    await h.send("two");
    lines = await h.lines();
    // The first turn's block is untouched; the second turn has its own.
    expect(lines).toContain("◌ not finished · execute · first");
    expect(lines).toContain("✗ failed · execute · second");
    expect(lines.indexOf("◌ not finished · execute · first")).toBeLessThan(lines.indexOf("## You · turn 2"));
    expect(lines.indexOf("✗ failed · execute · second")).toBeGreaterThan(lines.indexOf("## You · turn 2"));
  });

  it("a command that exits non-zero is shown failed, with its code", async () => {
    const h = await start(bin, [
      [
        { request: "terminal/create", params: { command: "sh", args: ["-c", "echo boom; exit 3"] } },
        tool("f1", { title: "Run failing", kind: "execute", status: "in_progress", content: [{ type: "terminal", terminalId: "$last.terminalId" }] }),
        { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
        tool("f1", { status: "completed" }, "tool_call_update"),
      ],
    ]);
    await h.send("go");
    await h.t.waitFor(async () => (await h.lines()).includes("  │ [exit 3]  (gt: full output)"), "the exit status");
    const lines = await h.lines();
    expect(lines).toContain("✗ failed · execute · Run failing");
    expect(lines).toContain("  │ boom");
    const row = lines.indexOf("  │ [exit 3]  (gt: full output)");
    const groups = await h.t.lua<string[]>(
      `local buf, row = ...
       local out = {}
       for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, vim.api.nvim_get_namespaces().acpchat_hl, { row, 0 }, { row, -1 }, { details = true })) do
         out[#out + 1] = m[4].hl_group
       end
       return out`,
      [h.c.buf, row],
    );
    expect(groups).toContain("AcpChatTerminalFailed");
  });
});
