/**
 * The write path's two written promises, whatever the permission answer was:
 * - "A buffer with your unsaved edits is never overwritten": a write over it after "Allow"
 *   (once or always) opens the three-way review, in every write mode;
 * - write = "review", "every write opens in review first": "Allow" (which showed counts, not
 *   the diff) is not the approval of the write; only the question's own review ("Show the diff
 *   first") is, and then no second review opens.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import { agentTurn, editsNvim, read, reviewShown, write, type Step } from "./edits-support.js";
import { bufnr, openChat, replies, reviews, setScenario, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const withLine = (i: number, s: string, ls = lines) => ls.map((l, k) => (k === i ? s : l));

/** A permission question about an edit of `path` from `oldText` to `newText` (gemini sends whole texts). */
function ask(path: string, oldText: string, newText: string, always = false): Step {
  return {
    request: "session/request_permission",
    params: {
      toolCall: {
        toolCallId: "w1",
        title: `Edit ${path}`,
        kind: "edit",
        content: [{ type: "diff", path, oldText, newText }],
      },
      options: [
        { optionId: "once", name: "Allow", kind: "allow_once" },
        ...(always ? [{ optionId: "always", name: "Allow always", kind: "allow_always" }] : []),
        { optionId: "no", name: "Reject", kind: "reject_once" },
      ],
    },
    echo: true,
  };
}

/** Answer every permission question with the choice whose label starts with `label`. */
async function answerWith(t: TestNvim, label: string): Promise<void> {
  await t.lua(
    `local want = ...
     vim.ui.select = function(items, opts, on_choice)
       _G.asked = (_G.asked or 0) + 1
       for _, it in ipairs(items) do
         local l = (opts.format_item or tostring)(it)
         if vim.startswith(l, want) then return on_choice(it) end
       end
       on_choice(nil)
     end`,
    [label],
  );
}

const reviewReason = (t: TestNvim) =>
  t.lua<string>("local r = select(2, next(require('acpchat.ask.review').open_reviews)); return r and r.reason");

describe.each(bins)("Neovim $version", (bin) => {
  for (const [mode, label, always] of [
    ["buffer", "Allow (", false],
    ["save", "Allow always (", true],
    ["review", "Allow (", false],
  ] as const) {
    it(`write = "${mode}", "${label.slice(0, -2)}": a write over a buffer with unsaved edits opens the three-way review, the user's line stays`, async () => {
      const { t, work } = await editsNvim(bin, { write: mode });
      const f = join(work, "u.txt");
      writeFileSync(f, text(lines));
      await t.nvim.command(`edit ${f}`);
      const b = await bufnr(t, f);
      await t.lua("vim.api.nvim_buf_set_lines(..., 9, 10, false, { 'MINE' })", [b]);
      // The agent read the buffer (unsaved edits included) and rewrote the file whole, without
      // the user's line: the question's diff is exactly the write, yet "Allow" showed only its
      // counts. It saw that line, so leaving it out is its change, shown as it is.
      const mine = text(withLine(9, "MINE"));
      const agent = text(withLine(1, "AGENT"));
      await answerWith(t, label);
      const chat = await agentTurn(t, [read(f), ask(f, mine, agent, always), write(f, agent)]);
      await reviewShown(t);
      expect(await reviewReason(t)).toBe("conflict");
      expect(await t.lines(b)).toEqual(withLine(9, "MINE"));
      // Rejected in the review: the user's buffer is as they left it, the agent is told.
      await t.nvim.command("tabclose");
      await chat.turns(1, 15_000);
      const r = (await replies(chat)).slice(1);
      expect(r[0]!.result).toEqual({ outcome: { outcome: "selected", optionId: always ? "always" : "once" } });
      expect(JSON.stringify(r[1]!.error)).toContain("rejected");
      expect(await t.lines(b)).toEqual(withLine(9, "MINE"));
      expect(await t.lua("return vim.bo[...].modified", [b])).toBe(true);
      expect(readFileSync(f, "utf8")).toBe(text(lines));
    });
  }

  it('write = "review": "Allow" on a clean buffer then its write opens the review; nothing is saved before ZZ', async () => {
    const { t, work } = await editsNvim(bin, { write: "review" });
    const f = join(work, "c.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    const agent = text(withLine(1, "AGENT"));
    await answerWith(t, "Allow (");
    const chat = await agentTurn(t, [ask(f, "line 2", "AGENT"), write(f, agent)]);
    await reviewShown(t);
    expect(await reviewReason(t)).toBe("review");
    expect(readFileSync(f, "utf8")).toBe(text(lines));
    await t.nvim.input("gA");
    await t.nvim.input("ZZ");
    await chat.turns(1, 15_000);
    expect(await t.lines(b)).toEqual(withLine(1, "AGENT"));
    expect(readFileSync(f, "utf8")).toBe(agent);
    expect(await reviews(t)).toBe(0);
  });

  it("a write made from the disk over a buffer with unsaved edits: the user's lines stay, only the agent's change is offered", async () => {
    const { t, work } = await editsNvim(bin, { write: "buffer" });
    const f = join(work, "m.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    await t.lua("vim.api.nvim_buf_set_lines(..., 9, 10, false, { 'MINE' })", [b]);
    // The agent read the disk itself (claude-agent-acp, gemini): its whole-file text lacks the
    // user's line. Accepting all of it must not take that line out. Its second write builds on
    // its first (it still has not seen the user's line).
    const first = text(withLine(1, "AGENT"));
    const second = text(withLine(3, "MORE", withLine(1, "AGENT")));
    await setScenario(t, { turns: [[write(f, first)], [write(f, second)]] });
    const chat = await openChat(t, "AcpChat!");
    await chat.ready();
    for (const [turn, want] of [
      [1, withLine(9, "MINE", withLine(1, "AGENT"))],
      [2, withLine(9, "MINE", withLine(3, "MORE", withLine(1, "AGENT")))],
    ] as const) {
      await t.nvim.command("AcpChatSend go");
      await reviewShown(t);
      expect(await reviewReason(t)).toBe("merged");
      const hunks = await t.lua<number>(
        "local r = select(2, next(require('acpchat.ask.review').open_reviews)); return #r.hunks",
      );
      expect(hunks).toBe(1);
      await t.nvim.input("gA");
      await t.nvim.input("ZZ");
      await chat.turns(turn, 15_000);
      expect(await t.lines(b)).toEqual([...want]);
    }
    expect(readFileSync(f, "utf8")).toBe(text(lines));
  });
});
