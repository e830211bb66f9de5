/**
 * "Show the diff first" in a permission question opens the per-hunk review itself:
 * a subset of hunks allows, and only those hunks stay, whether the agent then writes through
 * the client (its write is cut down) or writes the file itself (the rejected hunks are put back
 * right after its tool call); the transcript and the next prompt say what was kept.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { call, checkpointsReady, nvim, openChat, sendAndWait, setAgents, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const agentLines = lines.map((l) => (l === "line 3" ? "AGENT 3" : l === "line 15" ? "AGENT 15" : l));

/** The permission question for an edit of `path` (a whole-file diff with no old text, as claude-agent-acp sends). */
function askEdit(path: string) {
  const diff = { type: "diff", path, oldText: null, newText: text(agentLines) };
  return [
    {
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "w1",
        title: "Write p.txt",
        kind: "edit",
        status: "pending",
        content: [diff],
        locations: [{ path }],
      },
    },
    {
      request: "session/request_permission",
      params: {
        toolCall: { toolCallId: "w1" },
        options: [
          { optionId: "yes", name: "Yes", kind: "allow_once" },
          { optionId: "no", name: "No", kind: "reject_once" },
        ],
      },
      echo: true,
    },
  ];
}

/** The user picks "Show the diff first", then in the review accepts only the hunk at `row` and finishes. */
async function acceptOnlyHunkAt(t: Awaited<ReturnType<typeof nvim>>, row: number): Promise<void> {
  await t.lua(
    `vim.ui.select = function(items, opts, on_choice) _G.asked = (_G.asked or 0) + 1; on_choice(items[#items]) end`,
  );
  const lw = await t.waitFor(
    async () =>
      t.lua<number | null>(
        "local k = next(require('acpchat.ask.review').open_reviews); local r = k and require('acpchat.ask.review').open_reviews[k]; return r and r.lw and vim.api.nvim_win_is_valid(r.lw) and r.lw or nil",
      ),
    "the review tab",
  );
  await t.nvim.command("stopinsert");
  await t.lua("local w, r = ...; vim.api.nvim_set_current_win(w); vim.api.nvim_win_set_cursor(0, { r, 0 })", [lw, row]);
  await t.nvim.input("ga");
  await t.nvim.input("ZZ");
}

