/**
 * Completion in the prompt, for every completion engine: `/` commands and
 * `@` files served by the in-process language server "acpchat" attached to each prompt buffer,
 * asked as completion engines ask it (textDocument/completion through Neovim's LSP client, and
 * vim.lsp.completion typing in the prompt on 0.11+), the omnifunc menu on 0.10, the server's life
 * with its chat, and the file list made without blocking the editor.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { attach } from "neovim";
import { describe, expect, it } from "vitest";
import { editorLateness, nvimBins, type TestNvim } from "../support/nvim.js";
import { openChat, withAgents, type Chat, shareNvim, ownNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const COMMANDS = [
  { name: "review", description: "Review the diff", input: { hint: "branch" } },
  { name: "init", description: "Set up" },
];

interface Item {
  label: string;
  kind: number;
  detail?: string;
  labelDetails?: { detail?: string };
  documentation?: { kind: string; value: string };
  filterText?: string;
  textEdit: {
    newText: string;
    range: { start: { line: number; character: number }; end: { line: number; character: number } };
  };
}
interface Answer {
  err?: { code: number; message: string };
  result?: { isIncomplete: boolean; items: Item[] };
  ms: number;
}

/**
 * Put `text` in the chat's prompt and ask its language server for completion at the end of it,
 * through Neovim's LSP client (vim.lsp.buf_request, as nvim-cmp and blink.cmp do); the answer and
 * how long it took, measured inside Neovim.
 */
async function lspAsk(c: Chat, text: string, method = "textDocument/completion"): Promise<Answer> {
  await c.t.lua(
    `local buf, text, method = ...
     local lines = vim.split(text, "\\n")
     vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
     _G.lsp_answer = nil
     local t0 = vim.uv.hrtime()
     vim.lsp.buf_request(buf, method, { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = #lines - 1, character = select(4, ...) } }, function(err, result)
       _G.lsp_answer = { err = err, result = result, ms = (vim.uv.hrtime() - t0) / 1e6 }
     end)`,
    // The position in UTF-16 code units (Neovim's LSP client's default), as JS counts them.
    [c.promptBuf, text, method, text.split("\n").at(-1)!.length],
  );
  return c.t.waitFor(
    () => c.t.lua<Answer | null>("return _G.lsp_answer"),
    `the answer to ${method} for ${JSON.stringify(text)}`,
    5000,
  );
}

const labels = (a: Answer) => (a.result?.items ?? []).map((i) => i.label);

/** The "acpchat" clients: their ids and the buffers each is attached to. */
function servers(t: TestNvim): Promise<{ id: number; bufs: number[]; root: string }[]> {
  return t.lua(`local out = {}
    for _, c in ipairs(vim.lsp.get_clients({ name = "acpchat" })) do
      table.insert(out, { id = c.id, bufs = vim.tbl_keys(c.attached_buffers), root = c.config.root_dir })
    end
    return out`);
}

/**
 * What the prompt's completion menu shows: the items that match what is typed (Vim narrows the
 * menu itself; 0.12 marks them `match`), their menu texts, how many rows the menu has, the line.
 */
function menu(t: TestNvim): Promise<{ words: string[]; menus: string[]; rows: number; line: string }> {
  return t.lua(`local info = vim.fn.complete_info({ "items", "matches", "pum_visible" })
    local words, menus = {}, {}
    local line = vim.api.nvim_get_current_line()
    local typed = line:sub(1, vim.api.nvim_win_get_cursor(0)[2]):match("[/@][^%s]*$") or ""
    for _, it in ipairs(info.items or {}) do
      if it.match ~= false and vim.startswith(it.word, typed) then table.insert(words, it.word); table.insert(menus, it.menu or "") end
    end
    local pos = vim.fn.pum_getpos()
    return { words = words, menus = menus, rows = pos.size or 0, line = line }`);
}

