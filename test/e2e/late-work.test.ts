/**
 * An agent that goes on after its turn's end (claude-agent-acp after a cancel answers the next
 * prompt at once with end_turn and sends that work afterwards): the late updates are drawn where
 * they belong, the chat says the agent is still working while a tool call is open or a question
 * waits, and a prompt sent meanwhile waits until the agent is done.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim, openChat, setAgents, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("work after a cancelled turn: drawn in place, the state says still working, the next prompt waits", async () => {
    const t = await nvim(bin);
    const call = (id: string, status: string, extra: Record<string, unknown> = {}) => ({
      update: { sessionUpdate: "tool_call_update", toolCallId: id, status, ...extra },
    });
    await setAgents(t, {
      fake: {
        turns: [
          // Turn 1: a command starts; the user cancels; the agent answers `cancelled` a little later.
          [
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "r1",
                title: "Read notes.md",
                kind: "read",
                status: "in_progress",
              },
            },
            { sleep: 1200 },
          ],
          // Turn 2: ended at once, then the work: turn 1's call finishes, a new one asks first.
          [
            { answer: "end_turn" },
            { delay: 400, ...call("r1", "completed") },
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "b2",
                title: "Run make",
                kind: "execute",
                status: "pending",
              },
            },
            { sleep: 1500 },
            {
              request: "session/request_permission",
              params: {
                toolCall: { toolCallId: "b2" },
                options: [
                  { optionId: "allow", name: "Allow", kind: "allow_once" },
                  { optionId: "reject", name: "Reject", kind: "reject_once" },
                ],
              },
            },
            call("b2", "completed"),
            { text: "late reply" },
          ],
          [{ text: "third answer" }],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await c.send("one");
    await t.waitFor(async () => (await c.text()).includes("Read notes.md"), "turn 1's tool call");
    await t.nvim.command("AcpChatCancel");
    await c.turns(1);
    // The question waits until the test answers it: the winbar must say the agent works.
    await t.lua("_G.held = nil; vim.ui.select = function(items, opts, cb) _G.held = { items, cb } end");
    await c.send("two");
    await c.turns(2);
    await t.waitFor(async () => (await c.text()).includes("Run make"), "the late tool call");
    const status = await c.status();
    expect(status.state).toBe("running");
    expect(await c.winbarText()).toContain("still working…");
    // Turn 1's call finished late: its own block says so, and turn 2 has no copy of it.
    const lines = await c.lines();
    const r1 = lines.filter((l) => l.includes("Read notes.md"));
    expect(r1).toHaveLength(1);
    expect(lines.some((l) => /r1/.test(l))).toBe(false);
    // A prompt sent now waits for the agent to finish.
    await c.send("three");
    await t.waitFor(async () => (await c.status()).queued?.length === 1, "the third prompt to be queued");
    await t.waitFor(async () => (await t.lua<boolean>("return _G.held ~= nil")) === true, "the late question", 10_000);
    expect((await c.status()).state).toBe("running");
    expect(await c.text()).not.toContain("third answer");
    await t.lua(`for _, it in ipairs(_G.held[1]) do if it.kind == "allow_once" then return _G.held[2](it) end end`);
    await t.waitFor(async () => (await c.text()).includes("late reply"), "the late reply");
    // Quiet, nothing open: ready, and the queued prompt goes.
    await t.waitFor(async () => (await c.text()).includes("third answer"), "the third turn", 15_000);
    const text = await c.text();
    expect(text.indexOf("third answer")).toBeGreaterThan(text.indexOf("late reply"));
    await c.turns(3);
    await c.ready();
  });

  it("<C-c> while the agent works after its turn's end: its tool calls end cancelled, the chat is ready", async () => {
    const t = await nvim(bin);
    await setAgents(t, {
      fake: {
        turns: [
          [
            { answer: "end_turn" },
            {
              delay: 200,
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "s1",
                title: "Sleep long",
                kind: "execute",
                status: "in_progress",
              },
            },
            { sleep: 30_000 },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await c.send("go");
    await c.turns(1);
    await t.waitFor(async () => (await c.text()).includes("Sleep long"), "the late tool call");
    await t.waitFor(async () => (await c.winbarText()).includes("still working…"), "still working");
    await t.nvim.command("AcpChatCancel");
    await c.ready(5000);
    const row = (await c.lines()).find((l) => l.includes("Sleep long"));
    expect(row).toMatch(/cancel/);
  });
});
