/** The chat's windows as a daily driver: sizes, pairs, following the reply, where a question leaves you. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { startChat, shareNvim, ownNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("keeps sensible sizes when Neovim is resized, and the transcript and prompt close as a pair", async () => {
    ownNvim(); // attaches a UI
    const c = await startChat(bin, {});
    const { t } = c;
    const size = () =>
      t.lua<{ tw: number; th: number; ph: number }>(
        `
      local c = require('acpchat.chat.registry').get(...)
      local tw = vim.fn.win_findbuf(c.buf)[1]
      local pw = vim.fn.win_findbuf(c.prompt_buf)[1]
      return { tw = vim.api.nvim_win_get_width(tw), th = vim.api.nvim_win_get_height(tw), ph = vim.api.nvim_win_get_height(pw) }`,
        [c.id],
      );
    await t.nvim.uiAttach(200, 50, { ext_linegrid: true });
    await t.nvim.uiTryResize(30, 12);
    await t.waitFor(async () => (await t.lua<number>("return vim.o.columns")) === 30, "the resize");
    await t.nvim.uiTryResize(200, 50);
    await t.waitFor(async () => (await size()).tw > 40, "the chat to grow back");
    const s = await size();
    expect(s.th).toBeGreaterThan(20);
    expect(s.ph).toBeGreaterThanOrEqual(1);
    await t.nvim.command("wincmd =");
    await t.nvim.command("doautocmd VimResized");
    expect((await size()).tw).toBeGreaterThan(40);
    // :q on the transcript takes the prompt with it; :AcpChatToggle brings both back, once.
    await t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [c.buf]);
    await t.nvim.command("q");
    await t.waitFor(
      async () => (await t.lua<number>("return #vim.fn.win_findbuf(...)", [c.promptBuf])) === 0,
      "the prompt window to close too",
    );
    await t.nvim.command("AcpChatToggle");
    expect(await t.lua<number>("return #vim.fn.win_findbuf(...)", [c.buf])).toBe(1);
    expect(await t.lua<number>("return #vim.fn.win_findbuf(...)", [c.promptBuf])).toBe(1);
    await t.nvim.uiDetach();
  });

  it("sending scrolls to the end and follows the reply; scrolled up, a marker says new text arrived below", async () => {
    const c = await startChat(bin, {
      turns: [
        [{ text: Array.from({ length: 60 }, (_, i) => `line ${i}`).join("\n") }],
        // The rest comes once the test scrolled up (a file it writes), not after a fixed
        // 400 ms that a loaded machine could spend before the scroll.
        [
          { text: "start" },
          { sh: "for i in $(seq 400); do [ -e $DIR/scrolled ] && break; sleep 0.05; done" },
          { text: "\nmore\nand more" },
        ],
      ],
    });
    await c.ready();
    const win = await c.t.lua<number>("return vim.fn.win_findbuf(...)[1]", [c.buf]);
    const cursor = () => c.t.lua<number>("return vim.api.nvim_win_get_cursor(...)[1]", [win]);
    const last = () => c.t.lua<number>("return vim.api.nvim_buf_line_count(...)", [c.buf]);
    await c.send("one");
    await c.turns(1);
    expect(await cursor()).toBe(await last());
    // Scrolled to the top, the user sends again: back to the end, following.
    await c.t.lua("vim.api.nvim_win_set_cursor(..., { 1, 0 })", [win]);
    await c.send("two");
    await c.t.waitFor(async () => (await c.text()).includes("start"), "the reply to begin");
    expect(await cursor()).toBe(await last());
    // Scrolled up while it streams: the window keeps its place, the winbar says there is more.
    await c.t.lua("vim.api.nvim_win_set_cursor(..., { 1, 0 })", [win]);
    writeFileSync(join(c.t.dir, "scrolled"), "");
    await c.turns(2);
    expect(await cursor()).toBe(1);
    expect(await c.t.lua<string>("return vim.wo[...].winbar", [win])).toContain("↓ new ↓");
    await c.t.lua("vim.api.nvim_set_current_win(...); vim.cmd('normal! G')", [win]);
    await c.t.waitFor(
      async () => !(await c.t.lua<string>("return vim.wo[...].winbar", [win])).includes("↓ new"),
      "the marker to go",
    );
  });

  it("after a question the user is back where they were, typing in the prompt", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          { sleep: 300 },
          {
            request: "session/request_permission",
            params: {
              toolCall: { toolCallId: "t1", title: "Touch a file", kind: "edit" },
              options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
            },
          },
          { text: "allowed" },
        ],
      ],
    });
    await c.ready();
    // A picker that takes the focus into a window of its own, as telescope or fzf-lua do.
    await c.t.lua(`vim.ui.select = function(items, opts, cb)
      local b = vim.api.nvim_create_buf(false, true)
      local w = vim.api.nvim_open_win(b, true, { relative = "editor", row = 1, col = 1, width = 20, height = 3 })
      vim.cmd("stopinsert")
      vim.defer_fn(function() vim.api.nvim_win_close(w, true); cb(items[1], 1) end, 100)
    end`);
    await c.send("go");
    // The user is typing the next prompt when the question comes.
    await c.t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [c.promptBuf]);
    await c.t.nvim.input("<Esc>ithe next");
    // It waits while the user types; the answer key opens it.
    await c.t.waitFor(async () => (await c.winbar()).includes("? <M-a> answers"), "the question to wait");
    await c.t.nvim.input("<M-a>");
    await c.turns(1);
    await c.t
      .waitFor(async () => (await c.t.lua<string>("return vim.api.nvim_get_mode().mode")) === "i", "insert mode again")
      .catch(async (e) => {
        throw new Error(
          `${e} ${JSON.stringify(await c.t.lua("return { vim.api.nvim_get_mode().mode, vim.api.nvim_get_current_buf(), vim.fn.execute('messages') }"))}`,
        );
      });
    expect(await c.t.lua("return vim.api.nvim_get_current_buf()")).toBe(c.promptBuf);
    await c.t.nvim.input(" prompt");
    await c.t.waitFor(
      async () => (await c.promptLines()).join("") === "the next prompt",
      "typing to go on where it was",
    );
  });

  it("the chat's window options never leak into windows opened from it", async () => {
    const c = await startChat(bin, {});
    await c.t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [c.buf]);
    await c.t.nvim.command("split | enew");
    expect(await c.t.lua("return vim.wo.foldtext")).toBe(await c.t.lua("return vim.go.foldtext"));
    expect(await c.t.lua("return vim.wo.wrap")).toBe(await c.t.lua("return vim.go.wrap"));
  });
});

describe.each(bins)("Neovim $version: notifications", (bin) => {
  it("with Neovim's own vim.notify, every note is one line that fits: never a hit-enter prompt", async () => {
    ownNvim(); // attaches a UI
    const c = await startChat(bin, { byText: { boom: [{ exit: 7 }] } });
    await c.ready();
    await c.t.nvim.uiAttach(60, 10, { ext_linegrid: true });
    await c.send("boom");
    await c.waitState("crashed");
    await c.t.lua(
      "require('acpchat.util').notify(string.rep('a very long reason ', 20) .. '\\nand a second line', vim.log.levels.WARN)",
    );
    await c.t.waitFor(
      async () => (await c.t.lua<string>("return vim.fn.execute('messages')")).includes("a very long reason"),
      "the note",
    );
    const messages = (await c.t.lua<string>("return vim.fn.execute('messages')"))
      .split("\n")
      .filter((l) => l.startsWith("acpchat") || l.includes("very long"));
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) expect(m.length).toBeLessThanOrEqual(60);
    // Nothing waits for Enter: the editor takes the next command at once.
    expect(await c.t.lua<string>("return vim.api.nvim_get_mode().mode")).not.toBe("r");
    expect((await c.t.lua<{ blocking: boolean }>("return vim.api.nvim_get_mode()")).blocking).toBe(false);
    await c.t.nvim.uiDetach();
  });
});
