/** The chat's statuses and notes read in every built-in colour scheme, light and dark. */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim } from "../support/chat.js";

const bins = nvimBins();

describe.each(bins)("Neovim $version", (bin) => {
  it("every group that carries meaning contrasts with the background (WCAG ≥ 3) in every built-in scheme", async () => {
    const t = await nvim(bin);
    const bad = await t.lua<string[]>(`
      vim.o.termguicolors = true
      local hl = require("acpchat.highlights")
      local bad = {}
      for _, scheme in ipairs(vim.fn.getcompletion("", "color")) do
        for _, bg in ipairs({ "dark", "light" }) do
          vim.o.background = bg
          local ok = pcall(vim.cmd.colorscheme, scheme)
          if ok then
            local back = hl.normal()
            for group in pairs(hl.legible) do
              local c = hl.contrast(hl.fg(group), back)
              if c < hl.min_contrast then
                table.insert(bad, string.format("%s (%s): %s %.2f", scheme, vim.o.background, group, c))
              end
            end
          end
        end
      end
      return bad
    `);
    expect(bad).toEqual([]);
    // "done" in morning, the case that was invisible.
    const done = await t.lua<number>(`
      vim.o.background = "light"; vim.cmd.colorscheme("morning")
      local hl = require("acpchat.highlights")
      return hl.contrast(hl.fg("AcpChatToolDone"), hl.normal())
    `);
    expect(done).toBeGreaterThanOrEqual(3);
  });
});
