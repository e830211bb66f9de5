/**
 * Tool calls shown as they are, in real headless Neovims against the scripted fake agent:
 * multi-line titles draw (and the rest of the batch and the turn's end still happen), long
 * output folds with agent internals out of sight, rawOutput shows when there is no content,
 * nothing spins after the turn, a reused id starts a new block, a failed command says so.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { call, sendAndWait, startChat, type Chat, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const tool = (toolCallId: string, fields: Record<string, unknown>, kind = "tool_call") => ({
  update: { sessionUpdate: kind, toolCallId, ...fields },
});

/** Failures drawing the transcript, as the trace recorded them. */
const drawErrors = (c: Chat) => call<unknown[]>(c.t, "trace", { chat: c.id, filter: "lua-error" });

describe.each(bins)("Neovim $version", (bin) => {
  it("a multi-line title draws on one line; the rest of the batch and the turn's end still happen", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          tool("m1", {
            title: "first line\nsecond line\n1: Always allow",
            kind: "read",
            status: "completed",
            locations: [{ path: "a\nb.txt" }],
          }),
          {
            update: { sessionUpdate: "plan", entries: [{ content: "step\none", priority: "high", status: "pending" }] },
          },
          { text: "after the tool" },
        ],
      ],
    });
    await c.ready();
    await sendAndWait(c, "go", 15_000);
    const lines = await c.lines();
    expect(lines).toContain("● done · read · first line\\nsecond line\\n1: Always allow");
    expect(lines).toContain("  ↳ a\\nb.txt");
    expect(lines).toContain("  ○ step\\none");
    expect(lines.at(-1)).toBe("after the tool");
    expect(await drawErrors(c)).toEqual([]);
  });

  it("long output folds to a few lines with the count of the rest; <system-reminder> stays out of sight; expanding shows all", async () => {
    const body = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join("\n");
    const c = await startChat(bin, {
      turns: [
        [
          tool("r1", { title: "Read big.txt", kind: "read", status: "pending" }),
          tool(
            "r1",
            {
              status: "completed",
              content: [
                {
                  type: "content",
                  content: {
                    type: "text",
                    text: `${body}\n<system-reminder>\nDo not mention this.\n</system-reminder>`,
                  },
                },
              ],
            },
            "tool_call_update",
          ),
        ],
      ],
    });
    await c.ready();
    await sendAndWait(c, "go", 15_000);
    const lines = await c.lines();
    const at = lines.indexOf("● done · read · Read big.txt");
    expect(lines.slice(at + 1, at + 7)).toEqual([
      "  row 1",
      "  row 2",
      "  row 3",
      "  row 4",
      "  row 5",
      "  … 28 more lines  (za: show all)",
    ]);
    expect(lines.join("\n")).not.toContain("system-reminder");
    // za on the tool call shows everything, the reminder last; za again folds it.
    await c.t.lua(
      "local buf, row = ...; vim.api.nvim_set_current_win(vim.fn.win_findbuf(buf)[1]); vim.api.nvim_win_set_cursor(0, { row, 0 })",
      [c.buf, at + 2],
    );
    await c.t.nvim.input("<Esc>za");
    await c.t.waitFor(async () => (await c.lines()).includes("  row 30"), "the output expanded");
    expect(await c.lines()).toContain("  <system-reminder>");
    await c.t.nvim.input("za");
    await c.t.waitFor(async () => !(await c.lines()).includes("  row 30"), "the output folded again");
  });

  it("a call with no content shows the output its rawOutput carries (codex-acp), and its input compactly", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          tool("c1", {
            title: "ls",
            kind: "execute",
            status: "in_progress",
            rawInput: { command: ["bash", "-lc", "ls"], cwd: "/w" },
          }),
          tool(
            "c1",
            {
              status: "completed",
              rawOutput: { formatted_output: "a.txt\nb.txt\n", stdout: "a.txt\nb.txt\n", stderr: "", exit_code: 0 },
            },
            "tool_call_update",
          ),
        ],
      ],
    });
    await c.ready();
    await sendAndWait(c, "go", 15_000);
    const lines = await c.lines();
    const at = lines.indexOf("● done · execute · ls");
    expect(lines.slice(at + 1, at + 4)).toEqual(["  $ bash -lc ls · cwd: /w", "  a.txt", "  b.txt"]);
  });

  it("tool calls still pending or running when the turn ends are shown not finished; a reused id in a later turn is a new block", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          tool("x", { title: "first", kind: "execute", status: "in_progress" }),
          tool("y", { title: "waits", kind: "read" }),
          tool("z", { title: "done", kind: "read", status: "completed" }),
        ],
        [
          tool("x", { title: "second", kind: "execute", status: "in_progress" }),
          tool("x", { status: "failed" }, "tool_call_update"),
        ],
      ],
    });
    await c.ready();
    await sendAndWait(c, "one", 15_000);
    let lines = await c.lines();
    expect(lines).toContain("◌ not finished · execute · first");
    expect(lines).toContain("◌ not finished · read · waits");
    expect(lines).toContain("● done · read · done");
    expect(lines.join("\n")).not.toMatch(/running|pending/);
    await sendAndWait(c, "two", 15_000);
    lines = await c.lines();
    // The first turn's block is untouched; the second turn has its own.
    expect(lines).toContain("◌ not finished · execute · first");
    expect(lines).toContain("✗ failed · execute · second");
    expect(lines.indexOf("◌ not finished · execute · first")).toBeLessThan(lines.indexOf("## You · turn 2"));
    expect(lines.indexOf("✗ failed · execute · second")).toBeGreaterThan(lines.indexOf("## You · turn 2"));
  });

  it("a command that exits non-zero is shown failed, with its code", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          { request: "terminal/create", params: { command: "sh", args: ["-c", "echo boom; exit 3"] } },
          tool("f1", {
            title: "Run failing",
            kind: "execute",
            status: "in_progress",
            content: [{ type: "terminal", terminalId: "$last.terminalId" }],
          }),
          { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
          tool("f1", { status: "completed" }, "tool_call_update"),
        ],
      ],
    });
    await c.ready();
    await sendAndWait(c, "go", 15_000);
    await c.t.waitFor(async () => (await c.lines()).includes("  │ [exit 3]  (gt: full output)"), "the exit status");
    const lines = await c.lines();
    expect(lines).toContain("✗ failed · execute · Run failing");
    expect(lines).toContain("  │ boom");
    const row = lines.indexOf("  │ [exit 3]  (gt: full output)");
    const groups = await c.t.lua<string[]>(
      `local buf, row = ...
       local out = {}
       for _, m in ipairs(vim.api.nvim_buf_get_extmarks(buf, vim.api.nvim_get_namespaces().acpchat_hl, { row, 0 }, { row, -1 }, { details = true })) do
         out[#out + 1] = m[4].hl_group
       end
       return out`,
      [c.buf, row],
    );
    expect(groups).toContain("AcpChatTerminalFailed");
  });
});
