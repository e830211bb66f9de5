/**
 * How a write lands in the editor: its own undo step even in Insert mode, cursors in other
 * windows staying on their text, truthful saves; and what is refused (binary, oversized,
 * read-only) stays untouched, while a hard-linked file is written for both names.
 */
import { chmodSync, linkSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { editsNvim, write, type EditsNvim } from "./edits-support.js";
import { wrote } from "../support/chat.js";

const bins = nvimBins();
let current: EditsNvim | undefined;
afterEach(async () => {
  await current?.t.quit();
  current = undefined;
});

const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";

describe.each(bins)("Neovim $version", (bin) => {
  it("a write in Insert mode is its own undo step: one u undoes exactly the agent's change", async () => {
    const e = (current = await editsNvim(bin, { write: "buffer" }));
    const f = join(e.work, "i.txt");
    writeFileSync(f, text(lines));
    await e.t.nvim.command(`edit ${f}`);
    const win = await e.t.lua<number>("return vim.api.nvim_get_current_win()");
    const b = await e.bufOf(f);
    // A second window on the same buffer, its cursor on line 15.
    await e.t.nvim.command("split");
    const other = await e.t.lua<number>("return vim.api.nvim_get_current_win()");
    await e.t.lua("vim.api.nvim_win_set_cursor(..., { 15, 3 })", [other]);
    // The chat starts, then the user goes back to the file and into Insert mode (types nothing yet).
    const agentLines = ["NEW A", "NEW B", ...lines.slice(0, 4), "CHANGED 5", ...lines.slice(5)];
    const chat = await e.start([{ sleep: 800 }, write(f, text(agentLines))]);
    await e.t.nvim.input("<Esc>"); // the chat's prompt starts in Insert mode
    await e.t.waitFor(async () => (await e.t.lua<string>("return vim.api.nvim_get_mode().mode")) === "n", "Normal mode");
    await e.t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 10, 0 })", [win]);
    expect(await e.t.lines(b)).toEqual(lines); // the write comes while in Insert mode
    await e.t.nvim.input("A");
    await e.t.waitFor(async () => (await e.t.lua<string>("return vim.api.nvim_get_mode().mode")) === "i", "Insert mode");
    await e.turnEnded(chat.id);
    expect(await e.t.lines(b)).toEqual(agentLines);
    // The cursors stayed on their text (two lines were inserted above them).
    expect(await e.t.lua("return vim.api.nvim_win_get_cursor(...)", [other])).toEqual([17, 3]);
    expect((await e.t.lua<number[]>("return vim.api.nvim_win_get_cursor(...)", [win]))[0]).toBe(12);
    await e.t.nvim.input("typed<Esc>");
    await e.t.waitFor(async () => (await e.t.lua<string>("return vim.api.nvim_get_mode().mode")) === "n", "Normal mode");
    expect((await e.t.lines(b))[11]).toBe("line 10typed");
    await e.t.nvim.input("u");
    await e.t.waitFor(async () => (await e.t.lines(b))[11] === "line 10", "u to undo the typing");
    expect(await e.t.lines(b)).toEqual(agentLines);
    await e.t.nvim.input("u");
    await e.t.waitFor(async () => (await e.t.lines(b))[0] === "line 1", "u to undo the agent's change");
    expect(await e.t.lines(b)).toEqual(lines);
  });

  it("binary, oversized and read-only files are refused and untouched; a hard-linked file changes for both names", async () => {
    const e = (current = await editsNvim(bin, { write: "buffer", fs: { max_read_bytes: 1000 } }));
    const bin_ = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 3]);
    writeFileSync(join(e.work, "prog"), bin_);
    writeFileSync(join(e.work, "big.txt"), "x".repeat(5000));
    writeFileSync(join(e.work, "ro.txt"), "keep\n");
    chmodSync(join(e.work, "ro.txt"), 0o444);
    writeFileSync(join(e.work, "one.txt"), "old\n");
    linkSync(join(e.work, "one.txt"), join(e.work, "two.txt"));
    const chat = await e.start([
      write(join(e.work, "prog"), "text\n"),
      write(join(e.work, "big.txt"), "small\n"),
      write(join(e.work, "ro.txt"), "changed\n"),
      write(join(e.work, "one.txt"), "new\n"),
      { request: "fs/read_text_file", params: { path: join(e.work, "big.txt") }, echo: true },
    ]);
    await e.turnEnded(chat.id);
    const r = await e.replies(chat.buf);
    expect(r[0]!.error).toMatchObject({ message: expect.stringContaining("binary files are not overwritten") });
    expect(r[1]!.error).toMatchObject({ message: expect.stringContaining("over the 1000-byte read limit") });
    expect(r[2]!.error).toMatchObject({ message: expect.stringContaining("read-only") });
    expect(r[3]!.result).toEqual(wrote());
    expect(r[4]!.error).toMatchObject({ message: expect.stringContaining("over the 1000-byte read limit") });
    expect(readFileSync(join(e.work, "prog")).equals(bin_)).toBe(true);
    expect(readFileSync(join(e.work, "big.txt"), "utf8")).toBe("x".repeat(5000));
    expect(readFileSync(join(e.work, "ro.txt"), "utf8")).toBe("keep\n");
    expect(readFileSync(join(e.work, "two.txt"), "utf8")).toBe("new\n");
  });

  it('write = "save" is truthful: a save Vim refuses is an error for the agent, the change stays in the buffer', async () => {
    const e = (current = await editsNvim(bin, { write: "save" }));
    const f = join(e.work, "s.txt");
    writeFileSync(f, "one\n");
    await e.t.nvim.command(`edit ${f}`);
    const b = await e.bufOf(f);
    // A BufWriteCmd that fails stands for any refused :write.
    await e.t.lua("vim.api.nvim_create_autocmd('BufWriteCmd', { buffer = ..., callback = function() error('disk full') end })", [b]);
    const chat = await e.start([write(f, "one\ntwo\n")]);
    await e.turnEnded(chat.id);
    const r = await e.replies(chat.buf);
    expect(r[0]!.error).toMatchObject({ message: expect.stringContaining("not saved") });
    expect(await e.t.lines(b)).toEqual(["one", "two"]);
    expect(await e.t.lua("return vim.bo[...].modified", [b])).toBe(true);
    expect(readFileSync(f, "utf8")).toBe("one\n");
  });
});
