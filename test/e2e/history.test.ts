/** Local history: a session resumed without a replay shows what the plugin recorded for it. */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { answers, chatHandle, startChat } from "../support/chat.js";

const bins = nvimBins();

describe.each(bins)("Neovim $version", (bin) => {
  it("resume without replay: the recorded transcript, marked as local history, with the conversation going on below", async () => {
    const a = await startChat(bin, { store: "$DIR/store.json", agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } }, title: "Refactor", turns: [[{ text: "the answer from before" }]] });
    await a.ready();
    await a.send("refactor it");
    await a.turns(1);
    const before = await a.lines();
    await a.t.nvim.command("AcpChatClose");
    await answers(a.t, [""]);
    await a.t.nvim.command("AcpChatSessions");
    await a.t.waitFor(async () => (await a.t.lua<number>("return vim.tbl_count(require('acpchat.registry').chats)")) === 1, "the resumed chat");
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
});
