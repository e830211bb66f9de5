/**
 * The editor's file tools reached as an agent reaches them (the official MCP client on the
 * server the chat offered): reads of unsaved buffers and of the disk, numbered, windowed; the
 * session's boundary; list_files honouring .gitignore; a write into a buffer with the user's
 * unsaved edits that waits for the review and lands as one undo step; edits whose old_string is
 * missing or not unique refused with the reason.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim } from "../support/chat.js";
import {
  UNSAVED_READ,
  connect,
  editThroughReview,
  editUnsaved,
  expectOutsideRefused,
  setupChat,
  tool,
} from "../support/editor-tools.js";

describe.each(nvimBins())("the editor's file tools in Neovim $version", (bin) => {
  it("read what the editor sees, stay inside the folders, and write only through the review", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t);
    const { client } = await connect(server);

    // A buffer with unsaved edits: its text, said to be unsaved; the disk's file untouched.
    await editUnsaved(t);
    let r = await tool(client, "read_file", { path: "src/a.lua" });
    expect(r).toEqual({ isError: false, text: UNSAVED_READ });
    // A file only on disk, a window of it: numbered from its first line, with a note that it goes on.
    r = await tool(client, "read_file", { path: join(work, "src/b.lua"), line: 2, limit: 2 });
    expect(r.text.split("\n")).toEqual([
      "     2\tfunction M.greet(name)",
      "     3\t  return 'hello ' .. name",
      "[Lines 2-3 shown; the file goes on: read_file with line=4 reads the rest.]",
    ]);
    // Outside the session's folders: refused, as fs/read_text_file refuses it.
    await expectOutsideRefused(client);
    r = await tool(client, "write_file", { path: "/tmp/acpchat-never.txt", content: "x" });
    expect(r.isError).toBe(true);

    // list_files: what git does not ignore.
    writeFileSync(join(work, ".gitignore"), "build/\n*.log\n");
    writeFileSync(join(work, "debug.log"), "noise\n");
    execFileSync("git", ["init", "-q"], { cwd: work });
    r = await tool(client, "list_files", {});
    expect(r.text.split("\n")).toEqual(["3 files in . (.gitignore honoured):", ".gitignore", "src/a.lua", "src/b.lua"]);
    expect((await tool(client, "list_files", { pattern: "*.lua" })).text).toContain("2 files in . matching *.lua");

    // edit_file: a missing or repeated old_string is refused and nothing changes.
    r = await tool(client, "edit_file", { path: "src/b.lua", old_string: "nothing like this", new_string: "x" });
    expect(r).toMatchObject({ isError: true });
    expect(r.text).toContain("old_string was not found in src/b.lua");
    r = await tool(client, "edit_file", { path: "src/b.lua", old_string: "M", new_string: "N" });
    expect(r.text).toContain("old_string appears 3 times in src/b.lua");

    // An edit of the buffer that holds the user's unsaved edits: the review opens; until it is
    // answered nothing changes; accepted, it lands in the buffer (not saved over the user's
    // work) as one undo step.
    r = await editThroughReview(t, client, work);
    expect(r.isError).toBe(false);
    expect(r.text).toContain("not saved");
    const buf = await t.lua<number>("return vim.fn.bufnr(...)", [join(work, "src/a.lua")]);
    const lines = () => t.lua<string[]>("return vim.api.nvim_buf_get_lines(..., 0, -1, false)", [buf]);
    expect(await lines()).toEqual(['local b = require("b") -- edited', "local x = b.greet('you')", "return x + 1"]);
    expect(readFileSync(join(work, "src/a.lua"), "utf8")).toContain("return x\n");
    await t.lua("vim.api.nvim_buf_call(..., function() vim.cmd('silent undo') end)", [buf]);
    expect(await lines()).toEqual(['local b = require("b") -- edited', "local x = b.greet('you')", "return x"]);
  }, 120_000);
});