function project(t: TestNvim): string {
  const work = join(t.dir, "work");
  writeFileSync(join(work, "main.py"), "print('hi')\n");
  writeFileSync(join(work, "README.md"), "# readme\n");
  mkdirSync(join(work, "img"));
  writeFileSync(join(work, "img", "shot.png"), Buffer.alloc(3 * 1024, 1));
  mkdirSync(join(work, "node_modules", "dep"), { recursive: true });
  writeFileSync(join(work, "node_modules", "dep", "index.js"), "x\n");
  // A symlink to a file of the project is offered; one that leads out of it is not.
  symlinkSync("main.py", join(work, "alias.py"));
  writeFileSync(join(t.dir, "outside.txt"), "secret\n");
  symlinkSync(join(t.dir, "outside.txt"), join(work, "escape.txt"));
  // Names a mention cannot carry (it ends at a space or an @): left to :AcpChatAdd.
  writeFileSync(join(work, "my notes.txt"), "x\n");
  writeFileSync(join(work, "icon@2x.png"), "x\n");
  return work;
}

async function chatWithCommands(t: TestNvim): Promise<Chat> {
  const c = await openChat(t);
  await t.waitFor(
    async () => (((await c.status()).commands as unknown[] | undefined) ?? []).length === 2,
    "the agent's commands",
  );
  await t.waitFor(async () => (await servers(t)).length > 0, "the prompt's language server");
  return c;
}

async function chatWithCommandsNoServer(t: TestNvim): Promise<Chat> {
  const c = await openChat(t);
  await t.waitFor(
    async () => (((await c.status()).commands as unknown[] | undefined) ?? []).length === 2,
    "the agent's commands",
  );
  return c;
}

