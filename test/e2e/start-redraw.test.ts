/**
 * While an agent starts (a slow initialize), the editor keeps drawing: a command typed then
 * shows its result on the screen at once, not when the agent is ready (or after <C-l>). A UI
 * attached: what is drawn, and when.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loopWatch } from "../support/loop-watch.js";
import { nvimBins } from "../support/nvim.js";
import { fakeAgent, nvim, openChat } from "../support/chat.js";

const bins = nvimBins();

describe.each(bins)("Neovim $version", (bin) => {
  it(":e during a slow agent start draws the file within 100 ms", async () => {
    const t = await nvim(bin);
    writeFileSync(join(t.dir, "work", "notes.txt"), "hello from notes\n");
    await t.lua("require('acpchat').setup(...)", [
      { agents: { fake: fakeAgent(t, { delays: { initialize: 6000 }, turns: [[]] }) } },
    ]);
    let drawn = "";
    let at = 0;
    let seen = 0;
    t.nvim.on("notification", (method: string, args: unknown[]) => {
      if (method !== "redraw") return;
      for (const ev of args as unknown[][]) {
        if (ev[0] !== "grid_line") continue;
        for (const l of ev.slice(1) as [number, number, number, [string, number?, number?][]][])
          drawn += l[3].map((cell) => cell[0].repeat(cell[2] ?? 1)).join("") + "\n";
      }
      if (!seen && at && drawn.slice(at).includes("hello from notes")) seen = Date.now();
    });
    await t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
    const c = await openChat(t, "AcpChat");
    // Starting: the agent has not answered initialize yet.
    await t.waitFor(async () => drawn.includes("starting"), "the chat drawn while it starts", 5000);
    const stop = await loopWatch((code) => t.lua(code));
    await t.nvim.input("<Esc>");
    await t.nvim.input("<C-w>h");
    at = drawn.length;
    const sent = Date.now();
    await t.nvim.input(":e notes.txt<CR>");
    await t.waitFor(async () => seen > 0, "the file drawn", 5000);
    const { busyMs, loadMs, heldMs } = await stop();
    expect(await t.lua<string>("return vim.fn.expand('%:t')")).toBe("notes.txt");
    expect(
      await t.lua<boolean>(`return require('acpchat.chat.registry').get(${c.id}).status.state == 'starting'`),
    ).toBe(true);
    // Nothing held the editor's loop (working, or blocked in a call that waits), and the screen
    // showed the file long before the agent was ready (6 s): within 100 ms, plus what the
    // machine's load made the editor late (twice: the keys' way in and the screen's way out).
    expect(busyMs).toBeLessThan(100);
    expect(heldMs).toBeLessThan(100);
    expect(seen - sent).toBeLessThan(100 + 2 * loadMs);
  });
});
