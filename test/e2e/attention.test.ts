/**
 * Attention end to end: a permission question in a hidden chat fires `User AcpChatAttention`,
 * counts in status() (kept in Lua), runs the user's notification command (the chat is not
 * shown), and :AcpChatList puts that chat first; the turn's end counts as unseen until the
 * user looks at the chat.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim, openChat, setAgents } from "../support/chat.js";

const bins = nvimBins();

const OPTIONS = [
  { optionId: "once", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

describe.each(bins)("Neovim $version", (bin) => {
  it("a question in a hidden chat: the autocmd, status() counts, a notification, first in :AcpChatList; its end unseen until looked at", async () => {
    const t = await nvim(bin);
    const out = join(t.dir, "notified.txt");
    await setAgents(
      t,
      {
        quiet: { turns: [[{ text: "nothing to ask" }]] },
        fake: {
          turns: [
            [
              {
                request: "session/request_permission",
                params: { toolCall: { toolCallId: "t1", title: "rm -rf build", kind: "execute" }, options: OPTIONS },
              },
              { text: "asked" },
            ],
          ],
        },
      },
      {
        notify: {
          enabled: true,
          method: "command",
          command: ["sh", "-c", `printf '%s|%s\\n' "$0" "$1" >> '${out}'`],
        },
      },
    );
    // Questions wait for the test to answer; the autocmd's data is recorded.
    await t.lua(`
      _G.events, _G.pending = {}, nil
      vim.ui.select = function(items, opts, on_choice) _G.pending = { items = items, on_choice = on_choice } end
      vim.api.nvim_create_autocmd("User", { pattern = "AcpChatAttention", callback = function(ev) table.insert(_G.events, ev.data) end })
    `);
    const quiet = await openChat(t, "AcpChat quiet");
    await quiet.ready();
    await t.nvim.command("tabnew");
    const c = await openChat(t, "AcpChat fake");
    await c.ready();
    expect(await t.lua("return require('acpchat').status()")).toMatchObject({ running: 0, questions: 0, unseen: 0 });
    // Hidden: its tab closes; the user is back in the first tab.
    await t.nvim.command("tabclose");
    expect(await c.windows()).toBe(0);
    await c.send("go");
    await t.waitFor(async () => await t.lua<boolean>("return _G.pending ~= nil"), "the question");
    await t.waitFor(
      async () => (await t.lua<unknown[]>("return _G.events")).length > 0,
      "the AcpChatAttention autocmd",
    );
    expect(await t.lua("return _G.events")).toEqual([{ chat: c.id, agent: "fake", kind: "question" }]);
    expect(await t.lua("return require('acpchat').status()")).toMatchObject({
      id: quiet.id,
      running: 1,
      questions: 1,
      unseen: 0,
    });
    await t.waitFor(async () => existsSync(out), "the notification command");
    expect(readFileSync(out, "utf8")).toBe(`acp-chat.nvim|fake (chat ${c.id}) asks you something\n`);
    // :AcpChatList: the chat waiting on the question first, marked.
    const listed = await t.lua<string[]>(`
      local got
      local select = vim.ui.select
      vim.ui.select = function(items, opts) got = vim.tbl_map(opts.format_item, items) end
      require('acpchat').list()
      vim.ui.select = select
      return got`);
    expect(listed[0]).toMatch(new RegExp(`^\\? waiting on you · chat ${c.id} · fake`));
    expect(listed[1]).toMatch(new RegExp(`^chat ${quiet.id} · quiet`));
    // Answered: no question waits; the turn ends unseen.
    await t.lua(
      "local p = _G.pending; _G.pending = nil; for _, it in ipairs(p.items) do if it.kind == 'allow_once' then return p.on_choice(it) end end",
    );
    await c.turns(1);
    await t.waitFor(
      async () => (await t.lua<{ kind: string }[]>("return _G.events")).some((e) => e.kind === "turn_end"),
      "turn_end",
    );
    expect(await t.lua("return require('acpchat').status()")).toMatchObject({ running: 0, questions: 0, unseen: 1 });
    await t.waitFor(async () => readFileSync(out, "utf8").includes("finished its turn"), "the turn's notification");
    const listed2 = await t.lua<string>(
      "return require('acpchat').describe(require('acpchat.chat.registry').get(...))",
      [c.id],
    );
    expect(listed2).toMatch(/^● ended unseen · /);
    // Shown here: seen.
    await t.lua("require('acpchat.chat.layout').show(require('acpchat.chat.registry').get(...))", [c.id]);
    await t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(require('acpchat.chat.registry').get(...).buf)[1])", [
      c.id,
    ]);
    await t.waitFor(
      async () => (await t.lua<{ unseen: number }>("return require('acpchat').status()")).unseen === 0,
      "seen once shown",
    );
  });
});