describe.each(bins)("Neovim $version", (bin) => {
  it("an agent that writes itself: only the accepted hunk stays on disk after its tool call; the next prompt tells it", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const p = join(work, "p.txt");
    writeFileSync(p, text(lines));
    writeFileSync(join(t.dir, "agent.txt"), text(agentLines));
    await setAgents(t, {
      fake: {
        turns: [
          [
            ...askEdit(p),
            { sh: `cp $DIR/agent.txt ${p}` },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" } },
            { text: "wrote it" },
          ],
          [{ text: "ok" }],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await c.send("edit p");
    await acceptOnlyHunkAt(t, 3);
    await c.turns(1, 20_000);
    expect(await c.text()).toContain('"optionId":"yes"');
    const now = readFileSync(p, "utf8").split("\n");
    expect(now[2]).toBe("AGENT 3");
    expect(now[14]).toBe("line 15");
    expect(await c.text()).toContain("The user kept 1 of the 2 hunks of the edit to");
    // The turn's changes show what stayed (the block follows the turn's end).
    await t.waitFor(async () => (await c.text()).includes("M p.txt  +1 -1"), "the turn's changes block");
    await sendAndWait(c, "next");
    const prompts = (
      await call<{ dir: string; method?: string; payload_json: string }[]>(t, "trace", { chat: c.id })
    ).filter((e) => e.method === "session/prompt" && e.dir === "out");
    const last = JSON.parse(prompts[prompts.length - 1]!.payload_json) as { params: { prompt: { text?: string }[] } };
    expect(last.params.prompt[0]!.text).toContain("the user kept 1 of the 2 hunks of the edit to");
  });

  it("an agent that writes through the client: its write is cut down to the accepted hunk, with no second review", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const p = join(work, "p.txt");
    writeFileSync(p, text(lines));
    await setAgents(t, {
      fake: {
        turns: [
          [
            ...askEdit(p),
            { request: "fs/write_text_file", params: { path: p, content: text(agentLines) }, echo: true },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" } },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await c.send("edit p");
    await acceptOnlyHunkAt(t, 15);
    await c.turns(1, 20_000);
    const now = readFileSync(p, "utf8").split("\n");
    expect(now[2]).toBe("line 3");
    expect(now[14]).toBe("AGENT 15");
    expect(await t.lua("return _G.asked")).toBe(1);
    expect(await t.lua("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")).toBe(0);
  });

  it("the winbar says what ZZ does; with nothing accepted ZZ asks, and only choosing reject rejects the tool call", async () => {
    const t = await nvim(bin);
    const p = join(t.dir, "work", "p.txt");
    writeFileSync(p, text(lines));
    await setAgents(t, { fake: { turns: [askEdit(p)] } });
    const c = await openChat(t);
    await c.ready();
    await t.lua(`vim.ui.select = function(items, opts, on_choice) on_choice(items[#items]) end`);
    await c.send("edit p");
    await t.waitFor(
      async () =>
        (await t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")) === 1 &&
        (await t.lua<number>("return vim.fn.tabpagenr('$')")) === 2,
      "the review tab",
    );
    await t.nvim.command("stopinsert");
    const winbar = () =>
      t.lua<string>(
        "local k = next(require('acpchat.ask.review').open_reviews); return vim.wo[require('acpchat.ask.review').open_reviews[k].lw].winbar",
      );
    // The winbar says what ZZ does with what is accepted now.
    expect(await winbar()).toContain("ZZ: allow 0 of 2 = reject");
    await t.nvim.input("ga");
    expect(await winbar()).toContain("ZZ: allow 1 of 2 ·");
    await t.nvim.input("gR");
    expect(await winbar()).toContain("ZZ: allow 0 of 2 = reject");
    // ZZ with nothing accepted asks; closing that list keeps the review open, nothing answered.
    await t.lua(
      "_G.done_asked = {}; vim.ui.select = function(items, opts, cb) table.insert(_G.done_asked, { prompt = opts.prompt, items = items }); cb(nil) end",
    );
    await t.nvim.input("ZZ");
    const asked = await t.lua<{ prompt: string; items: string[] }[]>("return _G.done_asked");
    expect(asked[0]!.prompt).toBe("ZZ with nothing accepted rejects the change:");
    expect(asked[0]!.items[0]).toBe("Reject the change: none of its 2 hunks accepted");
    await new Promise((r) => setTimeout(r, 300));
    expect(await t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")).toBe(1);
    expect(await c.text()).not.toContain('"optionId"');
    // Choosing to reject does.
    await t.lua("vim.ui.select = function(items, opts, cb) cb(items[1]) end");
    await t.nvim.input("ZZ");
    await c.turns(1, 20_000);
    expect(await c.text()).toContain('"optionId":"no"');
    expect(readFileSync(p, "utf8")).toBe(text(lines));
  });

  it("over a buffer with unsaved edits, the agent's text made from the disk is shown against the disk: no hunk takes the user's line out, and its write goes on top of it", async () => {
    const t = await nvim(bin);
    const p = join(t.dir, "work", "p.txt");
    writeFileSync(p, text(lines));
    const write = { request: "fs/write_text_file", params: { path: p, content: text(agentLines) }, echo: true };
    await setAgents(t, { fake: { turns: [[...askEdit(p), write]] } });
    // The user's unsaved edit on line 8, which the agent (it read the disk) knows nothing of.
    await t.lua(
      "local b = vim.fn.bufadd(...); vim.fn.bufload(b); vim.bo[b].buflisted = true; vim.api.nvim_buf_set_lines(b, 7, 8, false, { 'MINE 8' })",
      [p],
    );
    const c = await openChat(t);
    await c.ready();
    await t.lua(`vim.ui.select = function(items, opts, on_choice) on_choice(items[#items]) end`);
    await c.send("edit p");
    const open = () => t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)");
    await t.waitFor(async () => (await open()) === 1, "the review");
    const said = await t.waitFor(async () => {
      const m = await t.lua<string>("return vim.fn.execute('messages')");
      return m.includes("p.txt has unsaved edits of yours: they stay") && m;
    }, "the warning that the user's edits stay");
    expect(said).toContain("acpchat: p.txt");
    // The open review, once its tab is drawn (its left window exists).
    const shown = () =>
      t.waitFor(
        () =>
          t.lua<{ lw: number; n: number; reason: string } | null>(
            "local k = next(require('acpchat.ask.review').open_reviews); local r = k and require('acpchat.ask.review').open_reviews[k]; return r and r.lw and vim.api.nvim_win_is_valid(r.lw) and { lw = r.lw, n = #r.hunks, reason = r.reason } or vim.NIL",
          ),
        "the review's tab",
      );
    // The agent's two hunks only (before, a third took MINE 8 out).
    await t.nvim.command("stopinsert");
    const r = await shown();
    expect(r).toMatchObject({ n: 2, reason: "permission" });
    await t.lua("vim.api.nvim_set_current_win(...)", [r.lw]);
    await t.nvim.input("gA");
    await t.nvim.input("ZZ");
    // The write that follows was made from the disk: put on top of the user's line, shown again.
    await t.waitFor(async () => (await open()) === 1 && (await shown()).reason === "merged", "the write's review");
    await t.waitFor(
      async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the review tab",
    );
    const w = await shown();
    expect(w.n).toBe(2);
    await t.lua("vim.api.nvim_set_current_win(...)", [w.lw]);
    await t.nvim.command("stopinsert");
    await t.nvim.input("gA");
    await t.nvim.input("ZZ");
    await c.turns(1, 20_000);
    const buf = await t.lua<string[]>("return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)", [p]);
    expect(buf).toEqual(agentLines.map((l, i) => (i === 7 ? "MINE 8" : l)));
    expect(readFileSync(p, "utf8")).toBe(text(lines));
  });
});
