/**
 * The review loop end to end, in a real Neovim with the fake agent changing files itself:
 * :AcpChatReview 1 lists every file of two turns in one tab, a hunk is taken back there, a
 * comment goes to the agent as one prompt (path, line, the code, the text), approve moves the
 * baseline, and the next review shows only what came after it (across a restart of the agent).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import { checkpointsReady, nvim, openChat, received, sendAndWaitChanges, setAgents } from "../support/chat.js";

const bins = nvimBins();

const lines = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const tool = (id: string) => ({
  update: { sessionUpdate: "tool_call", toolCallId: id, title: "edit", kind: "execute", status: "in_progress" },
});
const done = (id: string) => ({ update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } });
const turn = (id: string, sh: string) => [tool(id), { sh }, done(id), { text: "done" }];

/** Row `r` of the screen as drawn last (a UI attached). */
function screenRow(t: TestNvim, r: number): () => string {
  const row: string[] = [];
  t.nvim.on("notification", (method: string, args: unknown[]) => {
    if (method !== "redraw") return;
    for (const ev of args as unknown[][]) {
      if (ev[0] !== "grid_line") continue;
      for (const [, at, col, cells] of ev.slice(1) as [number, number, number, [string, number?, number?][]][]) {
        if (at !== r) continue;
        let c = col;
        for (const cell of cells) for (let k = 0; k < (cell[2] ?? 1); k++) row[c++] = cell[0];
      }
    }
  });
  return () => row.join("");
}

/** The review tab's list, once it shows `n` files. */
async function reviewList(t: TestNvim, n: number): Promise<string[]> {
  return t.waitFor(async () => {
    const l = await t.lua<string[] | null>(
      "local _, loop = next(require('acpchat.review.loop').loops); return loop and vim.api.nvim_buf_get_lines(loop.list_buf, 0, -1, false)",
    );
    return l && l.filter((x) => /^[AMDRT][ ✎] /.test(x)).length === n && l;
  }, `the review to list ${n} files`);
}

