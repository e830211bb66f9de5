/**
 * Chat tabs get readable labels (`fake #1`, not Vim's `3+ a//1/prompt`) through a 'tabline' of
 * the plugin's, set only when the user has none of their own; other tabs read as Vim labels
 * them. A UI attached: what the tab line draws.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import { fakeAgent, nvim, openChat } from "../support/chat.js";

const bins = nvimBins();

/** The top row of the screen (the tab line) as drawn last. */
function tabLineRow(t: TestNvim): () => string {
  const row: string[] = [];
  t.nvim.on("notification", (method: string, args: unknown[]) => {
    if (method !== "redraw") return;
    for (const ev of args as unknown[][]) {
      if (ev[0] !== "grid_line") continue;
      for (const [, r, col, cells] of ev.slice(1) as [number, number, number, [string, number?, number?][]][]) {
        if (r !== 0) continue;
        let c = col;
        for (const cell of cells)
          for (let k = 0; k < (cell[2] ?? 1); k++) {
            row[c++] = cell[0];
          }
      }
    }
  });
  return () => row.join("");
}

/** A Neovim with the fake agent set up (after `before`, Lua run first), a 120x30 UI attached, and its tab line. */
async function withTabLine(bin: (typeof bins)[number], before?: string) {
  const t = await nvim(bin);
  if (before) await t.lua(before);
  await t.lua("require('acpchat').setup(...)", [{ agents: { fake: fakeAgent(t, { turns: [[]] }) } }]);
  const row = tabLineRow(t);
  await t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
  return { t, row };
}

describe.each(bins)("Neovim $version", (bin) => {
  it("a chat tab reads by its agent; the user's file tab as Vim labels it", async () => {
    const { t, row } = await withTabLine(bin);
    writeFileSync(join(t.dir, "work", "notes.txt"), "x\n");
    await t.nvim.command("edit notes.txt");
    await t.nvim.command("tabnew");
    const c = await openChat(t, "AcpChat");
    await c.ready();
    await c.focusPrompt();
    await t.waitFor(async () => row().includes("fake #1"), "the chat tab's label", 5000).catch(() => undefined);
    expect(row()).toMatch(/^ notes\.txt +[\d+]* ?fake #1 /);
    expect(row()).not.toContain("a//1/prompt");
    expect(await t.lua("return vim.go.tabline")).toBe("%!v:lua.require'acpchat.chat.tabline'.render()");
  });

  it("a tab showing a URI-like buffer (health://, fugitive://) reads by its name, not a shortened path", async () => {
    const { t, row } = await withTabLine(bin);
    const c = await openChat(t, "AcpChat");
    await c.ready();
    await t.nvim.command("tabnew | setlocal buftype=nofile | file health://");
    await t.waitFor(async () => row().includes(" health:// "), "the tab's label", 5000).catch(() => undefined);
    expect(row()).toContain(" health:// ");
    expect(row()).not.toContain("h//");
  });

  it("a 'tabline' of the user's is never replaced", async () => {
    const { t, row } = await withTabLine(bin, "vim.go.tabline = 'MINE'; vim.go.showtabline = 2");
    const c = await openChat(t, "AcpChat");
    await c.ready();
    await t.nvim.command("redraw!");
    await t.waitFor(async () => row().startsWith("MINE"), "the user's tab line");
    expect(await t.lua("return vim.go.tabline")).toBe("MINE");
  });
});
