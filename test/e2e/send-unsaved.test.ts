/**
 * The unsaved buffers named to the agent come with the prompt from the editor: a prompt that
 * goes at once reaches the agent without a round trip to ask the editor again (the
 * prompt's way to the agent is on the user's clock); a prompt that waited in the queue asks when
 * it goes, so an edit made while it waited is named.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { openChat, received, sendAndWait, shareNvim, withAgents } from "../support/chat.js";

const bins = nvimBins();
shareNvim();

/** The text blocks of the agent's `n`th prompt (0-based), joined. */
function promptText(dir: string, n: number): string {
  const p = received(dir, "session/prompt")[n] as { prompt: { type: string; text?: string }[] };
  return p.prompt
    .filter((b) => b.type === "text")
    .map((b) => b.text)
    .join("");
}

describe.each(bins)("Neovim $version", (bin) => {
  it("a prompt sent at once names the unsaved buffers without asking the editor; a queued one asks when it goes", async () => {
    const t = await withAgents(
      bin,
      {
        fake: {
          record: "$DIR/record.jsonl",
          // The first turn runs until the test lets it end (the file "go"): the second prompt
          // waits behind it however slow the machine.
          turns: [
            [
              { sh: "i=0; while [ ! -f $DIR/go ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done" },
              { text: "first done" },
            ],
            [{ text: "second done" }],
          ],
        },
      },
      // Off: a prompt sent before the folder's first snapshot waits for it (and then asks).
      { checkpoints: { enabled: false } },
    );
    const work = join(t.dir, "work");
    mkdirSync(work, { recursive: true });
    for (const f of ["a.txt", "b.txt"]) writeFileSync(join(work, f), `${f}\n`);
    // a.txt with unsaved edits; b.txt loaded, saved.
    await t.nvim.command(`edit ${join(work, "b.txt")}`);
    await t.nvim.command(`edit ${join(work, "a.txt")}`);
    await t.lua("vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'changed' })");
    // Count the host's questions for the open buffers.
    await t.lua(`
      _G.asked = 0
      local tools = require("acpchat.editor.editor_tools")
      local query = tools.query
      tools.query = function(p)
        if p.tool == "open_buffers" then _G.asked = _G.asked + 1 end
        return query(p)
      end`);
    const c = await openChat(t);
    await c.ready();

    // Sent at once: the note names a.txt, and the editor was not asked.
    await c.send("one");
    await t.waitFor(async () => received(t.dir, "session/prompt").length >= 1, "the first prompt");
    expect(promptText(t.dir, 0)).toMatch(/unsaved edits in the editor, newer than the disk: a\.txt;/);
    expect(await t.lua<number>("return _G.asked")).toBe(0);

    // Sent while the first turn runs: it waits. b.txt is changed meanwhile: the note it goes
    // with names both (the editor is asked when it goes, not told when it was sent).
    await c.send("two");
    await t.waitFor(async () => ((await c.status()).queued ?? []).length === 1, "the second prompt queued");
    await t.lua("vim.cmd.buffer(vim.fn.bufnr(...)); vim.api.nvim_buf_set_lines(0, 0, -1, false, { 'also' })", [
      join(work, "b.txt"),
    ]);
    writeFileSync(join(t.dir, "go"), "");
    await c.turns(2);
    expect(promptText(t.dir, 1)).toMatch(/unsaved edits in the editor, newer than the disk: a\.txt, b\.txt;/);
    expect(await t.lua<number>("return _G.asked")).toBe(1);

    // Nothing unsaved: no note, still no question.
    await t.lua("for _, b in ipairs(vim.api.nvim_list_bufs()) do vim.bo[b].modified = false end");
    await sendAndWait(c, "three");
    expect(promptText(t.dir, 2)).not.toContain("unsaved edits");
    expect(await t.lua<number>("return _G.asked")).toBe(1);
  });
});
