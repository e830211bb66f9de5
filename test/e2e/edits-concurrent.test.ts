/**
 * Changes that happen while a review is open: on disk, in the loaded buffer, or in a buffer the
 * user opens during the review. Nothing of the other change is lost: the accepted hunks are
 * carried over and shown again, or (same lines) nothing is written and the agent is told.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import type { TestNvim } from "../support/nvim.js";
import { agentTurn, editsNvim, reviewShown, write } from "./edits-support.js";
import { bufnr, replies, reviews, wrote, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const withLine = (i: number, s: string, ls = lines) => ls.map((l, k) => (k === i ? s : l));

async function acceptAll(t: TestNvim): Promise<void> {
  await t.nvim.input("gA");
  await t.nvim.input("ZZ");
}

describe.each(bins)("Neovim $version", (bin) => {
  it("the file changed on disk during the review: the agent's accepted hunks are shown again on the new text; both changes land", async () => {
    const { t, work } = await editsNvim(bin, { write: "review" });
    const f = join(work, "d.txt");
    writeFileSync(f, text(lines));
    const chat = await agentTurn(t, [write(f, text(withLine(1, "AGENT")))]);
    await reviewShown(t);
    writeFileSync(f, text(withLine(9, "DISK")));
    await acceptAll(t);
    // Shown again against the new text, the accepted hunk already accepted.
    await t.waitFor(
      async () => (await t.lua<string>("return vim.api.nvim_buf_get_name(0)")).includes("/result/"),
      "the refreshed review",
    );
    expect(
      await t.lua("local r = select(2, next(require('acpchat.ask.review').open_reviews)); return r and r.reason"),
    ).toBe("refresh");
    expect(await t.lines(0)).toEqual(withLine(9, "DISK", withLine(1, "AGENT")));
    await t.nvim.input("ZZ");
    await chat.turns(1, 15_000);
    expect((await replies(chat))[0]!.result).toEqual(wrote());
    expect(readFileSync(f, "utf8")).toBe(text(withLine(9, "DISK", withLine(1, "AGENT"))));
  });

  it("the user typed in the buffer during the review: their edit stays, the agent's accepted hunk lands beside it", async () => {
    const { t, work } = await editsNvim(bin, { write: "review" });
    const f = join(work, "b.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    const chat = await agentTurn(t, [write(f, text(withLine(1, "AGENT")))]);
    await reviewShown(t);
    await t.lua("vim.api.nvim_buf_set_lines(..., 9, 10, false, { 'MINE' })", [b]);
    await acceptAll(t);
    await t.waitFor(
      async () =>
        (await t.lua<string>(
          "local r = select(2, next(require('acpchat.ask.review').open_reviews)); return r and r.reason",
        )) === "refresh",
      "the refreshed review",
    );
    await t.waitFor(
      async () => (await t.lua<string>("return vim.api.nvim_buf_get_name(0)")).includes("/result/"),
      "the refreshed review tab",
    );
    await t.nvim.input("ZZ");
    await chat.turns(1, 15_000);
    expect((await replies(chat))[0]!.result).toEqual({
      message: expect.stringContaining("its buffer holds the user's own unsaved edits"),
      ...(wrote("buffer") as object),
    });
    expect(await t.lines(b)).toEqual(withLine(9, "MINE", withLine(1, "AGENT")));
    expect(readFileSync(f, "utf8")).toBe(text(lines)); // the user saves
  });

  it("the user changed the same lines: nothing is written, the agent gets a clear error, the user a note", async () => {
    const { t, work } = await editsNvim(bin, { write: "review" });
    const f = join(work, "c.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    const chat = await agentTurn(t, [write(f, text(withLine(1, "AGENT")))]);
    await reviewShown(t);
    await t.lua("vim.api.nvim_buf_set_lines(..., 1, 2, false, { 'MINE' })", [b]);
    await acceptAll(t);
    await chat.turns(1, 15_000);
    expect((await replies(chat))[0]!.error).toMatchObject({
      message: expect.stringContaining("changed while its review was open"),
    });
    expect(await t.lines(b)).toEqual(withLine(1, "MINE"));
    await t.waitFor(
      async () => (await t.lua<string>("return vim.fn.execute('messages')")).includes("the agent was told"),
      "the note",
    );
  });

  it("a buffer opened on the file during the review takes the write (the disk is not written behind it)", async () => {
    const { t, work } = await editsNvim(bin, { write: "review" });
    const f = join(work, "o.txt");
    writeFileSync(f, text(lines));
    const chat = await agentTurn(t, [write(f, text(withLine(1, "AGENT")))]);
    await reviewShown(t);
    await t.nvim.command(`tabnew ${f}`);
    const b = await bufnr(t, f);
    await t.lua("vim.api.nvim_buf_set_lines(..., 9, 10, false, { 'MINE' })", [b]);
    await t.nvim.command("tabprevious");
    await acceptAll(t);
    await t.waitFor(
      async () =>
        (await t.lua<string>(
          "local r = select(2, next(require('acpchat.ask.review').open_reviews)); return r and r.reason",
        )) === "refresh",
      "the refreshed review",
    );
    await t.waitFor(
      async () => (await t.lua<string>("return vim.api.nvim_buf_get_name(0)")).includes("/result/"),
      "the refreshed review tab",
    );
    await t.nvim.input("ZZ");
    await chat.turns(1, 15_000);
    expect(await t.lines(b)).toEqual(withLine(9, "MINE", withLine(1, "AGENT")));
    expect(readFileSync(f, "utf8")).toBe(text(lines));
  });

  it("writing the same content twice is nothing to do, not a conflict; an edit allowed in the permission prompt is reviewed once", async () => {
    const { t, work } = await editsNvim(bin, { write: "review" });
    const f = join(work, "s.txt");
    writeFileSync(f, "a\nb\n");
    await t.lua(
      "vim.ui.select = function(items, _, on_choice) _G.asked = (_G.asked or 0) + 1; on_choice(items[1]) end",
    );
    const chat = await agentTurn(t, [
      {
        request: "session/request_permission",
        params: {
          toolCall: {
            toolCallId: "e1",
            title: "Edit s.txt",
            kind: "edit",
            content: [{ type: "diff", path: f, oldText: "b", newText: "B" }],
          },
          options: [
            { optionId: "ok", name: "Allow", kind: "allow_once" },
            { optionId: "no", name: "Reject", kind: "reject_once" },
          ],
        },
        echo: true,
      },
      write(f, "a\nB\n"),
      write(f, "a\nB\n"),
    ]);
    // "Allow" showed counts, not the diff: with write = "review" the write opens in review.
    await reviewShown(t);
    await acceptAll(t);
    await chat.turns(1, 15_000);
    const r = await replies(chat);
    expect(r.map((x) => x.result ?? x.error)).toEqual([
      { outcome: { outcome: "selected", optionId: "ok" } },
      wrote(),
      wrote("nothing"),
    ]);
    expect(await t.lua("return _G.asked")).toBe(1);
    expect(await reviews(t)).toBe(0);
    expect(readFileSync(f, "utf8")).toBe("a\nB\n");
  });
});
