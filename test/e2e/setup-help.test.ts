/**
 * `:help acpchat` works right after installing the plugin the way plugin managers do, without
 * anyone running :helptags: the tags ship in doc/tags. Two installs: a native package
 * (pack/<name>/start/acp-chat.nvim, as paq, mini.deps or a git clone do) and the checkout
 * prepended to 'runtimepath' (as lazy.nvim does).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { nvimBins, ROOT } from "../support/nvim.js";
import { nvim } from "../support/chat.js";

const bins = nvimBins();
const scratch = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-help-")));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An init.lua that installs the checkout one way. The help needs none of the plugin's code, so
 * plugin/acpchat.lua is skipped (this test is about the tags, not about starting the host). */
function init(name: string, install: string): string {
  const f = join(scratch, `${name}.lua`);
  writeFileSync(f, `vim.g.loaded_acpchat = 1\n${install}\n`);
  return f;
}

function packInit(): string {
  const pack = join(scratch, "site");
  const dir = join(pack, "pack", "plugins", "start");
  mkdirSync(dir, { recursive: true });
  try {
    symlinkSync(ROOT, join(dir, "acp-chat.nvim"));
  } catch {
    // Already made for the other Neovim.
  }
  return init("pack", `vim.opt.packpath:prepend(${JSON.stringify(pack)})`);
}

const installs = [
  { how: "native package (pack/*/start)", init: packInit },
  { how: "runtimepath, like lazy.nvim", init: () => init("rtp", `vim.opt.rtp:prepend(${JSON.stringify(ROOT)})`) },
];

describe.each(bins)("Neovim $version", (bin) => {
  it.each(installs)(":help acpchat after installing as a $how, without :helptags", async ({ init }) => {
    const t = await nvim(bin, {}, {}, init());
    // One manual on the runtimepath: the test must not pass thanks to some other copy.
    const found = await t.lua<string[]>("return vim.api.nvim_get_runtime_file('doc/acpchat.txt', true)");
    expect(found.length).toBe(1);
    const opened = async (subject: string) => {
      // Throws "E149: Sorry, no help for ..." when the tags are missing.
      await t.nvim.command(`help ${subject}`);
      return t.lua<{ file: string; buftype: string; line: string }>(
        "return { file = vim.uv.fs_realpath(vim.api.nvim_buf_get_name(0)), buftype = vim.bo.buftype, line = vim.api.nvim_get_current_line() }",
      );
    };
    const main = await opened("acpchat");
    expect(main).toMatchObject({ file: realpathSync(join(ROOT, "doc/acpchat.txt")), buftype: "help" });
    expect(main.line).toMatch(/^\*acpchat\.txt\*.*\*acpchat\*$/);
    expect((await opened("acpchat-options")).line).toContain("*acpchat-options*");
    expect((await opened(":AcpChatSave")).line).toContain("*:AcpChatSave*");
    expect((await opened("acpchat-timeouts")).line).toContain("*acpchat-timeouts*");
  });
});
