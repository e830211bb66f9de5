/**
 * The take-back review's diff windows (gd on a changes block's file, then gr) fold as vim's diff
 * mode does, with vim's own fold text: nothing of the transcript window it was opened from (its
 * manual folds, its "┆ thought (4 lines)" fold text) leaks into them. A UI attached: what is drawn.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { checkpointsReady, nvim, openChat, sendAndWaitChanges, setAgents } from "../support/chat.js";

const bins = nvimBins();
const text = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");

describe.each(bins)("Neovim $version", (bin) => {
  it("after gr in the take-back diff, both sides fold by diff with vim's fold text", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "f.txt"), text(60));
    await setAgents(t, {
      fake: {
        turns: [
          [
            { thought: "one\ntwo\nthree\nfour" },
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "t1",
                title: "sed",
                kind: "execute",
                status: "in_progress",
              },
            },
            { sh: "sed -i 's/^line 5$/FIVE/; s/^line 50$/FIFTY/' f.txt" },
            { update: { sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" } },
            { text: "edited" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    let drawn = "";
    t.nvim.on("notification", (method: string, args: unknown[]) => {
      if (method !== "redraw") return;
      for (const ev of args as unknown[][]) {
        if (ev[0] !== "grid_line") continue;
        for (const l of ev.slice(1) as [number, number, number, [string, number?, number?][]][])
          drawn += l[3].map((cell) => cell[0].repeat(cell[2] ?? 1)).join("") + "\n";
      }
    });
    await t.nvim.uiAttach(160, 40, { ext_linegrid: true } as never);
    await sendAndWaitChanges(c, "edit f");
    await c.focus();
    const row = (await c.lines()).findIndex((l) => l.includes("M f.txt"));
    await t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row + 1]);
    await t.nvim.command("stopinsert");
    await t.nvim.input("gd");
    const win = await t.waitFor(
      async () =>
        t.lua<number | null>(
          "local r = next(require('acpchat.ask.review').open_reviews); return r and require('acpchat.ask.review').open_reviews[r].lw",
        ),
      "the review to open",
    );
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 5, 0 })", [win]);
    const at = drawn.length;
    await t.nvim.input("gr");
    // Vim's own fold text on the screen ("+-- 40 lines: line 8·····"), none of the chat's.
    await t
      .waitFor(async () => /\+--\s*\d+ lines: line \d+/.test(drawn.slice(at)), "vim's fold text drawn", 5000)
      .catch(() => undefined);
    const opts = await t.lua<{ fm: string; ft: string }[]>(
      `local out = {}
       for _, w in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
         out[#out + 1] = { fm = vim.wo[w].foldmethod, ft = vim.wo[w].foldtext }
       end
       return out`,
    );
    expect(opts.length).toBe(2);
    for (const o of opts) {
      expect(o.fm).toBe("diff");
      expect(o.ft).toBe("foldtext()");
    }
    expect(drawn.slice(at)).toMatch(/\+--\s*\d+ lines: line \d+/);
    expect(drawn.slice(at)).not.toContain("┆");
  });
});
