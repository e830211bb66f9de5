/**
 * Accepted means on disk: in the default mode an accepted change to a buffer without unsaved
 * edits of the user's is saved before the agent is answered, so its next command sees it; when
 * it cannot be, the agent's result and the transcript say in words that it waits in the
 * buffer. After any path of ours, :w writes without a question (W12, "changed since reading").
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import { bufnr, replies, wrote, shareNvim } from "../support/chat.js";
import { agentTurn, editsNvim, reviewShown, write } from "./edits-support.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const lines = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const withLine = (i: number, s: string, ls = lines) => ls.map((l, k) => (k === i ? s : l));

/** The agent's next command after its write: what it sees of `f` lands in `seen`. */
const looks = (f: string, seen: string) => [
  { request: "terminal/create", params: { command: "sh", args: ["-c", `cat '${f}' > '${seen}'`] } },
  { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
];

/** `:w` typed in buffer `b` writes it at once: no question waits, no error. */
async function writesWithoutQuestion(t: TestNvim, b: number): Promise<void> {
  await t.nvim.input("<Esc>"); // the chat's prompt starts in Insert mode
  await t.lua(
    "vim.v.errmsg = ''; vim.cmd('messages clear'); vim.cmd.stopinsert(); vim.fn.win_gotoid(vim.fn.win_findbuf(...)[1])",
    [b],
  );
  await t.waitFor(async () => (await t.lua<string>("return vim.api.nvim_get_mode().mode")) === "n", "Normal mode");
  await t.nvim.input(":w<CR>");
  await new Promise((r) => setTimeout(r, 300));
  const mode = await t.lua<{ mode: string; blocking: boolean }>("return vim.api.nvim_get_mode()");
  if (mode.blocking) await t.nvim.input("n<CR>"); // answer Vim's question, so the test ends
  expect(mode).toMatchObject({ blocking: false, mode: "n" });
  expect(await t.lua("return vim.v.errmsg")).toBe("");
  expect(await t.lua("return vim.bo[...].modified", [b])).toBe(false);
}

describe.each(bins)("Neovim $version", (bin) => {
  it("an accepted review of a buffer without the user's edits is on disk before the agent's next command", async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "a.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    const next = text(withLine(3, "AGENT"));
    const chat = await agentTurn(t, [write(f, next), ...looks(f, join(work, "seen.txt"))]);
    await reviewShown(t);
    await t.nvim.input("gA");
    await t.nvim.input("ZZ");
    await chat.turns(1, 15_000);
    expect(readFileSync(join(work, "seen.txt"), "utf8")).toBe(next);
    expect((await replies(chat))[0]!.result).toEqual(wrote("buffer"));
    expect(JSON.stringify((await replies(chat))[0])).toContain('"saved":true');
    expect(await t.lua("return vim.bo[...].modified", [b])).toBe(false);
    await writesWithoutQuestion(t, b);
    expect(readFileSync(f, "utf8")).toBe(next);
  });

  it("with the user's unsaved edits in the buffer the change waits there: the agent's result and the transcript say so", async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "m.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    await t.lua("vim.api.nvim_buf_set_lines(..., 9, 10, false, { 'MINE' })", [b]);
    const chat = await agentTurn(t, [write(f, text(withLine(9, "MINE", withLine(1, "AGENT"))))]);
    await reviewShown(t);
    await t.nvim.input("gA");
    await t.nvim.input("ZZ");
    await chat.turns(1, 15_000);
    const r = (await replies(chat))[0]!.result as { message: string; _meta: Record<string, unknown> };
    expect(r.message).toMatch(
      /not saved \(its buffer holds the user's own unsaved edits\).*waits in the editor's buffer, unsaved/,
    );
    expect(await chat.text()).toContain(`The change to ${f} waits in its buffer, unsaved`);
    expect(readFileSync(f, "utf8")).toBe(text(lines));
    expect(await t.lines(b)).toEqual(withLine(9, "MINE", withLine(1, "AGENT")));
  });

  it('write = "buffer": the agent is told in words that its change waits in the buffer', async () => {
    const { t, work } = await editsNvim(bin, { write: "buffer" });
    const f = join(work, "w.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const chat = await agentTurn(t, [write(f, text(withLine(1, "AGENT")))]);
    await chat.turns(1, 15_000);
    const r = (await replies(chat))[0]!.result as { message: string };
    expect(r.message).toMatch(
      /not saved \(the client writes to buffers only \(write = "buffer"\)\).*waits in the editor's buffer, unsaved/,
    );
    expect(await chat.text()).toContain(`The change to ${f} waits in its buffer, unsaved`);
    expect(readFileSync(f, "utf8")).toBe(text(lines));
  });

  it("after the agent wrote a file again with the same content (only its time changed), :w writes without a question", async () => {
    const { t, work } = await editsNvim(bin);
    const f = join(work, "same.txt");
    writeFileSync(f, text(lines));
    await t.nvim.command(`edit ${f}`);
    const b = await bufnr(t, f);
    const chat = await agentTurn(t, [
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "w1",
          title: "Write same.txt",
          kind: "edit",
          status: "in_progress",
          locations: [{ path: f }],
        },
      },
      {
        request: "terminal/create",
        params: { command: "sh", args: ["-c", `sleep 1.1; cp '${f}' '${f}.tmp'; mv '${f}.tmp' '${f}'`] },
      },
      { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
      { update: { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" } },
      { sleep: 300 },
      { text: "written" },
    ]);
    await chat.turns(1, 15_000);
    await writesWithoutQuestion(t, b);
    expect(readFileSync(f, "utf8")).toBe(text(lines));
  });

  for (const how of ["takes the disk's version", "keeps the buffer", "keeps the buffer, which no window shows"]) {
    it(`after the "changed on disk" review (the user ${how}), :w writes without a question`, async () => {
      const { t, work } = await editsNvim(bin);
      const f = join(work, "d.txt");
      writeFileSync(f, text(lines));
      await t.nvim.command(`edit ${f}`);
      const b = await bufnr(t, f);
      await t.lua("vim.api.nvim_buf_set_lines(..., 9, 10, false, { 'MINE' })", [b]);
      const hidden = how.endsWith("no window shows");
      if (hidden) await t.nvim.command("enew");
      const chat = await agentTurn(t, [
        {
          update: {
            sessionUpdate: "tool_call",
            toolCallId: "w1",
            title: "Write d.txt",
            kind: "edit",
            status: "in_progress",
            locations: [{ path: f }],
          },
        },
        {
          request: "terminal/create",
          params: { command: "sh", args: ["-c", `sleep 1.1; printf 'from the agent\\n' > '${f}'`] },
        },
        { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
        { update: { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" } },
        { text: "written" },
      ]);
      await reviewShown(t);
      const tick = await t.lua<number>("return vim.api.nvim_buf_get_changedtick(...)", [b]);
      await t.nvim.input(how.startsWith("takes") ? "gAZZ" : "ZQ");
      // The answer is carried out (the buffer reads the file again, and gets the chosen text).
      await t.waitFor(
        async () => (await t.lua<number>("return vim.api.nvim_buf_get_changedtick(...)", [b])) > tick,
        "the answer to be applied",
      );
      await chat.turns(1, 15_000);
      await t.waitFor(
        async () => (await t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")) === 0,
        "the review to close",
      );
      const want = how.startsWith("takes") ? ["from the agent"] : withLine(9, "MINE");
      await t.waitFor(async () => JSON.stringify(await t.lines(b)) === JSON.stringify(want), "the chosen text");
      if (hidden) {
        await t.nvim.input("<Esc>");
        await t.lua("vim.cmd.stopinsert(); vim.cmd('wincmd t'); vim.api.nvim_set_current_buf(...)", [b]);
      }
      await writesWithoutQuestion(t, b);
      expect(readFileSync(f, "utf8")).toBe(text(want));
    });
  }
});
