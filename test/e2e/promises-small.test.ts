/**
 * Small promises of the transcript and the windows, each seen broken once: a rejected command
 * does not read as running; a rewind's count agrees with its block; the chat keeps its width
 * across :AcpChatToggle.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  answerKinds,
  checkpointsReady,
  nvim,
  openChat,
  sendAndWait,
  sendAndWaitChanges,
  setAgents,
  shareNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("a command the user rejected reads rejected, not [running]", async () => {
    const t = await nvim(bin);
    await setAgents(t, {
      fake: {
        turns: [
          [
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "b1",
                title: "rm -rf build",
                kind: "execute",
                status: "pending",
                _meta: { terminal_info: { terminal_id: "b1" } },
              },
            },
            {
              request: "session/request_permission",
              params: {
                toolCall: { toolCallId: "b1" },
                options: [
                  { optionId: "allow", name: "Allow", kind: "allow_once" },
                  { optionId: "reject", name: "Reject", kind: "reject_once" },
                ],
              },
            },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "b1", status: "failed" } },
            { text: "not run" },
          ],
        ],
      },
    });
    await answerKinds(t, ["reject_once"]);
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "clean");
    const lines = await c.lines();
    expect(lines.some((l) => l.includes("[running]"))).toBe(false);
    expect(lines).toContain("  │ [rejected]  (gt: full output)");
  });

  it("the chat keeps the width you gave it across :AcpChatToggle", async () => {
    const t = await nvim(bin);
    await setAgents(t, { fake: { turns: [[{ text: "hi" }]] } });
    const c = await openChat(t);
    await c.ready();
    const width = () => t.lua<number>("return vim.api.nvim_win_get_width(vim.fn.win_findbuf(...)[1])", [c.buf]);
    const first = await width();
    await t.lua("local b, w = ...; vim.api.nvim_win_set_width(vim.fn.win_findbuf(b)[1], w)", [c.buf, first + 17]);
    const wanted = await width();
    expect(wanted).toBe(first + 17);
    await t.nvim.command("AcpChatToggle");
    await t.waitFor(async () => (await c.windows()) === 0, "the chat hidden");
    await t.nvim.command("AcpChatToggle");
    await t.waitFor(async () => (await c.windows()) === 1, "the chat shown");
    expect(await width()).toBe(wanted);
    // Again: the size kept does not drift.
    await t.nvim.command("AcpChatToggle");
    await t.waitFor(async () => (await c.windows()) === 0, "the chat hidden again");
    await t.nvim.command("AcpChatToggle");
    await t.waitFor(async () => (await c.windows()) === 1, "the chat shown again");
    expect(await width()).toBe(wanted);
  });

  it("a rewind's count agrees with the files its block lists", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    for (const f of ["a.txt", "b.txt", "c.txt"]) writeFileSync(join(work, f), `${f} before\n`);
    await setAgents(t, {
      fake: {
        turns: [[{ sh: "for f in a b c; do printf 'agent\\n' > $f.txt; done" }, { text: "edited" }]],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWaitChanges(c, "edit three");
    expect(await c.text()).toContain("◆ Turn 1 changed 3 files");
    // The user puts two of them back by hand: the rewind has one file left to change.
    for (const f of ["b.txt", "c.txt"]) writeFileSync(join(work, f), `${f} before\n`);
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind");
    await t.waitFor(
      async () => /changed 1 file/.test((await c.lines()).filter((l) => l.startsWith("◆ ")).pop() ?? ""),
      "its block",
    );
    const text = await c.text();
    expect(text).toContain("Rewound to before turn 1: 1 file changed.");
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("a.txt before\n");
  });
});