describe.each(bins)("Neovim $version", (bin) => {
  it("review two turns' files, take a hunk back, send a comment, approve, and see only the next turn", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "a.txt"), text(lines(20)));
    writeFileSync(join(work, "b.txt"), text(lines(10, "bee")));
    writeFileSync(join(work, "keep.txt"), "untouched\n");
    await setAgents(t, {
      fake: {
        record: "$DIR/record.jsonl",
        // Resumable: the crash below is followed by a resume of the same session.
        store: "$DIR/store.json",
        agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
        byText: {
          one: turn(
            "t1",
            "sed -i 's/^line 3$/LINE THREE/; s/^line 15$/LINE 15/' a.txt && sed -i 's/^bee 2$/BEE/' b.txt",
          ),
          two: turn("t2", "printf 'new one\\nnew two\\n' > c.txt && sed -i 's/^line 18$/LINE 18/' a.txt"),
          boom: [{ text: "going down" }, { exit: 3 }],
          four: turn("t4", "printf 'three\\n' >> c.txt"),
        },
        turns: [[{ text: "I will fix it" }]],
      },
    });
    const tabLine = screenRow(t, 0);
    await t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWaitChanges(c, "one");
    await sendAndWaitChanges(c, "two");

    // :AcpChatReview 1: one tab, the three files, with their figures and turns.
    await t.nvim.command("AcpChatReview 1");
    const list = await reviewList(t, 3);
    expect(list[0]).toMatch(/^M {2}a\.txt {2}\+3 -3 {2}turn 1, turn 2$/);
    expect(list[1]).toMatch(/^M {2}b\.txt {2}\+1 -1 {2}turn 1$/);
    expect(list[2]).toMatch(/^A {2}c\.txt {2}\+2 -0 {2}turn 2$/);
    // The tab reads by the range and the file shown (not by the list's buffer, `acpchat: 1`).
    await t.waitFor(async () => tabLine().includes("review turns 1-2: a.txt"), "the review tab's label", 5000);
    expect(tabLine()).not.toContain("acpchat: 1");
    // The first file's diff is shown in the same tab, in diff mode.
    const r = await t.waitFor(
      () =>
        t.lua<{ lw: number; tab: number; path: string } | null>(
          "for _, r in pairs(require('acpchat.ask.review').open_reviews) do if r.lw then return { lw = r.lw, tab = r.tab, path = r.path } end end",
        ),
      "a.txt's review in the tab",
    );
    expect(r.path).toBe(join(work, "a.txt"));
    expect(await t.lua("return vim.api.nvim_get_current_tabpage()")).toBe(r.tab);
    expect(await t.lua("return vim.wo[...].diff", [r.lw])).toBe(true);
    // A review the user opened is not the agent waiting on them.
    expect(await t.lua("return require('acpchat').status().questions")).toBe(0);
    // gr on the hunk of line 15, ZZ: taken back from the file, the others kept.
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 15, 0 })", [r.lw]);
    await t.nvim.input("gr");
    await t.nvim.input("ZZ");
    await t.waitFor(async () => readFileSync(join(work, "a.txt"), "utf8").includes("line 15\n"), "line 15 back");
    const a = readFileSync(join(work, "a.txt"), "utf8").split("\n");
    expect([a[2], a[14], a[17]]).toEqual(["LINE THREE", "line 15", "LINE 18"]);
    // ]f: the next file's review.
    await t.waitFor(async () => (await reviewList(t, 3))[0]!.includes("+2 -2"), "the list redrawn after the take-back");
    await t.nvim.input("]f");
    await t.waitFor(
      () =>
        t.lua<boolean>(
          "for _, r in pairs(require('acpchat.ask.review').open_reviews) do if r.lw and r.path:match('b%.txt$') then return true end end return false",
        ),
      "b.txt's review after ]f",
    );

    // A comment on line 3 of a.txt (its buffer), shown as virtual text and listed.
    await t.nvim.command(`tabnew ${join(work, "a.txt")}`);
    await t.nvim.command("3AcpChatComment use a constant here");
    const marks = await t.lua<string[]>(
      "local out = {} for _, m in ipairs(vim.api.nvim_buf_get_extmarks(0, -1, 0, -1, { details = true })) do if m[4].virt_text then out[#out + 1] = m[2] .. ':' .. m[4].virt_text[1][1] end end return out",
    );
    expect(marks).toEqual(["2:  ◆ comment: use a constant here"]);
    await t.nvim.command("tabprevious");
    expect((await reviewList(t, 3)).join("\n")).toContain("◆ a.txt:3  use a constant here");
    // :AcpChatReview send: one prompt with the path, line, the code and the comment.
    await t.nvim.command("AcpChatReview send");
    await c.turns(3);
    const prompts = received(t.dir, "session/prompt");
    const sent = (prompts[prompts.length - 1]!.prompt as { text?: string }[]).map((b) => b.text ?? "").join("\n");
    expect(sent).toContain("a.txt:3\n```text\nLINE THREE\n```\nComment: use a constant here");
    expect(prompts.length).toBe(3);
    expect((await reviewList(t, 3)).join("\n")).toContain("✓ a.txt:3  use a constant here");

    // Approve; the agent crashes and :AcpChat resumes it (the baseline stays); one more turn:
    // the next review shows only its change.
    await t.nvim.command("AcpChatReview approve");
    await t.waitFor(
      async () => (await t.lua<number>("return vim.tbl_count(require('acpchat.review.loop').loops)")) === 0,
      "the review closed on approve",
    );
    await c.send("boom");
    await c.waitState("crashed");
    await t.nvim.command("AcpChat");
    await c.ready();
    await sendAndWaitChanges(c, "four");
    await t.nvim.command("AcpChatReview");
    const next = await reviewList(t, 1);
    expect(next[0]).toMatch(/^M {2}c\.txt {2}\+1 -0 {2}turn 5$/);
    expect(await t.lua("return vim.wo.winbar")).toContain("(since you approved)");
  });
});
