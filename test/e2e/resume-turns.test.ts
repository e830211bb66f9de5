/**
 * A session resumed from :AcpChatSessions by an agent that replays nothing: the local history
 * shows above, the new turns are numbered after its turns, gd on its changes block says why
 * it cannot review them, and :AcpChatRewind of one of its turns says so instead of taking
 * another turn with that number.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import {
  answers,
  chatCount,
  chatHandle,
  checkpointsReady,
  notes,
  openChat,
  recordNotes,
  sendAndWaitChanges,
  nvim,
  setAgents,
} from "../support/chat.js";

const bins = nvimBins();

describe.each(bins)("Neovim $version", (bin) => {
  it("turn numbers go on after the restored history; gd and :AcpChatRewind on it say why not", async () => {
    const t = await nvim(bin);
    const edit = (id: string, file: string) => [
      {
        update: {
          sessionUpdate: "tool_call",
          toolCallId: id,
          title: `write ${file}`,
          kind: "edit",
          status: "in_progress",
        },
      },
      { sh: `printf 'new\\n' > ${file}` },
      { update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } },
      { text: "done" },
    ];
    await setAgents(t, {
      fake: {
        store: "$DIR/store.json",
        agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
        title: "Edits",
        byText: { first: edit("e1", "a.txt"), second: edit("e2", "b.txt") },
      },
    });
    const a = await openChat(t);
    await a.ready();
    await checkpointsReady(t);
    await sendAndWaitChanges(a, "first");
    expect(await a.text()).toContain("◆ Turn 1 changed 1 file");
    await t.nvim.command("AcpChatClose");
    await answers(t, [""]);
    await t.nvim.command("AcpChatSessions");
    await t.waitFor(async () => (await chatCount(t)) === 1, "the resumed chat");
    const b = await chatHandle(t);
    await b.ready();
    await t.waitFor(async () => (await b.text()).includes("local history"), "the local history");
    await sendAndWaitChanges(b, "second");
    const text = await b.text();
    expect(text.match(/^## You · turn 1$/gm)).toHaveLength(1);
    expect(text).toMatch(/^## You · turn 2$/m);
    expect(text).toContain("◆ Turn 2 changed 1 file");
    // gd on the restored changes block: why it cannot review it.
    await recordNotes(t);
    const row = (await b.lines()).findIndex((l) => l.startsWith("◆ Turn 1 changed"));
    await b.focus();
    await t.lua("vim.api.nvim_win_set_cursor(0, { ... , 0 })", [row + 2]);
    await t.nvim.command("stopinsert");
    await t.nvim.input("gd");
    await t.waitFor(
      async () => (await notes(t)).some((n) => n.msg.includes("local history from before the resume")),
      "gd to say the history's changes are not kept",
    );
    expect((await notes(t)).some((n) => n.msg.includes("no tool call under the cursor"))).toBe(false);
    // :AcpChatRewind 1 names the restored turn 1, not this chat's first turn.
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(
      async () => (await notes(t)).some((n) => n.msg.includes("turn 1 is local history from before the resume")),
      "the rewind to say turn 1 is history",
    );
    // Turn 2 is this chat's, and rewinds.
    await t.nvim.command("AcpChatRewind! 2");
    await t.waitFor(async () => (await b.text()).includes("Rewound to before turn 2"), "the rewind of turn 2");
  });
});
