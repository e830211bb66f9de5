/**
 * A refused prompt (`@selection` with nothing selected) says why where the user looks: the
 * prompt's winbar, drawn at once while they type, and the prompt keeps its text. Keys typed one
 * at a time, a UI attached.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { startChat } from "../support/chat.js";

const bins = nvimBins();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(bins)("Neovim $version: refusals are shown where the user looks", (bin) => {
  it("@selection with nothing selected, sent from Insert mode: the prompt's winbar says why, the text stays", async () => {
    const c = await startChat(bin, { turns: [] }, {}, {});
    await c.ready();
    let drawn = "";
    c.t.nvim.on("notification", (method: string, args: unknown[]) => {
      if (method !== "redraw") return;
      for (const ev of args as unknown[][]) {
        if (ev[0] !== "grid_line") continue;
        for (const l of ev.slice(1) as [number, number, number, [string, number?, number?][]][])
          drawn += l[3].map((cell) => cell[0].repeat(cell[2] ?? 1)).join("") + "\n";
      }
    });
    await c.t.nvim.uiAttach(120, 30, { ext_linegrid: true } as never);
    await c.focusPrompt();
    await c.t.nvim.input("<Esc>");
    await c.t.nvim.input("i");
    for (const ch of "see @selection") {
      await c.t.nvim.input(ch === " " ? "<Space>" : ch === "@" ? "@" : ch);
      await sleep(30);
    }
    await c.t.nvim.input("<Esc>");
    await c.t.nvim.input("a");
    const at = drawn.length;
    await c.t.nvim.input("<C-s>");
    await c.t.waitFor(async () => drawn.slice(at).includes("✗ not sent: @selection: nothing"), "the refusal drawn");
    expect(await c.promptWinbar()).toContain("✗ not sent: @selection: nothing was selected");
    expect(await c.promptLines()).toEqual(["see @selection"]);
    expect(await c.t.lua<string>("return vim.api.nvim_get_mode().mode")).toBe("i");
    // Editing the prompt clears it.
    await c.t.nvim.input("!");
    await c.t.waitFor(async () => !(await c.promptWinbar()).includes("not sent"), "the refusal cleared");
    expect(await c.promptLines()).toEqual(["see @selection!"]);
  });
});
