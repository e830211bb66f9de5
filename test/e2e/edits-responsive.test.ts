/**
 * A 10,000-line file with every line changed: the review opens without freezing the editor.
 * A timer inside Neovim measures all along (while a UI is attached, so the diff is drawn) the
 * most CPU time the editor used between two of its ticks: the longest its loop was held.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editorLateness, nvimBins } from "../support/nvim.js";
import { agentTurn, editsNvim, reviewShown, write } from "./edits-support.js";

const bins = nvimBins();
describe.each(bins)("Neovim $version", (bin) => {
  it("a 10,000-line rewrite opens in review with the editor never blocked for 100 ms", async () => {
    const { t, work } = await editsNvim(bin, { write: "review" });
    // A UI, so that the review is drawn (diff mode computes while drawing).
    await t.nvim.uiAttach(160, 50, { ext_linegrid: true, rgb: true } as never);
    const f = join(work, "big.txt");
    const old = Array.from({ length: 10_000 }, (_, i) => `line ${i} of the file, with some text ${i * 7}`);
    writeFileSync(f, old.join("\n") + "\n");
    // The chat starts first; the agent writes once the timer runs.
    const chat = await agentTurn(t, [{ sleep: 500 }, write(f, old.map((l) => "    " + l).join("\n") + "\n")]);
    const stop = await editorLateness(t);
    const t0 = performance.now();
    await reviewShown(t);
    const opened = performance.now() - t0;
    // Let it draw, scroll through it a little.
    await t.nvim.input("G");
    await new Promise((r) => setTimeout(r, 300));
    const held = await stop();
    process.stderr.write(
      `review of a 10,000-line rewrite opened after ${opened.toFixed(0)} ms; editor busy at most ${held.busyMs.toFixed(1)} ms at once (late ${held.lateMs.toFixed(1)} ms)\n`,
    );

    expect(await t.lua("return #vim.api.nvim_buf_get_lines(0, 0, -1, false)")).toBe(10_000);
    expect(held.busyMs).toBeLessThan(100);
    await t.nvim.input("ZQ");
    await chat.turns(1, 15_000);
  });
});
