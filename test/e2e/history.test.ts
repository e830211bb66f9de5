/** Local history: a session resumed without a replay shows what the plugin recorded for it. */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { answers, chatHandle, startChat, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("resume without replay: the recorded transcript, marked as local history, with the conversation going on below", async () => {
    const a = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
      title: "Refactor",
      turns: [[{ text: "the answer from before" }]],
    });
    await a.ready();
    await a.send("refactor it");
    await a.turns(1);
    const before = await a.lines();
    await a.t.nvim.command("AcpChatClose");
    await answers(a.t, [""]);
    await a.t.nvim.command("AcpChatSessions");
    await a.t.waitFor(
      async () => (await a.t.lua<number>("return vim.tbl_count(require('acpchat.chat.registry').chats)")) === 1,
      "the resumed chat",
    );
    const b = await chatHandle(a.t);
    await b.ready();
    await b.t.waitFor(async () => (await b.text()).includes("local history"), "the local history");
    const lines = await b.lines();
    expect(lines[0]).toMatch(/^── local history: .*without replaying it ──$/);
    expect(lines.slice(1, 1 + before.length)).toEqual(before);
    expect(lines[1 + before.length]).toBe("── end of local history ──");
    // The conversation goes on below it.
    await b.send("and now?");
    await b.turns(1);
    expect((await b.text()).indexOf("> and now?")).toBeGreaterThan((await b.text()).indexOf("end of local history"));
  });

  it("each turn writes what changed since the last save; the file always equals the transcript", async () => {
    const c = await startChat(bin, { turns: [[{ text: "one\ntwo" }], [{ text: "three" }]] });
    await c.ready();
    const file = async () => {
      const path = await c.t.lua<string>(
        "local c = require('acpchat.chat.registry').get(...); return require('acpchat.transcript.history').dir() .. '/' .. c.status.session_id:gsub('[^%w%-_.]', '_') .. '.md'",
        [c.id],
      );
      return (await import("node:fs")).readFileSync(path, "utf8");
    };
    const shown = async () => `${(await c.lines()).join("\n")}\n`;
    await c.send("first");
    await c.turns(1);
    await c.t.waitFor(async () => (await file().catch(() => "")) === (await shown()), "the first turn saved");
    await c.send("second");
    await c.turns(2);
    await c.t.waitFor(async () => (await file()) === (await shown()), "the second turn appended");
    // A line of an earlier turn redrawn (as a tool call's update would): the file follows.
    await c.t.lua(
      "local b = ...; vim.bo[b].modifiable = true; vim.api.nvim_buf_set_lines(b, 2, 3, false, { 'REDRAWN', 'AND LONGER' }); vim.bo[b].modifiable = false",
      [c.buf],
    );
    await c.send("third");
    await c.turns(3);
    await c.t.waitFor(async () => (await file()) === (await shown()), "the redrawn line saved");
    expect(await file()).toContain("REDRAWN\nAND LONGER\n");
  });
});
