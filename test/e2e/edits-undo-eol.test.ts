/**
 * Undoing an agent's write that changed the file's final newline: the buffer gets its
 * 'endofline'/'fixendofline' back (undo restores text, not options), is unmodified again when
 * it matches the disk, and :w keeps the file's final newline; redo sets the write's again.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { bufnr } from "../support/chat.js";
import { agentTurn, editsNvim, write } from "./edits-support.js";

const bins = nvimBins();

const lines = Array.from({ length: 8 }, (_, i) => `line ${i + 1}`);

describe.each(bins)("Neovim $version", (bin) => {
  it('write = "buffer": u after a write without a final newline restores eol/fixeol, unmodified; :w keeps the newline', async () => {
    const { t, work } = await editsNvim(bin, { write: "buffer" });
    const f = join(work, "e.txt");
    writeFileSync(f, lines.join("\n") + "\n");
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    const opts = () =>
      t.lua<[boolean, boolean, boolean]>(
        "local b = ...; return { vim.bo[b].eol, vim.bo[b].fixeol, vim.bo[b].modified }",
        [b],
      );
    const chat = await agentTurn(t, [write(f, ["CHANGED", ...lines.slice(1)].join("\n"))]);
    await chat.turns(1, 15_000);
    expect((await t.lines(b))[0]).toBe("CHANGED");
    expect(await opts()).toEqual([false, false, true]);
    await t.nvim.input("<Esc>"); // the chat's prompt starts in Insert mode
    await t.lua("vim.cmd.stopinsert(); vim.fn.win_gotoid(vim.fn.win_findbuf(...)[1])", [b]);
    await t.waitFor(async () => (await t.lua<string>("return vim.api.nvim_get_mode().mode")) === "n", "Normal mode");
    await t.nvim.input("u");
    await t.waitFor(async () => (await t.lines(b))[0] === "line 1", "u to undo the write");
    await t.waitFor(async () => (await opts())[0] === true, "eol back");
    expect(await opts()).toEqual([true, true, false]);
    await t.nvim.input("<C-r>");
    await t.waitFor(async () => (await t.lines(b))[0] === "CHANGED", "redo");
    await t.waitFor(async () => (await opts())[0] === false, "the write's eol again");
    expect(await opts()).toEqual([false, false, true]);
    await t.nvim.input("u");
    await t.waitFor(async () => (await opts())[0] === true, "eol back");
    await t.nvim.command("write");
    expect(readFileSync(f, "utf8")).toBe(lines.join("\n") + "\n");
  });
});
