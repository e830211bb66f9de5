/**
 * Mentions beyond files: `@diagnostics`, `@diagnostics:all`, `@quickfix`, `@buffers`,
 * `@selection`, `@folder/`, `@session:<name>` and a language server's symbol (`@#name:path:line`,
 * from a real stdio language server of the test's own attached with vim.lsp.start) reach the
 * agent as the content blocks its prompt capabilities take; one that reaches outside the
 * session's cwd refuses the prompt. Checked on the prompt the fake agent received.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import {
  notes,
  openChat,
  received,
  recordNotes,
  sendAndWait,
  withAgents,
  type Chat,
  shareNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();
const SYMBOL_LSP = join(import.meta.dirname, "..", "support", "symbol-lsp.mjs");

type Block = Record<string, unknown> & { type: string };

const PERM = "local M = {}\n\nfunction M.check(user)\n  return user.admin\nend\n\nreturn M\n";

function project(t: TestNvim): string {
  const work = join(t.dir, "work");
  mkdirSync(join(work, "src", "deep"), { recursive: true });
  writeFileSync(join(work, "src", "permission.lua"), PERM);
  writeFileSync(join(work, "src", "deep", "util.lua"), "return 1\n");
  writeFileSync(join(work, "notes.txt"), "notes\n");
  writeFileSync(join(t.dir, "outside.lua"), "local secret = 1\nreturn secret\n");
  return work;
}

/** The prompt of the agent's `n`th session/prompt (0-based). */
function prompt(t: TestNvim, n = 0): Block[] {
  return (received(t.dir, "session/prompt")[n] as { prompt: Block[] }).prompt;
}

/** Open src/permission.lua in the editor window, change it without saving, select lines 3-4. */
async function editorState(t: TestNvim, work: string): Promise<number> {
  await t.nvim.command(`edit ${join(work, "src", "permission.lua")}`);
  const buf = await t.lua<number>(`local b = vim.api.nvim_get_current_buf()
    vim.api.nvim_buf_set_lines(b, 3, 4, false, { "  return user.admin or user.owner" })
    local ns = vim.api.nvim_create_namespace("test-lint")
    vim.diagnostic.set(ns, b, { { lnum = 2, col = 9, message = "unused argument", severity = vim.diagnostic.severity.WARN, source = "lint" } })
    vim.cmd("normal! 3GVj\\27")
    return b`);
  return buf;
}

async function ask(c: Chat, text: string): Promise<string[]> {
  await c.t.lua(
    `local buf, text = ...
     vim.api.nvim_buf_set_lines(buf, 0, -1, false, { text })
     _G.lsp_answer = nil
     vim.lsp.buf_request(buf, "textDocument/completion", { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = 0, character = #text } }, function(err, result)
       _G.lsp_answer = { labels = vim.tbl_map(function(i) return i.label end, result and result.items or {}) }
     end)`,
    [c.promptBuf, text],
  );
  return (
    await c.t.waitFor(
      () => c.t.lua<{ labels: string[] } | null>("return _G.lsp_answer"),
      `the completion of ${text}`,
      5000,
    )
  ).labels;
}

