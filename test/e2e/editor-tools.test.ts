/**
 * The editor's MCP server, reached exactly as an agent reaches it: the test starts the
 * server that the chat put into session/new's mcpServers, with the official MCP client over
 * stdio, and calls its tools. Behind it are a real Neovim, real buffers, vim.diagnostic, the
 * quickfix list and a language server (written here in Lua, started with vim.lsp.start).
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import { chatCount, nvim, openChat, ownNvim, received, shareNvim } from "../support/chat.js";
import { FAKE_LS, connect, expectSecretsHidden, setupChat, tool, type Server } from "../support/editor-tools.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("offers every tool to the agent; diagnostics, open files, selection and quickfix come from the editor", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t);
    expect(server).toMatchObject({
      command: process.execPath,
      args: [expect.stringMatching(/acpchat-mcp\.cjs$/), "--tools", expect.any(String)],
    });
    const { client } = await connect(server);
    const names = (await client.listTools()).tools.map((x) => x.name).sort();
    expect(names).toEqual([
      "definition",
      "diagnostics",
      "document_symbols",
      "edit_file",
      "hover",
      "list_files",
      "open_buffers",
      "quickfix",
      "read_file",
      "references",
      "selection",
      "workspace_symbols",
      "write_file",
    ]);

    // A planted error in a buffer with unsaved changes.
    await t.nvim.command("edit src/a.lua");
    await t.lua("vim.api.nvim_buf_set_lines(0, 2, 3, false, { 'return x -- édité' })");
    await t.lua(
      "local ns = vim.api.nvim_create_namespace('lint'); vim.diagnostic.set(ns, 0, { { lnum = 1, col = 10, message = 'undefined field `greet`', severity = vim.diagnostic.severity.ERROR, source = 'lua_ls', code = 'undefined-field' }, { lnum = 2, col = 0, message = 'unused', severity = vim.diagnostic.severity.HINT } })",
    );
    let r = await tool(client, "diagnostics", { path: "src/a.lua" });
    expect(r).toEqual({
      isError: false,
      text: "2 diagnostics in 1 file:\nsrc/a.lua:2:11: error: undefined field `greet` [lua_ls undefined-field]\nsrc/a.lua:3:1: hint: unused",
    });
    r = await tool(client, "diagnostics", { severity: "error" });
    expect(r.text).toBe(
      "1 diagnostic in 1 file:\nsrc/a.lua:2:11: error: undefined field `greet` [lua_ls undefined-field]",
    );
    r = await tool(client, "diagnostics", { path: "src/b.lua" });
    expect(r.text).toContain("not open in the editor");

    r = await tool(client, "open_buffers");
    expect(r.text).toBe("src/a.lua [modified: unsaved changes] [visible] (lua, 3 lines)");

    expect((await tool(client, "selection")).text).toBe("The user has not selected anything in the editor.");
    await t.lua("vim.api.nvim_win_set_cursor(0, { 2, 6 }); vim.api.nvim_feedkeys('vjl\\27', 'x', false)");
    r = await tool(client, "selection");
    expect(r.text).toBe(
      "src/a.lua:2:7-3:8 (last selection, characters; the file has unsaved changes):\nx = b.greet('you')\nreturn x",
    );

    await t.lua(
      "vim.fn.setqflist({}, ' ', { title = 'make', items = { { filename = ..., lnum = 3, col = 2, type = 'E', text = 'boom' }, { filename = '/etc/hosts', lnum = 1, text = 'elsewhere' } } })",
      [join(work, "src/b.lua")],
    );
    r = await tool(client, "quickfix");
    expect(r.text).toBe('Quickfix list "make":\nsrc/b.lua:3:2: E: boom\n(1 outside the session\'s folders not shown)');
  });

  it("definition, references, hover and symbols come from the editor's language server, without blocking it", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t, { editor_tools: { timeout_ms: 2500 } });
    await t.lua(FAKE_LS, [work]);
    await t.nvim.command("edit src/a.lua");
    const { client } = await connect(server);

    let r = await tool(client, "definition", { path: "src/a.lua", line: 2, symbol: "greet" });
    expect(r).toEqual({ isError: false, text: "src/b.lua:2:10  function M.greet(name)" });
    expect(await t.lua("return _G.fakels_position")).toEqual({ line: 1, character: 12 });

    r = await tool(client, "references", { path: "src/a.lua", line: 2, column: 13, include_declaration: false });
    expect(r.text).toBe(
      "2 references:\nsrc/a.lua:2:9  local x = b.greet('you')\nsrc/b.lua:2:10  function M.greet(name)\n(1 outside the session's folders not shown)",
    );
    expect(await t.lua("return _G.fakels_context")).toEqual({ includeDeclaration: false });

    r = await tool(client, "hover", { path: "src/a.lua", line: 2, symbol: "greet" });
    expect(r.text).toBe("function greet(name: string)\n\nSays hello.");

    // b.lua is not open: the tool opens it (hidden), the language server attaches, and answers.
    r = await tool(client, "document_symbols", { path: "src/b.lua" });
    expect(r.text).toBe("Module M (1-5)\n  Function greet (name) (2-4)");
    expect(await t.lua("return vim.fn.buflisted(vim.fn.bufnr(...))", [join(work, "src/b.lua")])).toBe(0);

    r = await tool(client, "workspace_symbols", { query: "gree" });
    expect(r.text).toBe("Function greet (in M): src/b.lua:2:10");

    r = await tool(client, "definition", { path: "src/a.lua", line: 2, symbol: "nothere" });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('"nothere" is not on line 2');

    // A slow server: the editor keeps answering while the tool waits.
    await t.lua("_G.fakels_delay = 1000");
    const started = Date.now();
    const pending = tool(client, "definition", { path: "src/a.lua", line: 2, symbol: "greet" });
    let worst = 0;
    while (Date.now() - started < 800) {
      const s = Date.now();
      await t.nvim.eval("1");
      worst = Math.max(worst, Date.now() - s);
      await new Promise((res) => setTimeout(res, 20));
    }
    expect((await pending).text).toContain("src/b.lua:2:10");
    expect(worst).toBeLessThan(200);

    // A server that never answers: the tool says so at its time limit.
    await t.lua("_G.fakels_silent = true");
    const s = Date.now();
    r = await tool(client, "hover", { path: "src/a.lua", line: 2, symbol: "greet" });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("did not answer in time");
    expect(Date.now() - s).toBeGreaterThanOrEqual(2400);
    expect(Date.now() - s).toBeLessThan(6000);

    // A file without any language server.
    writeFileSync(join(work, "notes.txt"), "plain\n");
    r = await tool(client, "definition", { path: "notes.txt", line: 1 });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("no language server is attached to notes.txt");
  });

  it("refuses paths outside the session, a wrong token, and ends with the chat; its secrets appear nowhere", async () => {
    ownNvim(); // its second Neovim's host must be a new one
    const t = await nvim(bin);
    const { c, server } = await setupChat(t);
    const { client, closed, transport } = await connect(server);

    let r = await tool(client, "diagnostics", { path: "/etc/passwd" });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^\/etc\/passwd is outside the session's folders/);
    r = await tool(client, "document_symbols", { path: "../../outside.lua" });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("outside the session's folders");

    const wrong = await connect(server, { ACPCHAT_EDITOR_TOKEN: "not-the-token-at-all" });
    r = await tool(wrong.client, "open_buffers");
    expect(r).toEqual({ isError: true, text: expect.stringContaining("refused this server's token") });

    // Neither the token nor the socket's path reaches the transcript, the trace or the logs.
    const token = server.env.find((e) => e.name === "ACPCHAT_EDITOR_TOKEN")!.value;
    const socket = server.env.find((e) => e.name === "ACPCHAT_EDITOR_SOCKET")!.value;
    expect(token.length).toBeGreaterThanOrEqual(40);
    await expectSecretsHidden(t, c, "ACPCHAT_EDITOR_TOKEN", [token, socket]);

    // The chat closes: the channel closes, the server exits, the socket is gone.
    expect(transport.pid).toBeGreaterThan(0);
    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => (await chatCount(t)) === 0, "the chat to close");
    await Promise.race([
      closed,
      new Promise((_, reject) => setTimeout(() => reject(new Error("the MCP server outlived its chat")), 5000)),
    ]);
    expect(() => process.kill(transport.pid!, 0)).toThrow();
    expect(() => readdirSync(join(socket, ".."))).toThrow();

    // A channel folder left by a host that was killed (SIGKILL) is swept by the next host, in
    // the background of its first chat (once: the temp folder may be huge). A Neovim of its own
    // (a shared one's host has swept already).
    const stale = join(socket, "../..", "acpchat-4194303-AbC123");
    mkdirSync(stale);
    const t2 = await nvim(bin);
    await setupChat(t2);
    await t2.waitFor(async () => !existsSync(stale), "the stale channel folder swept");
  });

  it("is configurable: off per agent, fewer tools, or a project's .acpchat.lua (once trusted)", async () => {
    const t = await nvim(bin);
    const s = await setupChat(t, { editor_tools: { tools: ["diagnostics", "selection"] } });
    expect(s.server.args.at(-1)).toBe("diagnostics,selection");
    const { client } = await connect(s.server);
    expect((await client.listTools()).tools.map((x) => x.name)).toEqual(["diagnostics", "selection"]);
    await t.nvim.command("AcpChatClose");

    await t.lua("require('acpchat.config').options.agents.fake.editor_tools = false");
    await openChat(t, "AcpChat!").then((c) => c.ready());
    expect((received(t.dir, "session/new").at(-1)!.mcpServers as Server[]).map((x) => x.name)).toEqual([]);
    await t.nvim.command("AcpChatClose");
    await t.lua("require('acpchat.config').options.agents.fake.editor_tools = nil");

    // A project file: untrusted, it is ignored with a note; trusted, it applies.
    const work = join(t.dir, "work");
    writeFileSync(
      join(work, ".acpchat.lua"),
      `return { editor_tools = { tools = { "quickfix" } }, mcp_servers = { { name = "proj", command = "${process.execPath}", args = { "--version" } } } }`,
    );
    await t.lua("vim.secure.trust({ action = 'deny', path = ... })", [join(work, ".acpchat.lua")]);
    await openChat(t, "AcpChat!").then((c) => c.ready());
    expect((received(t.dir, "session/new").at(-1)!.mcpServers as Server[]).map((x) => x.name)).toEqual(["nvim"]);
    expect(JSON.stringify(await c2notes(t))).toContain(".acpchat.lua is not trusted");
    await t.nvim.command("AcpChatClose");
    // Trusted as :trust does it, by the buffer (Neovim 0.10 takes no path for 'allow').
    await t.lua(
      "vim.secure.trust({ action = 'remove', path = ... }); vim.cmd.edit(...); vim.secure.trust({ action = 'allow', bufnr = 0 }); vim.cmd('bwipeout')",
      [join(work, ".acpchat.lua")],
    );
    await openChat(t, "AcpChat!").then((c) => c.ready());
    const last = received(t.dir, "session/new").at(-1)!.mcpServers as Server[];
    expect(last.map((x) => x.name)).toEqual(["proj", "nvim"]);
    expect(last[1]!.args.at(-1)).toBe("quickfix");
  });
});

async function c2notes(t: TestNvim): Promise<string> {
  return t.lua<string>("return vim.fn.execute('messages')");
}
