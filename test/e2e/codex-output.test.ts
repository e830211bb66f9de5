/**
 * codex-acp streams a command's output in tool call `_meta` (terminal_info, terminal_output,
 * terminal_exit); the last chunk may end without a newline: that output is in the transcript,
 * and whole in the terminal view.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { fakeAgent, nvim, openChat, sendAndWait, setAgents, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

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

  it("a last chunk that ends like the start of a secret shows when its call or the turn ends", async () => {
    const t = await nvim(bin);
    const meta = (id: string, m: Record<string, unknown>, status?: string) => ({
      update: { sessionUpdate: "tool_call_update", toolCallId: id, ...(status ? { status } : {}), _meta: m },
    });
    const call = (id: string) => ({
      update: {
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: `run ${id}`,
        kind: "execute",
        status: "in_progress",
        _meta: { terminal_info: { terminal_id: id } },
      },
    });
    const exit = (id: string) => ({ terminal_id: id, exit_code: 0, signal: null });
    const scenario = {
      turns: [
        [
          call("y1"),
          meta("y1", { terminal_output: { terminal_id: "y1", data: "one\npeer-" }, terminal_exit: exit("y1") }),
          // After the exit, in the update that ends the call.
          meta("y1", { terminal_output: { terminal_id: "y1", data: "ran-42" } }, "completed"),
          call("y2"),
          meta("y2", { terminal_output: { terminal_id: "y2", data: "two\n" }, terminal_exit: exit("y2") }, "completed"),
          // After the call ended: nothing follows but the turn's end.
          meta("y2", { terminal_output: { terminal_id: "y2", data: "late-42" } }),
        ],
      ],
    };
    // A secret of the agent's that begins with "42": "…-42" may be its start, so it is held back.
    const agent = fakeAgent(t, scenario, { env: { PEER_TOKEN: "42-peer-token-0123456789" } });
    await t.lua("require('acpchat').setup(...)", [{ agents: { fake: agent }, default_agent: "fake" }]);
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "run");
    await t.waitFor(async () => (await c.text()).includes("│ late-42"), "the chunk after the call's end", 5000);
    const text = await c.text();
    expect(text).toContain("│ peer-ran-42");
    expect(text).toContain("│ two");
  });

  it("output only in rawOutput (stdout, aggregated_output) beside terminal_exit: inline and in gt", async () => {
    const t = await nvim(bin);
    await setAgents(t, {
      fake: {
        turns: [
          [
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "x3",
                title: "ls",
                kind: "execute",
                status: "in_progress",
                _meta: { terminal_info: { terminal_id: "x3" } },
              },
            },
            {
              update: {
                sessionUpdate: "tool_call_update",
                toolCallId: "x3",
                status: "completed",
                rawOutput: {
                  call_id: "x3",
                  exit_code: 0,
                  stdout: "alpha.txt\nbeta.txt\n",
                  stderr: "",
                  aggregated_output: "alpha.txt\nbeta.txt\n",
                  formatted_output: "alpha.txt\nbeta.txt\n",
                },
                _meta: { terminal_exit: { terminal_id: "x3", exit_code: 0, signal: null } },
              },
            },
            { text: "listed" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "list");
    const lines = await c.lines();
    const at = lines.findIndex((l) => l.includes("│ beta.txt"));
    expect(lines[at - 1]).toContain("│ alpha.txt");
    expect(lines[at + 1]).toContain("[exit 0]");
    await t.nvim.command("AcpChatTerminal");
    await t.waitFor(
      async () => /terminal/.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the output window",
    );
    await t.waitFor(async () => (await t.lines(0))[0] === "alpha.txt", "the output in gt's view");
    expect((await t.lines(0)).slice(0, 2)).toEqual(["alpha.txt", "beta.txt"]);
  });
});
