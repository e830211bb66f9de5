/** The editor as the agent's workspace, end to end: buffers, writes, review, permissions, terminals. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins, type NvimBin, type TestNvim } from "../support/nvim.js";
import {
  bufnr,
  openChat,
  questions,
  replies,
  reviews,
  setScenario,
  withAgents,
  wrote,
  shareNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

type Step = Record<string, unknown>;

/** Neovim with one fake agent "fake" whose turns are `turns`, and more setup() options. */
async function setup(
  bin: NvimBin,
  turns: Step[][],
  extra: Record<string, unknown> = {},
): Promise<{ t: TestNvim; work: string }> {
  const t = await withAgents(bin, { fake: { turns } }, extra);
  return { t, work: join(t.dir, "work") };
}

/** What the agent does in its one turn, for chats started from now on (paths known only now). */
const script = (t: TestNvim, steps: Step[]) => setScenario(t, { turns: [steps] });

describe.each(bins)("Neovim $version", (bin) => {
  it("reads unsaved buffers (with line and limit), falls back to disk, reports missing, directory and binary files", async () => {
    const { t, work } = await setup(bin, [[]]);
    writeFileSync(join(work, "big.txt"), Array.from({ length: 50 }, (_, i) => `disk ${i + 1}`).join("\n") + "\n");
    writeFileSync(join(work, "ondisk.txt"), "only on disk\n");
    writeFileSync(join(work, "bin.dat"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]));
    mkdirSync(join(work, "adir"));
    await t.nvim.command("edit big.txt");
    await t.lua("vim.api.nvim_buf_set_lines(0, 9, 12, false, { 'unsaved 10', 'unsaved 11', 'unsaved 12' })");
    const p = (path: string, more: Step = {}) => ({
      request: "fs/read_text_file",
      params: { path: join(work, path), ...more },
      echo: true,
    });
    await script(t, [
      p("big.txt", { line: 10, limit: 3 }),
      p("big.txt", { line: 49 }),
      p("ondisk.txt"),
      p("nothere.txt"),
      p("adir"),
      p("bin.dat"),
      p("ondisk.txt", { line: 1, limit: 1 }),
    ]);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend read");
    await c.turns(1, 15_000);
    const r = await replies(c);
    expect(r[0]!.result).toEqual({ content: "unsaved 10\nunsaved 11\nunsaved 12" });
    expect(r[1]!.result).toEqual({ content: "disk 49\ndisk 50\n" });
    expect(r[2]!.result).toEqual({ content: "only on disk\n" });
    expect(r[3]!.error).toMatchObject({ code: -32002, message: expect.stringContaining("Resource not found") });
    expect(r[4]!.error).toMatchObject({ message: expect.stringContaining("is a directory") });
    expect(r[5]!.error).toMatchObject({ message: expect.stringContaining("binary") });
    expect(r[6]!.result).toEqual({ content: "only on disk" });
  });

  it("reads a buffer of more than one slice exactly (the seam, a window across it, 'noeol', an empty last line) and refuses one holding NUL", async () => {
    const { t, work } = await setup(bin, [[]]);
    // SLICE_LINES (src/nvim/buffer-reader.ts) is 10,000: 10,003 lines are read in two slices.
    const lines = Array.from({ length: 10_003 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(work, "long.txt"), `${lines.join("\n")}\n`);
    // Its first slice over 512 KB: it crosses as lines, the second as one text.
    const wide = lines.map((l) => `${l} ${"w".repeat(60)}`);
    writeFileSync(join(work, "wide.txt"), `${wide.join("\n")}\n`);
    writeFileSync(join(work, "noeol.txt"), "a\nb\n");
    writeFileSync(join(work, "blank.txt"), "x\n");
    writeFileSync(join(work, "nul.txt"), "clean\n");
    for (const f of ["long.txt", "wide.txt", "noeol.txt", "blank.txt", "nul.txt"]) await t.nvim.command(`badd ${f}`);
    await t.nvim.command("edit wide.txt | call setline(10001, 'unsaved wide') | call setline(1, 'unsaved first')");
    await t.nvim.command("edit long.txt");
    await t.lua("vim.api.nvim_buf_set_lines(0, 9999, 10000, false, { 'unsaved 10000' })");
    await t.nvim.command("edit noeol.txt | setlocal noeol nofixeol | call setline(2, 'B')");
    await t.nvim.command("edit blank.txt | call append(1, '')");
    // A NUL byte in a line ("\n" in setline() puts one there; the API hands it over as "\0").
    await t.nvim.command('edit nul.txt | call setline(1, "cl\\nean")');
    const p = (path: string, more: Step = {}) => ({
      request: "fs/read_text_file",
      params: { path: join(work, path), ...more },
    });
    // The replies as the agent got them (too long for the transcript's echo).
    const record = join(t.dir, "reads.jsonl");
    await setScenario(t, {
      record,
      turns: [
        [
          p("long.txt"),
          p("long.txt", { line: 9999, limit: 3 }),
          p("wide.txt"),
          p("wide.txt", { line: 9999, limit: 3 }),
          p("noeol.txt"),
          p("blank.txt"),
          p("nul.txt"),
          { request: "fs/write_text_file", params: { path: join(work, "nul.txt"), content: "text\n" } },
        ],
      ],
    });
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend read");
    await c.turns(1, 30_000);
    const r = readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((m) => !("method" in m) && ("result" in m || "error" in m));
    lines[9999] = "unsaved 10000";
    expect(r[0]!.result).toEqual({ content: `${lines.join("\n")}\n` });
    expect(r[1]!.result).toEqual({ content: "line 9999\nunsaved 10000\nline 10001" });
    wide[0] = "unsaved first";
    wide[10000] = "unsaved wide";
    expect(r[2]!.result).toEqual({ content: `${wide.join("\n")}\n` });
    expect(r[3]!.result).toEqual({ content: wide.slice(9998, 10001).join("\n") });
    expect(r[4]!.result).toEqual({ content: "a\nB" });
    expect(r[5]!.result).toEqual({ content: "x\n\n" });
    expect(r[6]!.error).toMatchObject({
      message: expect.stringContaining("looks binary (its buffer holds NUL bytes)"),
    });
    expect(r[7]!.error).toMatchObject({ message: expect.stringContaining("binary files are not overwritten") });
    expect(await t.nvim.call("getbufline", ["nul.txt", 1, "$"])).toEqual(["cl\nean"]);
    expect(readFileSync(join(work, "nul.txt"), "utf8")).toBe("clean\n");
  });

  it("buffer texts cross on the host's text pipe once it is open; with the pipe closed, over RPC again", async () => {
    const { t, work } = await setup(bin, [[]]);
    const lines = Array.from({ length: 3000 }, (_, i) => `zeile ${i + 1}: grüße, ünïcode ✓`);
    writeFileSync(join(work, "u.txt"), `${lines.join("\n")}\n`);
    await t.nvim.command("edit u.txt | call setline(2000, 'unsaved ✓ 2000')");
    lines[1999] = "unsaved ✓ 2000";
    const read = { request: "fs/read_text_file", params: { path: join(work, "u.txt") } };
    const record = join(t.dir, "pipe-reads.jsonl");
    // Turn 1: the first read opens the pipe (it comes over RPC), the later ones use it.
    await setScenario(t, {
      record,
      turns: [
        [read, read, read],
        [read, read],
      ],
    });
    const c = await openChat(t);
    await c.ready();
    const sent = () => t.lua('return require("acpchat.host.text_pipe").sent') as Promise<number>;
    const before = await sent();
    await t.nvim.command("AcpChatSend first");
    await c.turns(1, 30_000);
    expect(await t.lua('return require("acpchat.host.text_pipe").is_open()')).toBe(true);
    // The reads after the first came on the pipe.
    const afterFirst = await sent();
    expect(afterFirst - before).toBeGreaterThanOrEqual(2);
    // Lua closes its end: the host gives the pipe up and asks over RPC.
    await t.lua('require("acpchat.host.text_pipe").close()');
    await t.nvim.command("AcpChatSend second");
    await c.turns(2, 30_000);
    expect(await sent()).toBe(afterFirst);
    const r = readFileSync(record, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((m) => !("method" in m) && ("result" in m || "error" in m));
    expect(r).toHaveLength(5);
    for (const m of r) expect(m.result).toEqual({ content: `${lines.join("\n")}\n` });
    expect(await t.lua('return require("acpchat.host.text_pipe").is_open()')).toBe(false);
  });

  it("writes into a loaded buffer as one undoable change (write = buffer), and to disk atomically otherwise", async () => {
    const { t, work } = await setup(bin, [[]], { write: "buffer" });
    writeFileSync(join(work, "a.txt"), "one\ntwo\nthree\n");
    await t.nvim.command("edit a.txt");
    await t.lua("vim.api.nvim_win_set_cursor(0, {3, 2})");
    const w = (path: string, content: string) => ({
      request: "fs/write_text_file",
      params: { path: join(work, path), content },
      echo: true,
    });
    await script(t, [w("a.txt", "one\nTWO\nthree\nfour\n"), w("deep/new/b.txt", "created\n")]);
    const src = await t.lua<number>("return vim.api.nvim_get_current_win()");
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend write");
    await c.turns(1, 15_000);
    const r = await replies(c);
    // Not on disk: the agent is told so in words.
    expect(r.map((x) => x.result)).toEqual([
      { message: expect.stringContaining("waits in the editor's buffer, unsaved"), ...(wrote("buffer") as object) },
      wrote(),
    ]);
    const abuf = await bufnr(t, join(work, "a.txt"));
    expect(await t.lines(abuf)).toEqual(["one", "TWO", "three", "four"]);
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("one\ntwo\nthree\n"); // the user saves
    expect(await t.lua("return vim.api.nvim_win_get_cursor(...)", [src])).toEqual([3, 2]);
    expect(readFileSync(join(work, "deep/new/b.txt"), "utf8")).toBe("created\n");
    // One `u` restores the user's version.
    await t.lua("vim.api.nvim_buf_call(..., function() vim.cmd('undo') end)", [abuf]);
    expect(await t.lines(abuf)).toEqual(["one", "two", "three"]);
  });

  it("never overwrites unsaved edits: the change goes to review, and rejecting it changes nothing", async () => {
    const { t, work } = await setup(bin, [[]], { write: "buffer" });
    writeFileSync(join(work, "a.txt"), "one\ntwo\n");
    await t.nvim.command("edit a.txt");
    await t.lua("vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'MY EDIT' })");
    await script(t, [
      { request: "fs/write_text_file", params: { path: join(work, "a.txt"), content: "agent\ntwo\n" }, echo: true },
    ]);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend write");
    await t.waitFor(async () => (await reviews(t)) === 1, "the review to open");
    // The review shows the user's text on the left and the agent's on the right (its tab opens
    // in the turn after the review is registered).
    const tabBufs = () =>
      t.lua<string[]>(
        "return vim.tbl_map(function(w) return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(w)) end, vim.api.nvim_tabpage_list_wins(0))",
      );
    await t.waitFor(async () => (await tabBufs()).some((b) => /review\/.*\/result\/a\.txt$/.test(b)), "the review tab");
    expect(await t.lines(0)).toEqual(["MY EDIT", "two"]);
    await t.nvim.input("ZQ");
    await c.turns(1, 15_000);
    const r = await replies(c);
    expect(r[0]!.error).toMatchObject({ message: expect.stringContaining("rejected the change") });
    const abuf = await bufnr(t, join(work, "a.txt"));
    expect(await t.lines(abuf)).toEqual(["MY EDIT", "two"]);
    expect(await t.lua("return vim.bo[...].modified", [abuf])).toBe(true);
    expect(readFileSync(join(work, "a.txt"), "utf8")).toBe("one\ntwo\n");
  });

  it("review: accept one hunk, reject another, ]c moves between them; closing the tab rejects", async () => {
    const original = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const proposed = [...original];
    proposed[1] = "CHANGED 2";
    proposed[15] = "CHANGED 16";
    const { t, work } = await setup(bin, [[]]);
    writeFileSync(join(work, "r.txt"), original.join("\n") + "\n");
    writeFileSync(join(work, "s.txt"), "keep\n");
    await script(t, [
      {
        request: "fs/write_text_file",
        params: { path: join(work, "r.txt"), content: proposed.join("\n") + "\n" },
        echo: true,
      },
      { request: "fs/write_text_file", params: { path: join(work, "s.txt"), content: "replaced\n" }, echo: true },
    ]);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend write");
    await t.waitFor(async () => (await reviews(t)) === 1, "the review to open");
    await t.waitFor(async () => (await t.lua<number>("return vim.fn.tabpagenr('$')")) === 2, "the review tab");
    await t.lua("vim.cmd('normal! gg')");
    await t.nvim.input("]c");
    await t.waitFor(async () => (await t.lua<number>("return vim.fn.line('.')")) === 2, "]c to the first hunk");
    await t.nvim.input("ga");
    await t.nvim.input("]c");
    await t.waitFor(async () => (await t.lua<number>("return vim.fn.line('.')")) === 16, "]c to the second hunk");
    await t.nvim.input("gr");
    await t.nvim.input("ZZ");
    await t.waitFor(
      async () => readFileSync(join(work, "r.txt"), "utf8").includes("CHANGED 2"),
      "the accepted hunk on disk",
    );
    const onDisk = readFileSync(join(work, "r.txt"), "utf8").split("\n");
    expect(onDisk[1]).toBe("CHANGED 2");
    expect(onDisk[15]).toBe("line 16");
    // The second write opens its own review; closing its tab is a rejection.
    await t.waitFor(async () => (await reviews(t)) === 1, "the second review");
    await t.waitFor(async () => (await t.lua<number>("return vim.fn.tabpagenr('$')")) === 2, "the second review tab");
    await t.nvim.command("tabclose");
    await c.turns(1, 15_000);
    const r = await replies(c);
    expect(r[0]!.result).toEqual(wrote());
    expect(r[1]!.error).toMatchObject({ message: expect.stringContaining("rejected") });
    expect(readFileSync(join(work, "s.txt"), "utf8")).toBe("keep\n");
  });

  it("asks permission with vim.ui.select, one question at a time; a cancelled turn closes the open question", async () => {
    const perm = (id: string) => ({
      request: "session/request_permission",
      params: {
        toolCall: {
          toolCallId: id,
          title: `Run ${id}`,
          kind: "execute",
          rawInput: { command: `make ${id}` },
          locations: [{ path: "Makefile", line: 1 }],
        },
        options: [
          { optionId: "allow", name: "Allow", kind: "allow_once" },
          { optionId: "always", name: "Always allow", kind: "allow_always" },
          { optionId: "deny", name: "Deny", kind: "reject_once" },
        ],
      },
      echo: true,
    });
    const { t } = await setup(bin, [[perm("a"), perm("b")], [perm("c")]]);
    await t.lua(`
      _G.asked = {}
      vim.ui.select = function(items, opts, on_choice)
        table.insert(_G.asked, { prompt = opts.prompt, labels = vim.tbl_map(opts.format_item, items) })
        if #_G.asked == 1 then on_choice(items[1], 1)
        elseif #_G.asked == 2 then
          for _, it in ipairs(items) do if it.kind == "reject_once" then return on_choice(it) end end
        else _G.pending = on_choice end
      end
    `);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    await c.turns(1, 15_000);
    const asked = await questions(t);
    expect(asked[0]!.prompt).toContain("Run a [execute]");
    expect(asked[0]!.prompt).toContain("Makefile:1");
    expect(asked[0]!.prompt).toContain("make a");
    expect([...asked[0]!.labels].sort()).toEqual([
      "Allow (this call)",
      "Always allow (this session; the agent may keep it too)",
      "Always allow in this project (the editor keeps it; the agent may keep it too)",
      "Deny (this call)",
    ]);
    const r = await replies(c);
    expect(r[0]!.result).toEqual({ outcome: { outcome: "selected", optionId: "allow" } });
    expect(r[1]!.result).toEqual({ outcome: { outcome: "selected", optionId: "deny" } });
    // Second turn: the question stays open, then the turn is cancelled.
    await t.nvim.command("AcpChatSend again");
    await t.waitFor(async () => (await t.lua<number>("return #_G.asked")) === 3, "the third question");
    await t.nvim.command("AcpChatCancel");
    await c.turns(2, 15_000);
    expect(await c.lastStop()).toBe("cancelled");
    expect(await t.lua("return vim.tbl_count(require('acpchat.ask.permission').open)")).toBe(0);
  });

  it("runs terminals in the cwd: live tail in the tool call, output within the byte limit, gt shows the full output", async () => {
    const script = "for i in 1 2 3 4 5 6 7 8 9 10; do echo line-$i; done; pwd; exit 4";
    const { t, work } = await setup(bin, [
      [
        { request: "terminal/create", params: { command: "sh", args: ["-c", script], outputByteLimit: 40 } },
        {
          update: {
            sessionUpdate: "tool_call",
            toolCallId: "sh1",
            title: "Run script",
            kind: "execute",
            status: "in_progress",
            content: [{ type: "terminal", terminalId: "$last.terminalId" }],
          },
        },
        { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
        { request: "terminal/output", params: { terminalId: "$last.terminalId" }, echo: true },
      ],
    ]);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend run");
    await c.turns(1, 15_000);
    const text = await c.text();
    const out = (await replies(c))[0]!.result as {
      output: string;
      truncated: boolean;
      exitStatus: { exitCode: number };
    };
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.output)).toBeLessThanOrEqual(40);
    expect(out.output.endsWith(`${work}\n`)).toBe(true);
    expect(out.exitStatus).toEqual({ exitCode: 4, signal: null });
    expect(text).toContain("  │ [exit 4]  (gt: full output)");
    expect(text).toContain(`  │ ${work}`);
    await t.nvim.command("AcpChatTerminal");
    await t.waitFor(
      async () => /terminal/.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the terminal buffer",
    );
    const lines = await t.lines(0);
    expect(lines.at(-1)).toBe("[exit 4, failed]");
    expect(lines).toContain(work);
  });

  it("permission rules: configured auto-allow, 'remember for this project' across chats, :AcpChatPermissions removes", async () => {
    const ask = (id: string, kind: string, title: string, path?: string) => ({
      request: "session/request_permission",
      params: {
        toolCall: { toolCallId: id, title, kind, locations: path ? [{ path }] : [] },
        options: [
          { optionId: "once", name: "Allow", kind: "allow_once" },
          { optionId: "always", name: "Always", kind: "allow_always" },
          { optionId: "no", name: "No", kind: "reject_once" },
        ],
      },
      echo: true,
    });
    const { t, work } = await setup(bin, [[]], {
      permissions: { rules: [{ kind: "read", path: "**", action: "allow" }] },
    });
    await script(t, [
      ask("r", "read", "Read a", join(work, "a.txt")),
      ask("x", "execute", "Run make"),
      ask("y", "execute", "Run make"),
    ]);
    await t.lua(`
      _G.asked = 0
      vim.ui.select = function(items, opts, on_choice)
        _G.asked = _G.asked + 1
        _G.labels = vim.tbl_map(opts.format_item, items)
        for _, it in ipairs(items) do if it.remember == "project" then return on_choice(it) end end
      end
    `);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    await c.turns(1, 15_000);
    const r = await replies(c);
    expect(r.map((x) => (x.result as { outcome: { optionId: string } }).outcome.optionId)).toEqual([
      "once",
      "always",
      "always",
    ]);
    expect(await t.lua("return _G.asked")).toBe(1); // the read by rule, the second run by memory
    expect([...(await t.lua<string[]>("return _G.labels"))].sort()).toEqual([
      "Allow (this call)",
      "Always (this session; the agent may keep it too)",
      "Always allow in this project (the editor keeps it; the agent may keep it too)",
      "No (this call)",
    ]);
    expect(await c.text()).toMatch(/Allowed "Read a" without asking/);
    // A new chat in the same project remembers; removing the rule makes it ask again.
    await script(t, [ask("z", "execute", "Run make")]);
    const c2 = await openChat(t, "AcpChat!");
    await c2.ready();
    await t.nvim.command("AcpChatSend again");
    await c2.turns(1, 15_000);
    expect(await t.lua("return _G.asked")).toBe(1);
    await t.lua("vim.ui.select = function(items, _, on_choice) _G.rules = #items; on_choice(items[1]) end");
    await t.nvim.command("AcpChatPermissions");
    await t.waitFor(async () => (await t.lua<number>("return _G.rules")) === 1, "the rules list");
    expect(
      await t.lua("return #require('acpchat.host.bridge').call_sync('permissions', { chat = ... })", [c2.id]),
    ).toBe(0);
  });

  it("gd opens a tool call's diff read-only; a permission question's diff opens its per-hunk review", async () => {
    const diff = { type: "diff", path: "", oldText: "a\nb\n", newText: "a\nB\n" };
    const { t, work } = await setup(bin, [[]]);
    diff.path = join(work, "f.txt");
    await script(t, [
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "e1",
          title: "Edit f.txt",
          kind: "edit",
          status: "completed",
          content: [diff],
        },
      },
      {
        request: "session/request_permission",
        params: {
          toolCall: { toolCallId: "e1", title: "Edit f.txt", kind: "edit", content: [diff] },
          options: [
            { optionId: "ok", name: "OK", kind: "allow_once" },
            { optionId: "no", name: "No", kind: "reject_once" },
          ],
        },
        echo: true,
      },
    ]);
    await t.lua(`
      _G.asked = 0
      vim.ui.select = function(items, opts, on_choice)
        _G.asked = _G.asked + 1
        on_choice(items[#items]) -- "Show the diff first"
      end
    `);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    // The review opens in a tab of its own: the proposal on the right.
    const rw = await t.waitFor(
      async () =>
        t.lua<number | null>(
          "local k = next(require('acpchat.ask.review').open_reviews); local r = k and require('acpchat.ask.review').open_reviews[k]; return r and r.rw and vim.api.nvim_win_is_valid(r.rw) and r.rw or nil",
        ),
      "the review tab",
    );
    expect(await t.lua("return vim.fn.tabpagenr('$')")).toBe(2);
    expect(await t.lua("return vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(...), 0, -1, false)", [rw])).toEqual(
      ["a", "B"],
    );
    await t.nvim.command("stopinsert");
    await t.nvim.input("gAZZ");
    await c.turns(1, 15_000);
    // Every hunk accepted: the agent's allow option, asked once.
    expect(await c.text()).toContain('"optionId":"ok"');
    expect(await t.lua("return _G.asked")).toBe(1);
    expect(await t.lua("return vim.fn.tabpagenr('$')")).toBe(1);
    // gd on the tool call block.
    const win = await c.win();
    await t.lua("vim.cmd('stopinsert'); vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, {5, 0})", [
      win,
    ]); // under the reply header
    await t.nvim.input("gd");
    await t.waitFor(async () => (await t.lua<number>("return vim.fn.tabpagenr('$')")) === 2, "the diff tab");
    expect(await t.lua("return vim.wo.diff")).toBe(true);
    expect(await t.lines(0)).toEqual(["a", "b"]);
    expect(await t.lua("return vim.bo.modifiable")).toBe(false);
  });

  it("follow-along: a running tool call's location shows in the last editor window, focus stays", async () => {
    const { t, work } = await setup(bin, [[]], { follow: true });
    writeFileSync(join(work, "f.txt"), "1\n2\n3\n4\n5\n");
    await script(t, [
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "r",
          title: "Read f",
          kind: "read",
          status: "in_progress",
          locations: [{ path: join(work, "f.txt"), line: 4 }],
        },
      },
      { sleep: 100 },
    ]);
    const editor = await t.lua<number>("return vim.api.nvim_get_current_win()");
    const c = await openChat(t);
    await c.ready();
    const focus = await t.lua<number>("return vim.api.nvim_get_current_win()");
    await t.nvim.command("AcpChatSend go");
    await c.turns(1, 15_000);
    await t.waitFor(
      async () =>
        (await t.lua<string>("return vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(...))", [editor])).endsWith(
          "f.txt",
        ),
      "f.txt in the editor window",
    );
    expect(await t.lua("return vim.api.nvim_win_get_cursor(...)[1]", [editor])).toBe(4);
    expect(await t.lua<number>("return vim.api.nvim_get_current_win()")).toBe(focus);
  });

  it('write = "save": the change goes into the loaded buffer and is written to disk', async () => {
    const { t, work } = await setup(bin, [[]], { write: "save" });
    writeFileSync(join(work, "s.txt"), "one\n");
    await t.nvim.command("edit s.txt");
    await script(t, [
      { request: "fs/write_text_file", params: { path: join(work, "s.txt"), content: "one\ntwo\n" }, echo: true },
    ]);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend write");
    await c.turns(1, 15_000);
    const buf = await bufnr(t, join(work, "s.txt"));
    expect(await t.lines(buf)).toEqual(["one", "two"]);
    expect(await t.lua("return vim.bo[...].modified", [buf])).toBe(false);
    expect(readFileSync(join(work, "s.txt"), "utf8")).toBe("one\ntwo\n");
  });
});
