/**
 * How a write lands in the editor: its own undo step even in Insert mode, cursors in other
 * windows staying on their text, truthful saves; and what is refused (binary, oversized,
 * read-only) stays untouched, while a hard-linked file is written for both names.
 */
import { chmodSync, linkSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { agentTurn, editsNvim, write } from "./edits-support.js";
import { bufnr, replies, wrote, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";

describe.each(bins)("Neovim $version", (bin) => {
  it("a write in Insert mode is its own undo step: one u undoes exactly the agent's change", async () => {
    const { t, work } = await editsNvim(bin, { write: "buffer" });
    const f = join(work, "i.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const win = await t.lua<number>("return vim.api.nvim_get_current_win()");
    const b = await bufnr(t, f);
    // A second window on the same buffer, its cursor on line 15.
    await t.nvim.command("split");
    const other = await t.lua<number>("return vim.api.nvim_get_current_win()");
    await t.lua("vim.api.nvim_win_set_cursor(..., { 15, 3 })", [other]);
    // The chat starts, then the user goes back to the file and into Insert mode (types nothing yet).
    const agentLines = ["NEW A", "NEW B", ...lines.slice(0, 4), "CHANGED 5", ...lines.slice(5)];
    const chat = await agentTurn(t, [{ sleep: 800 }, write(f, text(agentLines))]);
    await t.nvim.input("<Esc>"); // the chat's prompt starts in Insert mode
    await t.waitFor(async () => (await t.lua<string>("return vim.api.nvim_get_mode().mode")) === "n", "Normal mode");
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 10, 0 })", [win]);
    expect(await t.lines(b)).toEqual(lines); // the write comes while in Insert mode
    await t.nvim.input("A");
    await t.waitFor(async () => (await t.lua<string>("return vim.api.nvim_get_mode().mode")) === "i", "Insert mode");
    await chat.turns(1, 15_000);
    expect(await t.lines(b)).toEqual(agentLines);
    // The cursors stayed on their text (two lines were inserted above them).
    expect(await t.lua("return vim.api.nvim_win_get_cursor(...)", [other])).toEqual([17, 3]);
    expect((await t.lua<number[]>("return vim.api.nvim_win_get_cursor(...)", [win]))[0]).toBe(12);
    await t.nvim.input("typed<Esc>");
    await t.waitFor(async () => (await t.lua<string>("return vim.api.nvim_get_mode().mode")) === "n", "Normal mode");
    expect((await t.lines(b))[11]).toBe("line 10typed");
    await t.nvim.input("u");
    await t.waitFor(async () => (await t.lines(b))[11] === "line 10", "u to undo the typing");
    expect(await t.lines(b)).toEqual(agentLines);
    await t.nvim.input("u");
    await t.waitFor(async () => (await t.lines(b))[0] === "line 1", "u to undo the agent's change");
    expect(await t.lines(b)).toEqual(lines);
  });

  it("binary, oversized and read-only files are refused and untouched; a hard-linked file gets a file of its own, the other name keeps its text", async () => {
    const { t, work } = await editsNvim(bin, { write: "buffer", fs: { max_read_bytes: 1000 } });
    const bin_ = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]);
    writeFileSync(join(work, "prog"), bin_);
    writeFileSync(join(work, "big.txt"), "x".repeat(5000));
    writeFileSync(join(work, "ro.txt"), "keep\n");
    chmodSync(join(work, "ro.txt"), 0o444);
    writeFileSync(join(work, "one.txt"), "old\n");
    linkSync(join(work, "one.txt"), join(work, "two.txt"));
    const chat = await agentTurn(t, [
      write(join(work, "prog"), "text\n"),
      write(join(work, "big.txt"), "small\n"),
      write(join(work, "ro.txt"), "changed\n"),
      write(join(work, "one.txt"), "new\n"),
      { request: "fs/read_text_file", params: { path: join(work, "big.txt") }, echo: true },
    ]);
    await chat.turns(1, 15_000);
    const r = await replies(chat);
    expect(r[0]!.error).toMatchObject({ message: expect.stringContaining("binary files are not overwritten") });
    expect(r[1]!.error).toMatchObject({ message: expect.stringContaining("over the 1000-byte read limit") });
    expect(r[2]!.error).toMatchObject({ message: expect.stringContaining("read-only") });
    expect(r[3]!.result).toEqual(wrote());
    expect(r[4]!.error).toMatchObject({ message: expect.stringContaining("over the 1000-byte read limit") });
    expect(readFileSync(join(work, "prog")).equals(bin_)).toBe(true);
    expect(readFileSync(join(work, "big.txt"), "utf8")).toBe("x".repeat(5000));
    expect(readFileSync(join(work, "ro.txt"), "utf8")).toBe("keep\n");
    expect(readFileSync(join(work, "one.txt"), "utf8")).toBe("new\n");
    expect(readFileSync(join(work, "two.txt"), "utf8")).toBe("old\n");
  });

  it('write = "save" is truthful: a save Vim refuses is an error for the agent, the change stays in the buffer', async () => {
    const { t, work } = await editsNvim(bin, { write: "save" });
    const f = join(work, "s.txt");
    writeFileSync(f, "one\n");
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    // A BufWriteCmd that fails stands for any refused :write.
    await t.lua(
      "vim.api.nvim_create_autocmd('BufWriteCmd', { buffer = ..., callback = function() error('disk full') end })",
      [b],
    );
    const chat = await agentTurn(t, [write(f, "one\ntwo\n")]);
    await chat.turns(1, 15_000);
    const r = await replies(chat);
    expect(r[0]!.error).toMatchObject({ message: expect.stringContaining("not saved") });
    expect(await t.lines(b)).toEqual(["one", "two"]);
    expect(await t.lua("return vim.bo[...].modified", [b])).toBe(true);
    expect(readFileSync(f, "utf8")).toBe("one\n");
  });
});
