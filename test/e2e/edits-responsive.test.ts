/**
 * A 10,000-line file with every line changed: the review opens without freezing the editor.
 * A timer inside Neovim measures all along (while a UI is attached, so the diff is drawn) the
 * most CPU time the editor used between two of its ticks: the longest its loop was held. A second
 * client asks Neovim for `1` meanwhile: a synchronous request to Node (which runs Neovim's loop
 * for timers but answers no other client) shows only there.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { attach } from "neovim";
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
    const other = attach({ socket: await t.lua<string>("return vim.fn.serverstart()") });
    let pinging = true;
    let ping = 0;
    const pinger = (async () => {
      while (pinging) {
        const p0 = performance.now();
        await other.eval("1");
        ping = Math.max(ping, performance.now() - p0);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const stop = await editorLateness(t);
    const t0 = performance.now();
    await reviewShown(t);
    const opened = performance.now() - t0;
    // Let it draw, scroll through it a little.
    await t.nvim.input("G");
    await new Promise((r) => setTimeout(r, 300));
    const held = await stop();
    pinging = false;
    await pinger;
    await other.close();
    process.stderr.write(
      `review of a 10,000-line rewrite opened after ${opened.toFixed(0)} ms; editor busy at most ${held.busyMs.toFixed(1)} ms at once (late ${held.lateMs.toFixed(1)} ms, a client's longest wait ${ping.toFixed(1)} ms)\n`,
    );

    expect(await t.lua("return #vim.api.nvim_buf_get_lines(0, 0, -1, false)")).toBe(10_000);
    expect(held.busyMs).toBeLessThan(100);
    // A wait that uses no CPU (a synchronous request to Node) shows only on the clock: bounded
    // loosely, for a loaded test machine.
    expect(held.lateMs).toBeLessThan(400);
    expect(ping).toBeLessThan(400);
    await t.nvim.input("ZQ");
    await chat.turns(1, 15_000);
  });
});
