/**
 * A 10,000-line file with every line changed: the review opens without freezing the editor.
 * A second client pings Neovim all along (its socket, while a UI is attached so the diff is
 * drawn); the longest round trip is the longest time the editor could not answer.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { attach, type NeovimClient } from "neovim";
import { afterEach, describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { agentTurn, editsNvim, reviewShown, write } from "./edits-support.js";

const bins = nvimBins();
/** A second client of the Neovim under test (the harness quits that Neovim after each test). */
let pinger: NeovimClient | undefined;
afterEach(async () => {
  await pinger?.close();
  pinger = undefined;
});

/** Ping every few ms until stopped; the longest round trip. */
function pinging(c: NeovimClient): { stop: () => Promise<{ max: number; count: number }> } {
  let running = true;
  let max = 0;
  let count = 0;
  const started = performance.now();
  const slow: [number, number][] = [];
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await c.eval("1");
      const dt = performance.now() - t0;
      if (dt > 16) slow.push([Math.round(t0 - started), Math.round(dt)]);
      max = Math.max(max, dt);
      count++;
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      if (slow.length) process.stderr.write(`slow pings [at ms, took ms]: ${JSON.stringify(slow)}\n`);
      return { max, count };
    },
  };
}

describe.each(bins)("Neovim $version", (bin) => {
  it("a 10,000-line rewrite opens in review with the editor never blocked for 100 ms", async () => {
    const { t, work } = await editsNvim(bin, { write: "review" });
    // A UI, so that the review is drawn (diff mode computes while drawing).
    await t.nvim.uiAttach(160, 50, { ext_linegrid: true, rgb: true } as never);
    const f = join(work, "big.txt");
    const old = Array.from({ length: 10_000 }, (_, i) => `line ${i} of the file, with some text ${i * 7}`);
    writeFileSync(f, old.join("\n") + "\n");
    const addr = await t.lua<string>("return vim.fn.serverstart()");
    pinger = attach({ socket: addr });
    await pinger.eval("1");
    // The chat starts first; the agent writes once the pings run.
    const chat = await agentTurn(t, [{ sleep: 500 }, write(f, old.map((l) => "    " + l).join("\n") + "\n")]);
    const ping = pinging(pinger);
    const t0 = performance.now();
    await reviewShown(t);
    const opened = performance.now() - t0;
    // Let it draw, scroll through it a little.
    await t.nvim.input("G");
    await new Promise((r) => setTimeout(r, 300));
    const { max, count } = await ping.stop();
    process.stderr.write(
      `review of a 10,000-line rewrite opened after ${opened.toFixed(0)} ms; longest ping ${max.toFixed(1)} ms over ${count} pings\n`,
    );

    expect(await t.lua("return #vim.api.nvim_buf_get_lines(0, 0, -1, false)")).toBe(10_000);
    expect(max).toBeLessThan(100);
    await t.nvim.input("ZQ");
    await chat.turns(1, 15_000);
  });
});
