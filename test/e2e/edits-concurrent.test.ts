/**
 * Changes that happen while a review is open: on disk, in the loaded buffer, or in a buffer the
 * user opens during the review. Nothing of the other change is lost: the accepted hunks are
 * carried over and shown again, or (same lines) nothing is written and the agent is told.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { editsNvim, reviewShown, write, type EditsNvim } from "./edits-support.js";
import { wrote } from "../support/chat.js";

const bins = nvimBins();
let current: EditsNvim | undefined;
afterEach(async () => {
  await current?.t.quit();
  current = undefined;
});

const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const withLine = (i: number, s: string, ls = lines) => ls.map((l, k) => (k === i ? s : l));

async function acceptAll(e: EditsNvim): Promise<void> {
  await e.t.nvim.input("gA");
  await e.t.nvim.input("ZZ");
}

describe.each(bins)("Neovim $version", (bin) => {
  it("the file changed on disk during the review: the agent's accepted hunks are shown again on the new text; both changes land", async () => {
    const e = (current = await editsNvim(bin, { write: "review" }));
    const f = join(e.work, "d.txt");
    writeFileSync(f, text(lines));
    const chat = await e.start([write(f, text(withLine(1, "AGENT")))]);
    await reviewShown(e);
    writeFileSync(f, text(withLine(9, "DISK")));
    await acceptAll(e);
    // Shown again against the new text, the accepted hunk already accepted.
    await e.t.waitFor(async () => (await e.t.lua<string>("return vim.api.nvim_buf_get_name(0)")).includes("/result/"), "the refreshed review");
    expect(await e.t.lua("local r = select(2, next(require('acpchat.review').open_reviews)); return r and r.reason")).toBe("refresh");
    expect(await e.t.lines(0)).toEqual(withLine(9, "DISK", withLine(1, "AGENT")));
    await e.t.nvim.input("ZZ");
    await e.turnEnded(chat.id);
    expect((await e.replies(chat.buf))[0]!.result).toEqual(wrote());
    expect(readFileSync(f, "utf8")).toBe(text(withLine(9, "DISK", withLine(1, "AGENT"))));
  });

  it("the user typed in the buffer during the review: their edit stays, the agent's accepted hunk lands beside it", async () => {
    const e = (current = await editsNvim(bin, { write: "review" }));
    const f = join(e.work, "b.txt");
    writeFileSync(f, text(lines));
    await e.t.nvim.command(`edit ${f}`);
    const b = await e.bufOf(f);
    const chat = await e.start([write(f, text(withLine(1, "AGENT")))]);
    await reviewShown(e);
    await e.t.lua("vim.api.nvim_buf_set_lines(..., 9, 10, false, { 'MINE' })", [b]);
    await acceptAll(e);
    await e.t.waitFor(async () => (await e.t.lua<string>("local r = select(2, next(require('acpchat.review').open_reviews)); return r and r.reason")) === "refresh", "the refreshed review");
    await e.t.waitFor(async () => (await e.t.lua<string>("return vim.api.nvim_buf_get_name(0)")).includes("/result/"), "the refreshed review tab");
    await e.t.nvim.input("ZZ");
    await e.turnEnded(chat.id);
    expect((await e.replies(chat.buf))[0]!.result).toEqual(wrote());
    expect(await e.t.lines(b)).toEqual(withLine(9, "MINE", withLine(1, "AGENT")));
    expect(readFileSync(f, "utf8")).toBe(text(lines)); // the user saves
  });

  it("the user changed the same lines: nothing is written, the agent gets a clear error, the user a note", async () => {
    const e = (current = await editsNvim(bin, { write: "review" }));
    const f = join(e.work, "c.txt");
    writeFileSync(f, text(lines));
    await e.t.nvim.command(`edit ${f}`);
    const b = await e.bufOf(f);
    const chat = await e.start([write(f, text(withLine(1, "AGENT")))]);
    await reviewShown(e);
    await e.t.lua("vim.api.nvim_buf_set_lines(..., 1, 2, false, { 'MINE' })", [b]);
    await acceptAll(e);
    await e.turnEnded(chat.id);
    expect((await e.replies(chat.buf))[0]!.error).toMatchObject({ message: expect.stringContaining("changed while its review was open") });
    expect(await e.t.lines(b)).toEqual(withLine(1, "MINE"));
    await e.t.waitFor(async () => (await e.t.lua<string>("return vim.fn.execute('messages')")).includes("the agent was told"), "the note");
  });

  it("a buffer opened on the file during the review takes the write (the disk is not written behind it)", async () => {
    const e = (current = await editsNvim(bin, { write: "review" }));
    const f = join(e.work, "o.txt");
    writeFileSync(f, text(lines));
    const chat = await e.start([write(f, text(withLine(1, "AGENT")))]);
    await reviewShown(e);
    await e.t.nvim.command(`tabnew ${f}`);
    const b = await e.bufOf(f);
    await e.t.lua("vim.api.nvim_buf_set_lines(..., 9, 10, false, { 'MINE' })", [b]);
    await e.t.nvim.command("tabprevious");
    await acceptAll(e);
    await e.t.waitFor(async () => (await e.t.lua<string>("local r = select(2, next(require('acpchat.review').open_reviews)); return r and r.reason")) === "refresh", "the refreshed review");
    await e.t.waitFor(async () => (await e.t.lua<string>("return vim.api.nvim_buf_get_name(0)")).includes("/result/"), "the refreshed review tab");
    await e.t.nvim.input("ZZ");
    await e.turnEnded(chat.id);
    expect(await e.t.lines(b)).toEqual(withLine(9, "MINE", withLine(1, "AGENT")));
    expect(readFileSync(f, "utf8")).toBe(text(lines));
  });

  it("writing the same content twice is nothing to do, not a conflict; an edit approved in the permission prompt is not reviewed again", async () => {
    const e = (current = await editsNvim(bin, { write: "review" }));
    const f = join(e.work, "s.txt");
    writeFileSync(f, "a\nb\n");
    await e.t.lua("vim.ui.select = function(items, _, on_choice) _G.asked = (_G.asked or 0) + 1; on_choice(items[1]) end");
    const chat = await e.start([
      {
        request: "session/request_permission",
        params: {
          toolCall: { toolCallId: "e1", title: "Edit s.txt", kind: "edit", content: [{ type: "diff", path: f, oldText: "b", newText: "B" }] },
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
    await e.turnEnded(chat.id);
    const r = await e.replies(chat.buf);
    expect(r.map((x) => x.result ?? x.error)).toEqual([{ outcome: { outcome: "selected", optionId: "ok" } }, wrote(), wrote("nothing")]);
    expect(await e.t.lua("return _G.asked")).toBe(1);
    expect(await e.reviews()).toBe(0);
    expect(readFileSync(f, "utf8")).toBe("a\nB\n");
  });
});
