/**
 * claude-agent-acp's subagents (its Task tool): their tool calls carry
 * `_meta.claudeCode.parentToolUseId` = the Task's id and are drawn inside the Task's block,
 * folded to the last few (za shows all), not as blocks of their own.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim, openChat, sendAndWait, setAgents } from "../support/chat.js";

const bins = nvimBins();

const child = (i: number, status = "completed") => ({
  update: {
    sessionUpdate: "tool_call",
    toolCallId: `c${i}`,
    title: `Read part ${i}`,
    kind: "read",
    status,
    _meta: { claudeCode: { toolName: "Read", parentToolUseId: "task1" } },
  },
});

describe.each(bins)("Neovim $version", (bin) => {
  it("a Task's subagent tool calls nest in its block, folded to the last three; za shows them all", async () => {
    const t = await nvim(bin);
    await setAgents(t, {
      fake: {
        turns: [
          [
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "task1",
                title: "Explore the code",
                kind: "think",
                status: "in_progress",
                _meta: { claudeCode: { toolName: "Task" } },
              },
            },
            ...[1, 2, 3, 4, 5].map((i) => child(i, "in_progress")),
            { update: { sessionUpdate: "tool_call_update", toolCallId: "c5", status: "completed" } },
            // A call naming itself, or an unknown parent, stays a block of its own.
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "lone",
                title: "Lone call",
                kind: "read",
                status: "completed",
                _meta: { claudeCode: { parentToolUseId: "nope" } },
              },
            },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "task1", status: "completed" } },
            { text: "done" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "explore");
    const text = await c.text();
    expect(text).toContain("Explore the code");
    expect(text).toContain("┆ … 2 earlier tool calls of the subagent");
    expect(text).toContain("┆ ● done · read · Read part 5");
    // Never said to end: not finished, like any tool call at the end of its turn.
    expect(text).toContain("┆ ◌ not finished · read · Read part 4");
    expect(text).not.toContain("Read part 1");
    // No block of its own for a nested call; the lone one has its own.
    expect(text.split("\n").filter((l) => /^[○◐●✗⊘◌] .* · read · Read part/.test(l))).toEqual([]);
    expect(text).toMatch(/^● done · read · Lone call/m);
    // za on the Task's block shows every call.
    await t.nvim.command("stopinsert");
    await c.focus();
    const row = (await c.lines()).findIndex((l) => l.includes("Explore the code"));
    await t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row + 1]);
    await t.nvim.input("za");
    await t.waitFor(async () => (await c.text()).includes("Read part 1"), "every subagent call");
  });
});