describe.each(bins)("Neovim $version", (bin) => {
  it('the prompt\'s language server "acpchat": / commands and @ files with kind, detail and documentation; attached to prompts only; gone with its chat', async () => {
    const t = await withAgents(bin, { fake: { commands: COMMANDS } });
    project(t);
    // A user's LspAttach autocmd that maps a key in every buffer a server attaches to.
    await t.lua(`_G.attached = {}
      vim.api.nvim_create_autocmd("LspAttach", { callback = function(ev)
        local client = vim.lsp.get_client_by_id(ev.data.client_id)
        table.insert(_G.attached, client.name)
        vim.keymap.set("n", "gd", vim.lsp.buf.definition, { buffer = ev.buf })
      end })`);
    await t.nvim.command("edit main.py");
    const c = await chatWithCommands(t);

    const [srv] = await servers(t);
    expect(srv!.bufs).toEqual([c.promptBuf]);
    expect(srv!.root).toBe(join(t.dir, "work"));
    expect(await t.lua("return _G.attached")).toEqual(["acpchat"]);
    expect(await t.lua("return #vim.lsp.get_clients({ bufnr = ... })", [c.buf])).toBe(0);
    // The plugin's omnifunc stays (Neovim sets vim.lsp.omnifunc only where none is set).
    expect(await t.lua("return vim.bo[...].omnifunc", [c.promptBuf])).toBe("v:lua.require'acpchat.complete'.omnifunc");

    const cmd = await lspAsk(c, "/re");
    expect(cmd.result).toEqual({
      isIncomplete: false,
      items: [
        {
          label: "/review",
          labelDetails: { detail: " branch" },
          kind: 3,
          detail: "Review the diff",
          documentation: { kind: "markdown", value: "**/review** `branch`\n\nReview the diff" },
          filterText: "/review",
          sortText: "0001",
          textEdit: { newText: "/review", range: { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } } },
        },
      ],
    });
    expect(labels(await lspAsk(c, "  /"))).toEqual(["/review", "/init"]);
    // A command is only the first thing in the prompt.
    expect(labels(await lspAsk(c, "see /re"))).toEqual([]);
    expect(labels(await lspAsk(c, "first line\n/re"))).toEqual([]);

    const all = await lspAsk(c, "look at @");
    // The server matches (anywhere in the path): every `@` answer is incomplete, filtered by
    // what was typed, so a client asks again as more is typed instead of narrowing by prefix.
    expect(all.result!.isIncomplete).toBe(true);
    expect(all.result!.items.every((i) => i.filterText === "@")).toBe(true);
    // Top-level files first, by name; nothing from node_modules, nor the symlink out.
    expect(labels(all)).toEqual(["@alias.py", "@main.py", "@README.md", "@img/shot.png"]);
    const py = await lspAsk(c, "look at @ma");
    expect(py.result!.items).toEqual([
      expect.objectContaining({
        label: "@main.py",
        kind: 17,
        detail: "py file · 12 B",
        filterText: "@ma",
        textEdit: { newText: "@main.py", range: { start: { line: 0, character: 8 }, end: { line: 0, character: 11 } } },
      }),
    ]);
    const png = await lspAsk(c, "é😀 @img/");
    // The folder itself first (its files as links), then its files.
    expect(labels(png)[0]).toBe("@img/");
    expect(png.result!.items.filter((i) => i.kind === 17)).toEqual([
      expect.objectContaining({
        label: "@img/shot.png",
        detail: "png image · 3.0 KB",
        documentation: {
          kind: "markdown",
          value: expect.stringMatching(
            /^`img\/shot\.png`\n\npng image · 3\.0 KB \(image\/png\)\n\nattached as an image/,
          ),
        },
        // UTF-16 positions: é is one unit, the emoji two.
        textEdit: {
          newText: "@img/shot.png",
          range: { start: { line: 0, character: 4 }, end: { line: 0, character: 9 } },
        },
      }),
    ]);
    // Asked before the list is made (dropped here; as when @ is typed the moment a chat opens):
    // the answer waits for it instead of coming back empty, and the editor does not wait.
    await t.lua("require('acpchat.complete.project_files').reset()");
    const early = await lspAsk(c, "@ma");
    expect(labels(early)).toEqual(["@main.py"]);
    // A name that is no prefix still matches inside the path.
    expect(labels(await lspAsk(c, "@shot"))).toEqual(["@img/shot.png"]);
    // `@` inside a word is no mention.
    expect(labels(await lspAsk(c, "mail a@ma"))).toEqual([]);
    // Anything but completion is answered (not served), never left waiting (asked of the server
    // itself: Neovim's client does not send what the server did not announce).
    await t.lua(`_G.hover = nil
      vim.lsp.get_clients({ name = "acpchat" })[1].rpc.request("textDocument/hover", {}, function(err) _G.hover = err end)`);
    expect((await t.waitFor(() => t.lua<{ code: number } | null>("return _G.hover"), "the hover answer")).code).toBe(
      -32601,
    );

    // A second chat has its own server, on its own prompt.
    await t.nvim.command("AcpChat!");
    await t.waitFor(async () => (await servers(t)).length === 2, "the second chat's server");
    const two = await servers(t);
    expect(new Set(two.flatMap((s) => s.bufs)).size).toBe(2);

    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => (await servers(t)).length === 1, "the closed chat's server to stop");
    await t.lua("vim.api.nvim_set_current_buf(...)", [c.promptBuf]);
    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => (await servers(t)).length === 0, "every prompt server to stop");
    expect(await t.lua("return #vim.lsp.get_clients()")).toBe(0);
    const msgs = await t.lua<string>("return vim.fn.execute('messages')");
    expect(msgs).not.toMatch(/E\d+:|rror|quit with exit code/);
  });

  it("/ typed before the agent told its commands: the answer waits for them", async () => {
    const t = await withAgents(bin, { fake: { commands: COMMANDS, delays: { initialize: 700 } } });
    await t.lua("require('acpchat.complete.prompt_lsp').commands_wait_ms = 5000");
    const c = await openChat(t);
    await t.waitFor(async () => (await servers(t)).length > 0, "the prompt's language server");
    expect((await c.status()).commands ?? []).toEqual([]);
    const a = await lspAsk(c, "/re");
    expect(labels(a)).toEqual(["/review"]);
  });

  it("/ typed the moment the chat opens: the menu opens once the agent told its commands", async () => {
    ownNvim(); // attaches a UI
    const t = await withAgents(bin, { fake: { commands: COMMANDS, delays: { initialize: 500 } } });
    await t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
    const c = await openChat(t);
    await c.focusPrompt();
    await t.nvim.input("<Esc>cc/");
    expect((await c.status()).commands ?? []).toEqual([]);
    await t.waitFor(async () => (await menu(t)).words.join() === "/review,/init", "the agent's commands in the menu");
    expect((await menu(t)).line).toBe("/");
    await t.nvim.input("<C-e><Esc>");
  });

  it('completion.lsp = false: no server, the omnifunc\'s menu; completion.menu = "none" or an engine loaded: no menu of ours, <C-x><C-o> still completes', async () => {
    ownNvim(); // attaches a UI
    const t = await withAgents(bin, { fake: { commands: COMMANDS } }, { completion: { lsp: false } });
    project(t);
    await t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
    const c = await chatWithCommandsNoServer(t);
    expect(await t.lua("return require('acpchat.chat.registry').get(...).menu_mode", [c.id])).toBe("omnifunc");
    await c.focusPrompt();
    await t.nvim.input("<Esc>ccsee @ma");
    await t.waitFor(async () => (await menu(t)).words.join() === "@main.py", "the omnifunc's menu");
    await t.nvim.input("<C-e><Esc>");
    expect(await servers(t)).toEqual([]);

    for (const how of ["menu", "engine"]) {
      if (how === "menu")
        await t.lua("require('acpchat').setup(...)", [
          {
            agents: (await t.lua("return require('acpchat.config').options.agents")) as object,
            completion: { menu: "none" },
          },
        ]);
      else {
        await t.lua("require('acpchat').setup(...)", [
          { agents: (await t.lua("return require('acpchat.config').options.agents")) as object },
        ]);
        // What nvim-cmp's module looks like to the plugin once loaded (it asks the server itself).
        await t.lua("package.loaded['cmp'] = {}");
      }
      await t.nvim.command("AcpChat!");
      const d = await chatWithCommands(t);
      expect(await t.lua("return require('acpchat.chat.registry').get(...).menu_mode", [d.id])).toBe(null);
      await d.focusPrompt();
      await t.nvim.input("<Esc>ccsee @ma");
      await new Promise((r) => setTimeout(r, 400));
      expect((await menu(t)).words).toEqual([]);
      // One match and the user's own 'completeopt' (no menuone): Vim puts it in at once.
      await t.nvim.input("<C-x><C-o>");
      await t.waitFor(async () => (await menu(t)).line === "see @main.py", "<C-x><C-o>'s match in the prompt");
      await t.nvim.input("<Esc>");
    }
  });

  it("in a git work tree, @ lists what git lists (ignored files left out); a file made later shows up on a later @", async () => {
    const t = await withAgents(bin, { fake: {} });
    const work = project(t);
    execFileSync("git", ["init", "-q"], { cwd: work });
    writeFileSync(join(work, ".gitignore"), "build/\nnode_modules/\n");
    mkdirSync(join(work, "build"));
    writeFileSync(join(work, "build", "out.js"), "x\n");
    await t.lua("require('acpchat.complete.project_files').stale_ms = 300");
    const c = await openChat(t);
    await t.waitFor(async () => (await servers(t)).length > 0, "the prompt's language server");
    await t.waitFor(
      async () =>
        (await t.lua<{ done: boolean } | null>("return require('acpchat.complete.project_files').info(...)", [work]))
          ?.done,
      "a whole list",
    );
    const first = await lspAsk(c, "@");
    expect(labels(first).sort()).toEqual(["@.gitignore", "@README.md", "@alias.py", "@img/shot.png", "@main.py"]);
    writeFileSync(join(work, "later.txt"), "new\n");
    await t.waitFor(async () => labels(await lspAsk(c, "@la")).includes("@later.txt"), "the new file", 5000);
  });

  it("typing / and @ in the prompt opens Neovim's own menu (vim.lsp.completion on 0.11+, the omnifunc on 0.10)", async () => {
    ownNvim(); // attaches a UI
    const t = await withAgents(bin, { fake: { commands: COMMANDS } });
    project(t);
    await t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
    const c = await chatWithCommands(t);
    const lsp = await t.lua<boolean>("return vim.lsp.completion ~= nil");
    await t.waitFor(
      async () =>
        (await t.lua("return require('acpchat.chat.registry').get(...).menu_mode", [c.id])) ===
        (lsp ? "lsp" : "omnifunc"),
      "the menu's way",
    );
    await c.focusPrompt();
    await t.nvim.input("<Esc>ccsee @");
    const m = await t.waitFor(async () => {
      const x = await menu(t);
      return x.words.length > 0 && x;
    }, "the menu after @");
    expect(m.words).toEqual(["@alias.py", "@main.py", "@README.md", "@img/shot.png"]);
    expect(m.rows).toBe(4);
    // Nothing is put in the prompt until an item is picked.
    expect(m.line).toBe("see @");
    expect(m.menus[3]).toBe("png image · 3.0 KB");
    await t.nvim.input("ma");
    await t.waitFor(async () => {
      const x = await menu(t);
      return x.words.join() === "@main.py" && x.rows === 1;
    }, "the menu narrowed to @main.py");
    await t.nvim.input("<C-n><C-y>");
    await t.waitFor(async () => (await menu(t)).line === "see @main.py", "the picked file in the prompt");
    await t.nvim.input("<Esc>cc/");
    await t.waitFor(async () => (await menu(t)).words.join() === "/review,/init", "the agent's commands after /");
    await t.nvim.input("i<C-n><C-y>");
    await t.waitFor(async () => (await menu(t)).line === "/init", "the picked command");
    // / inside the text opens nothing.
    await t.nvim.input(" and/");
    await new Promise((r) => setTimeout(r, 300));
    expect((await menu(t)).words).toEqual([]);
    // The server stopped by hand (:LspStop): the omnifunc opens the menu from then on.
    await t.nvim.input("<Esc>");
    await t.lua("vim.lsp.get_clients({ name = 'acpchat' })[1]:stop()");
    await t.waitFor(
      async () => (await t.lua("return require('acpchat.chat.registry').get(...).menu_mode", [c.id])) === "omnifunc",
      "the omnifunc's menu",
    );
    await t.nvim.input("ccsee @mai");
    await t.waitFor(async () => (await menu(t)).words.join() === "@main.py", "the omnifunc's menu after @");
    await t.nvim.input("<Esc>");
  });

  it("@perm finds src/permission.lua while typing, best first, in Neovim's own menu (vim.lsp.completion on 0.11+, the omnifunc on 0.10) and in the server's answer", async () => {
    ownNvim(); // attaches a UI
    const t = await withAgents(bin, { fake: { commands: COMMANDS } });
    const work = project(t);
    for (const [dir, file] of [
      ["src", "permission.lua"],
      ["docs", "superman.md"],
      ["lib", "experiment.js"],
      ["lib", "other.js"],
    ] as const) {
      mkdirSync(join(work, dir), { recursive: true });
      writeFileSync(join(work, dir, file), "x\n");
    }
    await t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
    const c = await chatWithCommands(t);
    await t.waitFor(
      async () =>
        (await t.lua<{ done: boolean } | null>("return require('acpchat.complete.project_files').info(...)", [work]))
          ?.done,
      "the file list",
    );
    // The name starts with it, then the path holds it, then its letters in order.
    const best = ["@src/permission.lua", "@docs/superman.md", "@lib/experiment.js"];
    const answer = await lspAsk(c, "see @perm");
    expect(labels(answer)).toEqual(best);
    expect(answer.result!.isIncomplete).toBe(true);
    const lsp = await t.lua<boolean>("return vim.lsp.completion ~= nil");
    await t.waitFor(
      async () =>
        (await t.lua("return require('acpchat.chat.registry').get(...).menu_mode", [c.id])) ===
        (lsp ? "lsp" : "omnifunc"),
      "the menu's way",
    );
    await c.focusPrompt();
    // Typed a key at a time, as a user types: the menu follows every key.
    const shown = () =>
      t.lua<{ words: string[]; visible: boolean }>(`local info = vim.fn.complete_info({ "items", "pum_visible" })
        local words = {}
        for _, it in ipairs(info.items or {}) do if it.match ~= false then table.insert(words, it.word) end end
        return { words = words, visible = info.pum_visible == 1 }`);
    await t.nvim.input("<Esc>ccsee @");
    await t.waitFor(async () => (await shown()).visible, "the menu after @");
    for (const key of ["p", "e", "r", "m"]) {
      await t.nvim.input(key);
      await new Promise((r) => setTimeout(r, 60));
    }
    await t.waitFor(async () => {
      const m = await shown();
      return m.visible && m.words.join() === best.join();
    }, "@perm's matches in the menu, best first");
    await t.nvim.input("<C-n><C-y>");
    await t.waitFor(async () => (await menu(t)).line === "see @src/permission.lua", "the picked file in the prompt");
    await t.nvim.input("<Esc>");
  });

  it("one candidate opens the menu too (0.10's global 'completeopt' has no menuone: it is added while the menu is open)", async () => {
    ownNvim(); // attaches a UI
    const t = await withAgents(bin, { fake: { commands: [COMMANDS[1]!] } });
    writeFileSync(join(t.dir, "work", "only.txt"), "x\n");
    await t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
    const c = await openChat(t);
    await t.waitFor(
      async () => (((await c.status()).commands as unknown[] | undefined) ?? []).length === 1,
      "the agent's command",
    );
    await t.waitFor(async () => (await servers(t)).length > 0, "the prompt's language server");
    const lsp = await t.lua<boolean>("return vim.lsp.completion ~= nil");
    await t.waitFor(
      async () =>
        (await t.lua("return require('acpchat.chat.registry').get(...).menu_mode", [c.id])) ===
        (lsp ? "lsp" : "omnifunc"),
      "the menu's way",
    );
    const cot = await t.lua<string>("return vim.go.completeopt");
    expect(cot).not.toContain("menuone");
    await c.focusPrompt();
    await t.nvim.input("<Esc>ccsee @");
    const m = await t.waitFor(async () => {
      const x = await menu(t);
      return x.rows > 0 && x;
    }, "the menu of one file after @");
    expect(m.words).toEqual(["@only.txt"]);
    expect(m.line).toBe("see @");
    await t.nvim.input("<C-n><C-y>");
    await t.waitFor(async () => (await menu(t)).line === "see @only.txt", "the picked file");
    await t.nvim.input("<Esc>cc/");
    await t.waitFor(async () => (await menu(t)).rows === 1, "the menu of one command after /");
    await t.nvim.input("<Esc>");
    await t.waitFor(
      async () => (await t.lua<string>("return vim.go.completeopt")) === cot,
      "the user's 'completeopt' back",
    );
  });

  it("/ leaves out an agent's command whose name cannot be typed as one word (a newline, a space)", async () => {
    const t = await withAgents(bin, {
      fake: { commands: [{ name: "evil\nname", description: "x" }, { name: "sp ace", description: "y" }, ...COMMANDS] },
    });
    const c = await openChat(t);
    await t.waitFor(
      async () => (((await c.status()).commands as unknown[] | undefined) ?? []).length === 4,
      "the agent's commands",
    );
    await t.waitFor(async () => (await servers(t)).length > 0, "the prompt's language server");
    expect(labels(await lspAsk(c, "/"))).toEqual(["/review", "/init"]);
    const omni = await t.lua<string[]>(
      "return vim.tbl_map(function(i) return i.word end, require('acpchat.complete').candidates(require('acpchat.complete').chat_of(...), '/'))",
      [c.promptBuf],
    );
    expect(omni).toEqual(["/review", "/init"]);
  });

  it("a server restarted by the user (:lsp restart, lspconfig's :LspRestart) stops with its chat too", async () => {
    const t = await withAgents(bin, { fake: { commands: COMMANDS } });
    const c = await chatWithCommands(t);
    const [first] = await servers(t);
    if (bin.version.includes("0.10")) {
      // What lspconfig's :LspRestart does: stop the client, start its config again on its buffers.
      await t.lua(
        `local client = vim.lsp.get_client_by_id(...)
        local config, bufs = client.config, vim.tbl_keys(client.attached_buffers)
        client.stop()
        vim.defer_fn(function() for _, b in ipairs(bufs) do vim.lsp.start(config, { bufnr = b }) end end, 200)`,
        [first!.id],
      );
    } else await t.nvim.command("lsp restart acpchat");
    await t.waitFor(async () => {
      const now = await servers(t);
      return now.length === 1 && now[0]!.id !== first!.id && now[0]!.bufs.includes(c.promptBuf);
    }, "the restarted server");
    expect(labels(await lspAsk(c, "/re"))).toEqual(["/review"]);
    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => (await servers(t)).length === 0, "the restarted server to stop with its chat", 3000);
  });

  it("listing a git work tree runs no command from its .git/config (core.fsmonitor: anyone who wrote the folder could set it)", async () => {
    ownNvim(); // measures the editor's lateness
    const t = await withAgents(bin, { fake: {} });
    const work = join(t.dir, "work");
    writeFileSync(join(work, "a.txt"), "x\n");
    execFileSync("git", ["init", "-q"], { cwd: work });
    const marker = join(t.dir, "fsmonitor-ran");
    const hook = join(t.dir, "hook.sh");
    writeFileSync(hook, `#!/bin/sh\necho ran >> '${marker}'\n`, { mode: 0o755 });
    execFileSync("git", ["config", "core.fsmonitor", hook], { cwd: work });
    const c = await openChat(t);
    await t.waitFor(async () => (await servers(t)).length > 0, "the prompt's language server");
    await t.waitFor(
      async () =>
        (await t.lua<{ done: boolean } | null>("return require('acpchat.complete.project_files').info(...)", [work]))
          ?.done,
      "the file list",
    );
    expect(labels(await lspAsk(c, "@"))).toEqual(["@a.txt"]);
    expect(existsSync(marker)).toBe(false);
  });

  it.each(["walked", "in a git work tree"])(
    "@ offers only names a mention can carry to the agent (%s): not invalid UTF-8, a Unicode space, a trailing stop, a dangling symlink; a symlink loop is no folder to list",
    async (how) => {
      const t = await withAgents(bin, { fake: {} });
      const work = join(t.dir, "work");
      writeFileSync(join(work, "ok.txt"), "x\n");
      writeFileSync(join(work, "été.md"), "x\n");
      // Bytes that are no UTF-8: the prompt would send another name (U+FFFD or Latin-1 letters).
      writeFileSync(Buffer.concat([Buffer.from(`${work}/bad`), Buffer.from([0xff, 0xfe]), Buffer.from(".txt")]), "x\n");
      writeFileSync(Buffer.concat([Buffer.from(`${work}/cut`), Buffer.from([0xe2, 0x82]), Buffer.from(".txt")]), "x\n");
      // The prompt ends a mention at any space JavaScript's \s knows, and drops a trailing stop.
      writeFileSync(join(work, "no\u00a0break.txt"), "x\n");
      writeFileSync(join(work, "ideo\u3000space.txt"), "x\n");
      writeFileSync(join(work, "new\nline.txt"), "x\n");
      writeFileSync(join(work, "notes."), "x\n");
      writeFileSync(join(work, "paren)"), "x\n");
      mkdirSync(join(work, "loop"));
      symlinkSync("..", join(work, "loop", "up"));
      // A symlink that leads nowhere is no file to send.
      symlinkSync("nowhere", join(work, "dangling"));
      if (how !== "walked") execFileSync("git", ["init", "-q"], { cwd: work });
      const c = await openChat(t);
      await t.waitFor(async () => (await servers(t)).length > 0, "the prompt's language server");
      await t.waitFor(
        async () =>
          (await t.lua<{ done: boolean } | null>("return require('acpchat.complete.project_files').info(...)", [work]))
            ?.done,
        "the file list",
      );
      expect(labels(await lspAsk(c, "@")).sort()).toEqual(["@ok.txt", "@été.md"].sort());
      // The omnifunc (Neovim 0.10's menu) offers the same.
      const omni = await t.lua<string[]>(
        "return vim.tbl_map(function(i) return i.word end, require('acpchat.complete').candidates(require('acpchat.complete').chat_of(...), '@'))",
        [c.promptBuf],
      );
      expect(omni.sort()).toEqual(["@ok.txt", "@été.md"].sort());
    },
  );

  it.each(["walked", "in a git work tree"])(
    "a folder of 30,000 files (%s): the editor keeps answering while @ is listed, and @ answers at once with what is known",
    async (how) => {
      const t = await withAgents(bin, { fake: {} });
      const work = join(t.dir, "work");
      for (let d = 0; d < 150; d++) {
        const dir = join(work, `d${String(d).padStart(3, "0")}`, "sub");
        mkdirSync(dir, { recursive: true });
        for (let f = 0; f < 200; f++) writeFileSync(join(dir, `file${f}.txt`), "");
      }
      if (how !== "walked") execFileSync("git", ["init", "-q"], { cwd: work });
      const addr = await t.lua<string>("return vim.fn.serverstart()");
      const other = attach({ socket: addr });
      // How late a 5 ms timer inside Neovim fires: how long its loop was kept busy.
      const stopLate = await editorLateness(t);
      const c = await openChat(t);
      const pings: number[] = [];
      const asks: Answer[] = [];
      const cwd = join(t.dir, "work");
      await t.waitFor(async () => (await servers(t)).length > 0, "the prompt's language server");
      // The list made when the chat opened is dropped: the first @ below starts listing anew, so
      // it is asked for while the folder is listed, however fast this machine is. Meanwhile a
      // second client asks Neovim for 1 every 5 ms.
      await t.lua(
        "require('acpchat.complete.project_files').reset(); require('acpchat.complete.project_files').busiest_ms = 0",
      );
      let listing = true;
      const pinger = (async () => {
        while (listing) {
          const t0 = performance.now();
          await other.eval("1");
          pings.push(performance.now() - t0);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      for (;;) {
        const a = await lspAsk(c, "@d1");
        const info = await t.lua<{ done: boolean; count: number } | null>(
          "return require('acpchat.complete.project_files').info(...)",
          [cwd],
        );
        // The first one started the listing; the others count when it was still going after them.
        if (asks.length === 0 || !info?.done) asks.push(a);
        if (info?.done) break;
      }
      listing = false;
      await pinger;
      await other.close();
      const lateMax = (await stopLate()).lateMs;
      // The longest the loop was held by one piece of the listing, matching or describing.
      const busiest = await t.lua<number>("return require('acpchat.complete.project_files').busiest_ms");
      const info = await t.lua<{ count: number; took_ms: number }>(
        "return require('acpchat.complete.project_files').info(...)",
        [cwd],
      );
      expect(info.count).toBe(30_000);
      pings.sort((a, b) => a - b);
      // The first found nothing yet and waited for the list (asynchronously); the others answered
      // at once with what was known.
      const firstAsk = asks[0]!.ms;
      const worstAsk = Math.max(0, ...asks.slice(1).map((a) => a.ms));
      process.stderr.write(
        `[prompt-completion ${bin.version}, ${how}] listed ${info.count} files in ${Math.round(info.took_ms)} ms; ${asks.length} @ answers meanwhile (the first, which waited for the list, ${firstAsk.toFixed(0)} ms; the others at most ${worstAsk.toFixed(1)} ms); ${pings.length} answers to a second client, worst ${pings.at(-1)!.toFixed(1)} ms; loop late at most ${lateMax.toFixed(1)} ms; longest slice of the work ${busiest.toFixed(1)} ms\n`,
      );
      expect(asks.length).toBeGreaterThan(0);
      expect(pings.length).toBeGreaterThan(3);
      // While it lists: answered with what is known, marked incomplete so the engine asks again.
      expect(asks.every((a) => a.result!.isIncomplete)).toBe(true);
      // The synchronous globpath this replaced held the editor 180 ms for `@d1` and 420 ms for `@`
      // in this folder, at every keystroke. Now no piece of the work holds it for long (measured
      // around each piece, so other load on the machine hardly counts); what a second client and
      // the loop see is typically 1-50 ms on a quiet machine (the first use of vim.lsp loads its
      // modules, ~12 ms), bounded loosely here because this machine is shared.
      // CPU time, yet a loaded 2-core machine inflates it (0.10 read 31 ms once in a loaded CI
      // run, 10 ms quiet): held under the plugin's 50 ms bound for any block of the editor.
      expect(busiest).toBeLessThan(45);
      expect(worstAsk).toBeLessThan(400);
      expect(firstAsk).toBeLessThan(1500);
      expect(pings.at(-1)!).toBeLessThan(400);
      expect(lateMax).toBeLessThan(400);
      // Once listed: the full answer, capped (the rest come as more is typed).
      const whole = await lspAsk(c, "@d1");
      expect(whole.result!.items.filter((i) => i.kind === 17).length).toBe(200);
      expect(whole.result!.isIncomplete).toBe(true);
      // Best first: the paths that start with what is typed, then the fuzzier matches.
      expect(
        labels(await lspAsk(c, "@d149/sub/file19"))
          .slice(0, 11)
          .sort(),
      ).toEqual(["@d149/sub/file19.txt", ...Array.from({ length: 10 }, (_, i) => `@d149/sub/file19${i}.txt`)].sort());
    },
  );
});
