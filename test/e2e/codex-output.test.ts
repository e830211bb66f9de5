/**
 * codex-acp streams a command's output in tool call `_meta` (terminal_info, terminal_output,
 * terminal_exit); the last chunk may end without a newline: that output is in the transcript,
 * and whole in the terminal view.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim, openChat, sendAndWait, setAgents } from "../support/chat.js";

const bins = nvimBins();

describe.each(bins)("Neovim $version", (bin) => {
  it("output with no final newline, streamed in _meta, shows in the transcript above its exit", async () => {
    const t = await nvim(bin);
    const meta = (m: Record<string, unknown>) => ({
      update: { sessionUpdate: "tool_call_update", toolCallId: "x1", _meta: m },
    });
    await setAgents(t, {
      fake: {
        turns: [
          [
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "x1",
                title: "printf 'peer-%s-%d' ran 42",
                kind: "execute",
                status: "in_progress",
                _meta: { terminal_info: { terminal_id: "x1" } },
              },
            },
            meta({ terminal_output: { terminal_id: "x1", data: "peer-ran-42" } }),
            meta({ terminal_exit: { terminal_id: "x1", exit_code: 0, signal: null } }),
            { update: { sessionUpdate: "tool_call_update", toolCallId: "x1", status: "completed" } },
            { text: "ran it" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "run");
    const lines = await c.lines();
    const at = lines.findIndex((l) => l.includes("│ peer-ran-42"));
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toContain("[exit 0]");
  });

  it("the last chunk and the exit in one update, and a chunk after the exit: all of it shows", async () => {
    const t = await nvim(bin);
    const meta = (m: Record<string, unknown>, status?: string) => ({
      update: { sessionUpdate: "tool_call_update", toolCallId: "x2", ...(status ? { status } : {}), _meta: m },
    });
    await setAgents(t, {
      fake: {
        turns: [
          [
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "x2",
                title: "run",
                kind: "execute",
                status: "in_progress",
                _meta: { terminal_info: { terminal_id: "t2" } },
              },
            },
            meta({
              terminal_output: { terminal_id: "t2", data: "first line\npeer-" },
              terminal_exit: { terminal_id: "t2", exit_code: 0, signal: null },
            }),
            meta({ terminal_output: { terminal_id: "t2", data: "ran-42" } }, "completed"),
            { text: "ran it" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "run");
    await t.waitFor(async () => (await c.text()).includes("│ peer-ran-42"), "the output's last chunk", 5000);
    expect(await c.text()).toContain("│ first line");
  });
});