describe.each(bins)("Neovim $version", (bin) => {
  it("each kind reaches an agent with embedded context as an embedded resource (unsaved text included); completion offers them, a symbol from a real language server too", async () => {
    const t = await withAgents(bin, { fake: { record: "$DIR/record.jsonl" } });
    const work = project(t);
    await editorState(t, work);
    // A language server of the test's own, attached to the file as any server is.
    await t.lua(`vim.lsp.start({ name = "symbol-lsp", cmd = { ..., select(2, ...) }, root_dir = select(3, ...) })`, [
      process.execPath,
      SYMBOL_LSP,
      work,
    ]);
    await t.waitFor(
      () =>
        t.lua<boolean>(
          "local c = vim.lsp.get_clients({ name = 'symbol-lsp' })[1]; return c ~= nil and c.initialized == true",
        ),
      "the symbol server",
    );
    await t.lua(
      "vim.fn.setqflist({ { filename = ..., lnum = 4, col = 3, text = 'needle here', type = 'E' }, { filename = select(2, ...), lnum = 1, text = 'outside' } })",
      [join(work, "src", "permission.lua"), join(t.dir, "outside.lua")],
    );
    const c = await openChat(t);
    await c.ready();

    // Completion: the keywords, folders and the symbol as one token each, in the language
    // server's answer and in the omnifunc's (Neovim 0.10's menu).
    expect(await ask(c, "see @diag")).toEqual(expect.arrayContaining(["@diagnostics", "@diagnostics:all"]));
    expect((await ask(c, "see @sel"))[0]).toBe("@selection");
    expect(await ask(c, "see @src")).toEqual(expect.arrayContaining(["@src/", "@src/deep/", "@src/permission.lua"]));
    const sym = await ask(c, "see @check");
    expect(sym).toContain("@#M.check:src/permission.lua:3");
    await t.waitFor(
      async () => (await c.complete("@check")).some((i) => i.word === "@#M.check:src/permission.lua:3"),
      "the symbol in the omnifunc's candidates",
    );

    await sendAndWait(
      c,
      "look: @diagnostics @diagnostics:all @quickfix @buffers @selection @src/deep/ and @#M.check:src/permission.lua:3.",
    );
    const all = prompt(t);
    const uri = pathToFileURL(join(work, "src", "permission.lua")).href;
    // The buffer holds unsaved edits: the prompt opens with the note that names it.
    expect(all[0]).toEqual({
      type: "text",
      text: expect.stringMatching(
        /^\[acp-chat\.nvim\] Note: these files have unsaved edits in the editor, newer than the disk: src\/permission\.lua;/,
      ),
    });
    // The user sees it under their words, as what this turn told the agent.
    const shown = await c.text();
    expect(shown).toContain("## You · turn 1");
    expect(shown.indexOf("Told the agent: Note: these files have unsaved edits")).toBeGreaterThan(
      shown.indexOf("## You · turn 1"),
    );
    const p = all.slice(1);
    expect(p[0]).toEqual({
      type: "text",
      text: "look: @diagnostics @diagnostics:all @quickfix @buffers @selection @src/deep/ and @#M.check:src/permission.lua:3.",
    });
    expect(p).toContainEqual({
      type: "resource",
      resource: {
        uri: "acpchat://diagnostics/src/permission.lua",
        mimeType: "text/plain",
        text: "src/permission.lua:3:10: warning: unused argument [lint]",
      },
    });
    expect(p).toContainEqual({
      type: "resource",
      resource: {
        uri: "acpchat://diagnostics",
        mimeType: "text/plain",
        text: "src/permission.lua:3:10: warning: unused argument [lint]",
      },
    });
    expect(p).toContainEqual({
      type: "resource",
      resource: {
        uri: "acpchat://quickfix",
        mimeType: "text/plain",
        text: "src/permission.lua:4:3: E: needle here\n(1 outside the session's folder left out)",
      },
    });
    // The open file with its unsaved line.
    expect(p).toContainEqual({
      type: "resource",
      resource: { uri, mimeType: "text/plain", text: expect.stringContaining("return user.admin or user.owner") },
    });
    expect(p).toContainEqual({
      type: "resource",
      resource: {
        uri: `${uri}#L3-L4`,
        mimeType: "text/plain",
        text: "function M.check(user)\n  return user.admin or user.owner",
      },
    });
    expect(p).toContainEqual({
      type: "resource_link",
      uri: pathToFileURL(join(work, "src", "deep", "util.lua")).href,
      name: "util.lua",
    });
    // The symbol's source range as the server tells it, from the buffer (unsaved text).
    expect(p).toContainEqual({
      type: "resource",
      resource: {
        uri: `${uri}#L3-L5`,
        mimeType: "text/plain",
        text: "function M.check(user)\n  return user.admin or user.owner\nend",
      },
    });
    expect(JSON.stringify(p)).not.toContain("local secret");
  });

  it("an agent without embedded context gets text and links; a mention outside the session's cwd refuses the prompt, which stays", async () => {
    const t = await withAgents(bin, {
      fake: { record: "$DIR/record.jsonl", agentCapabilities: { loadSession: true, promptCapabilities: {} } },
    });
    const work = project(t);
    await editorState(t, work);
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "@selection @diagnostics @src/deep/");
    const p = prompt(t);
    expect(p).toContainEqual({
      type: "text",
      text: `\n@selection (${join(work, "src", "permission.lua")} lines 3-4):\n\`\`\`lua\nfunction M.check(user)\n  return user.admin or user.owner\n\`\`\`\n`,
    });
    expect(p).toContainEqual({
      type: "text",
      text: "\nDiagnostics of src/permission.lua:\n```\nsrc/permission.lua:3:10: warning: unused argument [lint]\n```\n",
    });
    expect(p).toContainEqual({
      type: "resource_link",
      uri: pathToFileURL(join(work, "src", "deep", "util.lua")).href,
      name: "util.lua",
    });
    expect(p.some((b) => b.type === "resource")).toBe(false);

    // A selection in a file outside the cwd, and a folder outside it: refused, nothing sent.
    await recordNotes(t);
    await t.nvim.command(`edit ${join(t.dir, "outside.lua")}`);
    await t.nvim.command("normal! ggVj\x1b");
    await c.type("see @selection");
    await t.waitFor(
      async () =>
        (await notes(t)).some(
          (n) => n.msg.includes("@selection") && n.msg.includes("outside the session's working directory"),
        ),
      "the refusal",
    );
    expect(await c.promptLines()).toEqual(["see @selection"]);
    await c.type("list @../");
    await t.waitFor(
      async () =>
        (await notes(t)).some(
          (n) => n.msg.includes("@../") && n.msg.includes("outside the session's working directory"),
        ),
      "the folder's refusal",
    );
    expect(await c.promptLines()).toEqual(["list @../"]);
    await new Promise((r) => setTimeout(r, 300));
    expect(received(t.dir, "session/prompt").length).toBe(1);
    expect(JSON.stringify(received(t.dir, "session/prompt"))).not.toContain("local secret");
  });

  it("@session:<name> carries a past chat's transcript of this project (redacted, capped) to the next", async () => {
    const t = await withAgents(bin, { fake: { record: "$DIR/record.jsonl", turns: [[{ text: "the answer is 42" }]] } });
    project(t);
    const first = await openChat(t);
    await first.ready();
    await sendAndWait(first, "what is the answer? my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789");
    const sid = (await first.status()).session_id as string;
    await t.waitFor(
      async () =>
        (await t.lua<number>(
          "return vim.fn.filereadable(require('acpchat.transcript.history').dir() .. '/' .. ... .. '.md')",
          [sid],
        )) === 1,
      "the first chat's local history",
    );
    await t.nvim.command("AcpChat!");
    const second = await openChat(t);
    await second.ready();
    const offered = await ask(second, "@session:");
    const token = offered.find((l) => l.startsWith("@session:"));
    expect(token).toBeDefined();
    // A chat with no title is named by its first prompt's words, not a piece of its id.
    expect(token).toBe("@session:what-is-the-answer?-my-key");
    await sendAndWait(second, `continue from ${token}`);
    const p = prompt(t, 1);
    const res = p.find((b) => b.type === "resource") as { resource: { uri: string; text: string } } | undefined;
    expect(res?.resource.uri).toBe(`acpchat://session/${sid}`);
    expect(res?.resource.text).toContain("what is the answer?");
    expect(res?.resource.text).toContain("the answer is 42");
    expect(res?.resource.text).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
    // A name no past chat of this project has: refused, said why.
    await recordNotes(t);
    await second.type("see @session:nothing-such");
    await t.waitFor(
      async () => (await notes(t)).some((n) => n.msg.includes("no past chat of this project")),
      "the refusal",
    );
  });

  it(":AcpChat! {agent} from hands this chat's conversation to a new chat of another agent: its first prompt carries the transcript (redacted)", async () => {
    const t = await withAgents(bin, {
      fake: { record: "$DIR/record.jsonl", turns: [[{ text: "the answer is 42" }]] },
      other: { record: "$DIR/record.jsonl" },
    });
    project(t);
    const first = await openChat(t);
    await first.ready();
    await sendAndWait(first, "what is the answer? token=ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    const sid = (await first.status()).session_id as string;
    expect(await t.lua<string[]>("return vim.fn.getcompletion('AcpChat! other ', 'cmdline')")).toEqual(
      expect.arrayContaining(["from", `from=${first.id}`]),
    );
    await recordNotes(t);
    await t.nvim.command("AcpChat! other from=99");
    await t.waitFor(async () => (await notes(t)).some((n) => n.msg.includes("no chat 99")), "the unknown chat said");
    await t.nvim.command("AcpChat! other from");
    const next = await openChat(t);
    expect(next.id).not.toBe(first.id);
    expect(await t.lua("return require('acpchat.chat.registry').get(...).agent", [next.id])).toBe("other");
    await next.ready();
    expect(await next.promptWinbar()).toContain(`the conversation with fake (chat ${first.id})`);
    await sendAndWait(next, "go on");
    const p = prompt(t, 1);
    expect(p[0]).toEqual({ type: "text", text: "go on" });
    const res = p.find((b) => b.type === "resource") as { resource: { uri: string; text: string } } | undefined;
    expect(res?.resource.uri).toBe(`acpchat://chat/${sid}`);
    expect(res?.resource.text).toContain("what is the answer?");
    expect(res?.resource.text).toContain("the answer is 42");
    expect(JSON.stringify(p)).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
    // Only the first prompt carries it.
    await sendAndWait(next, "and then?");
    expect(prompt(t, 2)).toEqual([{ type: "text", text: "and then?" }]);
  });
});
