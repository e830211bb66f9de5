/**
 * The seams of the write path with the rest of the chat: what a write did goes back to the
 * agent; a file the agent wrote itself never leaves the buffer behind; what the user adds to a
 * prompt is what they see (the unsaved buffer).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim, openChat, received, recordNotes, setAgents, withAgents, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

/** A tool call that edits `path` with the agent's own file system (a shell in a terminal). */
function agentWritesItself(path: string, text: string) {
  return [
    {
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "w1",
        title: "Write f.txt",
        kind: "edit",
        status: "in_progress",
        locations: [{ path }],
      },
    },
    { request: "terminal/create", params: { command: "sh", args: ["-c", `printf '${text}' > ${path}`] } },
    { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
    { update: { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" } },
    { text: "written" },
  ];
}

describe.each(bins)("Neovim $version", (bin) => {
  it("the agent's write response says what was written", async () => {
    const t = await withAgents(
      bin,
      {
        fake: {
          turns: [
            [{ request: "fs/write_text_file", params: { path: "$DIR/work/new.txt", content: "hello\n" }, echo: true }],
          ],
        },
      },
      { write: "buffer" },
    );
    const c = await openChat(t);
    await c.ready();
    await c.send("write");
    await c.turns(1);
    const reply = JSON.parse(/\{"jsonrpc".*\}/.exec(await c.text())![0]);
    expect(reply.result._meta["acp-chat.nvim/write"]).toMatchObject({ written: "disk" });
    expect(readFileSync(join(t.dir, "work/new.txt"), "utf8")).toBe("hello\n");
  });

  it("a file the agent wrote itself: an untouched buffer reloads; one with the user's edits is compared, nothing lost", async () => {
    const t = await nvim(bin);
    const f = join(t.dir, "work/f.txt");
    writeFileSync(f, "old\n");
    await t.nvim.command(`edit ${f}`);
    const buf = await t.lua<number>("return vim.api.nvim_get_current_buf()");
    const scenario = { turns: [agentWritesItself(f, "from the agent\\n"), agentWritesItself(f, "again\\n")] };
    await setAgents(t, { fake: scenario });
    const c = await openChat(t);
    await c.ready();
    await c.send("go");
    await c.turns(1);
    // Untouched: reloaded, no W12 waiting for the next :w.
    await t.waitFor(async () => (await t.lines(buf))[0] === "from the agent", "the buffer to reload");
    expect(await t.lua("return vim.bo[...].modified", [buf])).toBe(false);
    // With the user's unsaved edits: compared (buffer against disk) instead of overwritten.
    await t.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { 'my unsaved words' })", [buf]);
    await recordNotes(t);
    await c.send("again");
    await t.waitFor(
      async () => (await t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")) === 1,
      "the comparison",
    );
    expect(await t.lines(buf)).toEqual(["my unsaved words"]);
    // Its tab drawn and focused (the keys below go to it).
    await t.waitFor(
      async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the review tab",
    );
    // Keeping the buffer (rejecting the disk's version) loses nothing of the user's.
    await t.nvim.input("<Esc>ZQ");
    await c.turns(2);
    await t.waitFor(
      async () => (await t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")) === 0,
      "the comparison to close",
    );
    expect(await t.lines(buf)).toEqual(["my unsaved words"]);
    expect(readFileSync(f, "utf8")).toBe("again\n");
  });

  it("a file the agent wrote itself over a buffer with the user's edits elsewhere: only the agent's change is offered, both stay", async () => {
    const t = await nvim(bin);
    const f = join(t.dir, "work/h.txt");
    writeFileSync(f, "one\ntwo\nthree\nfour\nfive\n");
    await t.nvim.command(`edit ${f}`);
    const buf = await t.lua<number>("return vim.api.nvim_get_current_buf()");
    await t.lua("vim.api.nvim_buf_set_lines(..., 4, 5, false, { 'MINE' })", [buf]);
    await setAgents(t, { fake: { turns: [agentWritesItself(f, "ONE\ntwo\nthree\nfour\nfive\n")] } });
    const c = await openChat(t);
    await c.ready();
    await c.send("go");
    await t.waitFor(
      async () => (await t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")) === 1,
      "the comparison",
    );
    const r = await t.lua<{ reason: string; hunks: number }>(
      "local r = select(2, next(require('acpchat.ask.review').open_reviews)); return { reason = r.reason, hunks = #r.hunks }",
    );
    // The file before the agent wrote it is in the turn's snapshot: its change goes on top of the user's line.
    expect(r).toEqual({ reason: "merged", hunks: 1 });
    await t.waitFor(
      async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the review tab",
    );
    await t.nvim.input("<Esc>gA");
    await t.nvim.input("ZZ");
    await t.waitFor(
      async () => (await t.lines(buf)).join(",") === "ONE,two,three,four,MINE",
      "the agent's change on top of the user's",
    );
    // Still the user's to save: the buffer is not the disk.
    expect(await t.lua("return vim.bo[...].modified", [buf])).toBe(true);
    expect(readFileSync(f, "utf8")).toBe("ONE\ntwo\nthree\nfour\nfive\n");
    await c.turns(1);
  });

  it("an edit that did not touch the disk asks nothing, even with the user's unsaved edits in the buffer", async () => {
    const t = await nvim(bin);
    const f = join(t.dir, "work/g.txt");
    writeFileSync(f, "on disk\n");
    await t.nvim.command(`edit ${f}`);
    await t.lua("vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'my unsaved words' })");
    await setAgents(t, {
      fake: {
        turns: [
          [
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "e1",
                title: "Edit g.txt",
                kind: "edit",
                status: "in_progress",
                locations: [{ path: f }],
              },
            },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "e1", status: "failed" } },
            { sleep: 300 },
            { text: "gave up" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await c.send("edit");
    await c.turns(1);
    await new Promise((r) => setTimeout(r, 300));
    expect(await t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")).toBe(0);
    expect(await t.lua<number>("return vim.fn.tabpagenr('$')")).toBe(1);
  });

  it("@file and :AcpChatAdd send the unsaved buffer the user sees, trailing backslash and all", async () => {
    const t = await withAgents(bin, {
      fake: { record: "$DIR/record.jsonl", agentCapabilities: { promptCapabilities: { embeddedContext: true } } },
    });
    const f = join(t.dir, "work/notes.txt");
    writeFileSync(f, "saved text\n");
    await t.nvim.command(`edit ${f}`);
    await t.lua("vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'unsaved line', 'ends with \\\\' })");
    const buf = await t.lua<number>("return vim.api.nvim_get_current_buf()");
    const c = await openChat(t);
    await c.ready();
    await t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [buf]);
    await t.nvim.command("AcpChatAdd");
    await c.send("look at @notes.txt");
    await c.turns(1);
    const prompts = received(t.dir, "session/prompt") as { prompt: { type: string; resource: { text: string } }[] }[];
    const resources = prompts[0]!.prompt.filter((b) => b.type === "resource");
    expect(resources.length).toBeGreaterThan(0);
    for (const r of resources) expect(r.resource.text).toBe("unsaved line\nends with \\\n");
  });
});
