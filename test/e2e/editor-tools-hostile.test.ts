/**
 * The editor's MCP server against an adversarial agent and a careless user: paths
 * that would freeze or flood the editor, locations in files that cannot be read as text, a
 * client flooding calls, a project file that never ends, a crash and a restart. Each case is a
 * real Neovim, the official MCP client on the server the chat offered (or a raw socket with the
 * token, as a hostile agent would use it), and a language server written in Lua.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { call, nvim, openChat, received, shareNvim } from "../support/chat.js";
import { FAKE_LS, connect, setupChat, tool, type Server } from "../support/editor-tools.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

/** `p`, or a failure naming `what` after `ms` (a frozen editor must fail the test, not hang it). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  ]);
}

function envOf(s: Server, name: string): string {
  return s.env.find((e) => e.name === name)!.value;
}

describe.each(bins)("Neovim $version", (bin) => {
  it("a path that is a FIFO, a directory, missing or too large is refused before the editor opens it", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t, { fs: { max_read_bytes: 1024 * 1024 } });
    await t.lua(FAKE_LS, [work]);
    execFileSync("mkfifo", [join(work, "pipe.lua")]);
    writeFileSync(join(work, "big.lua"), "x = 1\n".repeat(300_000));
    const { client } = await connect(server);
    const cases: [string, string, string][] = [
      ["document_symbols", "pipe.lua", "is not a regular file"],
      ["definition", "src", "is not a regular file"],
      ["hover", "nope.lua", "no such file"],
      ["references", "big.lua", "larger than"],
    ];
    for (const [name, path, why] of cases) {
      const r = await within(
        tool(client, name, { path, ...(name === "document_symbols" ? {} : { line: 1 }) }),
        8000,
        `${name} ${path}`,
      );
      expect(r.isError).toBe(true);
      expect(r.text).toContain(why);
      expect(await within(t.lua("return 1"), 2000, "the editor")).toBe(1);
    }
    // None of them became a buffer (no netrw listing, no empty "new file" buffer).
    const names = await t.lua<string[]>(
      "return vim.tbl_map(function(b) return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':t') end, vim.api.nvim_list_bufs())",
    );
    for (const n of ["pipe.lua", "src", "nope.lua", "big.lua"]) expect(names).not.toContain(n);
  });

  it("locations in a FIFO or a binary file are listed without their text; the host never blocks on them", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t);
    await t.lua(FAKE_LS, [work]);
    execFileSync("mkfifo", [join(work, "loc.fifo")]);
    writeFileSync(join(work, "bin.dat"), Buffer.from([0x61, 0, 0x62, 0x0a]));
    await t.nvim.command("edit src/a.lua");
    await t.lua("_G.fakels_definitions = { 'loc.fifo', 'bin.dat', 'src/b.lua' }");
    const { client } = await connect(server);
    const r = await within(
      tool(client, "definition", { path: "src/a.lua", line: 2, symbol: "greet" }),
      8000,
      "definition",
    );
    expect(r).toEqual({
      isError: false,
      text: "3 definitions:\nloc.fifo:1:1\nbin.dat:1:1\nsrc/b.lua:1:1  local M = {}",
    });
    // The Node host still answers (a read of the FIFO would have stopped it for good).
    expect(await within(call(t, "ping"), 3000, "the host")).toMatchObject({ pid: expect.any(Number) });
  });

  it("a symlink in the folder that points outside: its path is refused, and its buffer, diagnostics, selection and quickfix entries are not shown", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t);
    mkdirSync(join(t.dir, "outside"));
    writeFileSync(join(t.dir, "outside/secret.lua"), "local password = 'hunter2'\n");
    symlinkSync(join(t.dir, "outside/secret.lua"), join(work, "link.lua"));
    await t.nvim.command("edit link.lua");
    await t.lua(
      "vim.diagnostic.set(vim.api.nvim_create_namespace('x'), 0, { { lnum = 0, col = 6, message = 'hunter2 is weak', severity = 1 } })",
    );
    await t.lua("vim.api.nvim_feedkeys('V\\27', 'x', false)");
    await t.lua(
      "vim.fn.setqflist({}, ' ', { items = { { bufnr = vim.api.nvim_get_current_buf(), lnum = 1, text = 'hunter2' } } })",
    );
    const { client } = await connect(server);
    const answers = {
      open_buffers: await tool(client, "open_buffers"),
      diagnostics: await tool(client, "diagnostics"),
      selection: await tool(client, "selection"),
      quickfix: await tool(client, "quickfix"),
    };
    expect(answers).toEqual({
      open_buffers: { isError: false, text: "(1 outside the session's folders not shown)" },
      diagnostics: { isError: false, text: "(1 outside the session's folders not shown)" },
      selection: {
        isError: false,
        text: "The user's selection is in a file outside the session's folders; it is not shown.",
      },
      quickfix: { isError: false, text: 'Quickfix list ":setqflist()":\n(1 outside the session\'s folders not shown)' },
    });
    for (const [name, args] of [
      ["diagnostics", { path: "link.lua" }],
      ["definition", { path: "link.lua", line: 1 }],
      ["document_symbols", { path: "./src/../link.lua" }],
    ] as const) {
      const r = await tool(client, name, args);
      expect(r).toEqual({ isError: true, text: expect.stringContaining("is outside the session's folders") });
    }
  });

  it("the channel refuses a token's prefix, no token, a line that is not JSON and an endless line, and closes each connection", async () => {
    const t = await nvim(bin);
    const { server } = await setupChat(t);
    const path = envOf(server, "ACPCHAT_EDITOR_SOCKET");
    const token = envOf(server, "ACPCHAT_EDITOR_TOKEN");
    await t.lua(
      "_G.queries = 0; local q = require('acpchat.editor.editor_tools').query; require('acpchat.editor.editor_tools').query = function(p) _G.queries = _G.queries + 1; return q(p) end",
    );
    /** What the host answers to `send` (written in chunks) until it closes the connection. */
    const attempt = (chunks: string[]) =>
      new Promise<string>((resolve) => {
        const sock = createConnection(path);
        let got = "";
        sock.setEncoding("utf8");
        sock.on("data", (d: string) => (got += d));
        sock.on("error", () => undefined);
        sock.on("close", () => resolve(got));
        sock.once("connect", async () => {
          for (const c of chunks) {
            if (sock.destroyed) break;
            sock.write(c);
            await new Promise((r) => setTimeout(r, 5));
          }
        });
      });
    const call = JSON.stringify({ id: 1, tool: "open_buffers", args: {} });
    expect(
      await within(attempt([JSON.stringify({ token: token.slice(0, -1) }) + "\n" + call + "\n"]), 3000, "a prefix"),
    ).toContain("refused this server's token");
    expect(await within(attempt([call + "\n" + call + "\n"]), 3000, "no token")).toContain(
      "refused this server's token",
    );
    expect(await within(attempt(["{not json\n" + call + "\n"]), 3000, "not JSON")).toContain("not JSON");
    const endless = await within(
      attempt(Array.from({ length: 40 }, () => "x".repeat(64 * 1024))),
      5000,
      "an endless line",
    );
    expect(endless).toContain("a line longer than");
    expect(await t.lua("return _G.queries")).toBe(0);
  });

  it("a client flooding calls gets a few run at a time and the rest refused at once", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t);
    await t.lua(FAKE_LS, [work]);
    await t.nvim.command("edit src/a.lua");
    await t.lua("_G.fakels_delay = 300");
    // A hostile agent skips the server process and talks MCP to the channel itself, with the token.
    const sock = createConnection(envOf(server, "ACPCHAT_EDITOR_SOCKET"));
    const answers: { id?: number; text?: string; error?: boolean }[] = [];
    // Answers as the channel sends them: the token's "ok" line, then JSON-RPC lines.
    let buf = "";
    sock.setEncoding("utf8");
    sock.on("data", (d: string) => {
      buf += d;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const m = JSON.parse(buf.slice(0, nl)) as {
          id?: number;
          result?: { content?: { text: string }[]; isError?: boolean };
        };
        buf = buf.slice(nl + 1);
        if (typeof m.id === "number" && m.id > 0)
          answers.push({ id: m.id, text: m.result?.content?.[0]?.text, error: m.result?.isError === true });
      }
    });
    await new Promise((r) => sock.once("connect", r));
    const rpc = (m: Record<string, unknown>) => JSON.stringify({ jsonrpc: "2.0", ...m });
    const calls = [
      JSON.stringify({ token: envOf(server, "ACPCHAT_EDITOR_TOKEN") }),
      rpc({
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      }),
      rpc({ method: "notifications/initialized" }),
    ];
    for (let id = 1; id <= 200; id++)
      calls.push(
        rpc({
          id,
          method: "tools/call",
          params: { name: "definition", arguments: { path: "src/a.lua", line: 2, symbol: "greet" } },
        }),
      );
    sock.write(calls.join("\n") + "\n");
    await t.waitFor(
      async () => answers.filter((a) => a.id !== undefined).length === 200,
      "every call to be answered",
      20_000,
    );
    sock.destroy();
    const refused = answers.filter((a) => a.error && /busy/.test(a.text ?? ""));
    const done = answers.filter((a) => !a.error && a.text?.startsWith("src/b.lua:2:10"));
    expect(refused.length + done.length).toBe(200);
    expect(done.length).toBeGreaterThanOrEqual(4);
    expect(done.length).toBeLessThanOrEqual(40);
    expect(await t.lua<number>("return _G.fakels_max_inflight")).toBeLessThanOrEqual(4);
  });

  it("buffers the tools load stay out of the way: a broken FileType autocmd does not fail the tool, the user's :edit gets a swap file, at most 20 stay loaded", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t);
    await t.lua("vim.o.swapfile = true"); // the user's (the test's init turns it off)
    await t.lua(
      "vim.api.nvim_create_autocmd('FileType', { pattern = 'lua', callback = function() error('a broken ftplugin') end })",
    );
    await t.lua(FAKE_LS, [work]);
    const { client } = await connect(server);
    const r = await tool(client, "document_symbols", { path: "src/b.lua" });
    expect(r).toEqual({ isError: false, text: "Module M (1-5)\n  Function greet (name) (2-4)" });
    const b = await t.lua<number>("return vim.fn.bufnr(...)", [join(work, "src/b.lua")]);
    expect(await t.lua("return { vim.fn.buflisted(...), vim.bo[...].swapfile }", [b])).toEqual([0, false]);
    // The user opens it: it is theirs now, with the swap file their options ask for.
    await t.nvim.command("silent! edit src/b.lua");
    expect(await t.lua("return { vim.api.nvim_get_current_buf(), vim.bo.buflisted, vim.bo.swapfile }")).toEqual([
      b,
      true,
      true,
    ]);

    // An agent walking through 30 files: at most 20 stay loaded behind the user's back.
    for (let i = 0; i < 30; i++) writeFileSync(join(work, `m${i}.lua`), `local M${i} = {}\nreturn M${i}\n`);
    for (let i = 0; i < 30; i++)
      expect((await tool(client, "document_symbols", { path: `m${i}.lua` })).isError).toBe(false);
    const hidden = await t.lua<string[]>(
      "return vim.tbl_map(function(b) return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(b), ':t') end, vim.tbl_filter(function(b) return vim.api.nvim_buf_is_loaded(b) and not vim.bo[b].buflisted end, vim.api.nvim_list_bufs()))",
    );
    const tools = hidden.filter((n) => /^m\d+\.lua$/.test(n));
    expect(tools).toHaveLength(20);
    expect(tools).toContain("m29.lua");
    expect(tools).not.toContain("m0.lua");
    expect(await t.lua("return vim.fn.bufnr(...)", [join(work, "src/b.lua")])).toBe(b); // the user's stays
  });

  it("a diagnostic whose fields are not text (a linter's table for its code) is listed, and nothing waits on it", async () => {
    const t = await nvim(bin);
    const { server } = await setupChat(t);
    await t.nvim.command("edit src/a.lua");
    await t.lua(
      "vim.diagnostic.set(vim.api.nvim_create_namespace('odd'), 0, { { lnum = 0, col = 0, message = 'odd code', severity = 2, source = 'lint', code = { [1] = 1, [50] = 2 } } })",
    );
    const { client } = await connect(server);
    const s = Date.now();
    const r = await within(tool(client, "diagnostics", { path: "src/a.lua" }), 8000, "diagnostics");
    expect(r).toEqual({ isError: false, text: "1 diagnostic in 1 file:\nsrc/a.lua:1:1: warning: odd code [lint]" });
    expect(Date.now() - s).toBeLessThan(2000);
  });

  it("a buffer wiped while its tool waits for a language server: the tool says so, the user sees no error", async () => {
    const t = await nvim(bin);
    const { server, work } = await setupChat(t);
    writeFileSync(join(work, "notes.txt"), "plain\n");
    const { client } = await connect(server);
    // No server attaches to a .txt file: the tool waits a moment for one, and the buffer goes.
    const pending = tool(client, "definition", { path: "notes.txt", line: 1 });
    await t.waitFor(
      async () => (await t.lua<number>("return vim.fn.bufloaded(...)", [join(work, "notes.txt")])) === 1,
      "the file to be loaded",
    );
    await t.lua("vim.cmd('bwipeout! ' .. vim.fn.bufnr(...))", [join(work, "notes.txt")]);
    const s = Date.now();
    const r = await within(pending, 8000, "definition");
    expect(r).toEqual({ isError: true, text: expect.stringContaining("closed") });
    expect(Date.now() - s).toBeLessThan(3000);
    expect(await t.lua<string>("return vim.fn.execute('messages')")).not.toMatch(/Error|Invalid buffer/);
  });

  it("a crashed agent's channel closes; the restarted chat has a new token, and a call in flight when the chat closes ends at once", async () => {
    const t = await nvim(bin);
    const { c, server, work } = await setupChat(t, {}, { store: "$DIR/sessions.json" });
    const socket = envOf(server, "ACPCHAT_EDITOR_SOCKET");
    process.kill(await c.agentPid(), "SIGKILL");
    await c.waitState("crashed");
    await t.waitFor(
      async () => {
        try {
          readdirSync(join(socket, ".."));
          return false;
        } catch {
          return true;
        }
      },
      "the crashed chat's channel to close",
      5000,
    );

    await t.nvim.command("AcpChat");
    await c.ready();
    // The session continues (session/load), with a new channel and token.
    const again = (received(t.dir, "session/load").at(-1)!.mcpServers as Server[]).find((s) => s.name === "nvim")!;
    expect(envOf(again, "ACPCHAT_EDITOR_TOKEN")).not.toBe(envOf(server, "ACPCHAT_EDITOR_TOKEN"));
    expect(envOf(again, "ACPCHAT_EDITOR_SOCKET")).not.toBe(socket);
    // The old server, started again: it finds no channel and ends (or answers that it is closed).
    const old = await connect(server)
      .then((o) => tool(o.client, "open_buffers"))
      .catch((e: Error) => ({ isError: true, text: e.message }));
    expect(old).toEqual({ isError: true, text: expect.stringMatching(/is closed|Connection closed/) });

    // A slow language server, and the chat closes while a call waits on it.
    await t.lua(FAKE_LS, [work]);
    await t.nvim.command("edit src/a.lua");
    await t.lua("_G.fakels_delay = 4000");
    const { client } = await connect(again);
    const pending = tool(client, "definition", { path: "src/a.lua", line: 2, symbol: "greet" }).catch((e: Error) => ({
      isError: true,
      text: e.message,
    }));
    await t.waitFor(
      async () => (await t.lua<number>("return _G.fakels_inflight or 0")) > 0,
      "the request to reach the server",
    );
    const s = Date.now();
    await t.nvim.command("AcpChatClose");
    const r = await within(pending, 3000, "the call in flight");
    expect(r.isError).toBe(true);
    expect(Date.now() - s).toBeLessThan(2000);
  });

  it("a project file that is a FIFO (an agent can make one) or too large is not read: :AcpChat returns, the user is told", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    execFileSync("mkfifo", [join(work, ".acpchat.lua")]);
    const { c } = await within(setupChat(t), 10_000, "the chat to open");
    expect(await c.state()).toBe("ready");
    expect(await t.lua<string>("return vim.fn.execute('messages')")).toContain(".acpchat.lua is not a regular file");
    await t.nvim.command("AcpChatClose");

    execFileSync("rm", [join(work, ".acpchat.lua")]);
    writeFileSync(join(work, ".acpchat.lua"), `return {}\n${"-- padding\n".repeat(200_000)}`);
    await within(
      openChat(t, "AcpChat!").then((d) => d.ready()),
      10_000,
      "the second chat to open",
    );
    expect(await t.lua<string>("return vim.fn.execute('messages')")).toContain(".acpchat.lua is larger than");
  });

  it("a project file that never ends is stopped: :AcpChat returns, the chat starts without it, the user is told", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const file = join(work, ".acpchat.lua");
    writeFileSync(file, "local n = 0\nwhile true do n = n + 1 end\n");
    // Trusted the way :trust does it (by the buffer: Neovim 0.10 takes no path for 'allow').
    await t.lua("vim.cmd.edit(...); vim.secure.trust({ action = 'allow', bufnr = 0 }); vim.cmd('bwipeout')", [file]);
    const { c } = await within(setupChat(t), 10_000, "the chat to open");
    expect(await c.state()).toBe("ready");
    expect(await t.lua<string>("return vim.fn.execute('messages')")).toContain(".acpchat.lua: stopped");
  });
});
