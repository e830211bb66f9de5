import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { received, recordNotes, sendAndWait, startChat, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("advertises session.notices, session.compaction and session.configOptions.boolean; a boolean option is set with type boolean", async () => {
    const c = await startChat(bin, {
      record: "$DIR/record.jsonl",
      configOptions: [{ id: "fast", name: "Fast", type: "boolean", currentValue: false }],
    });
    await c.ready();
    const init = received(c.t.dir, "initialize")[0] as { clientCapabilities: Record<string, unknown> };
    expect(init.clientCapabilities.session).toEqual({ notices: {}, compaction: {}, configOptions: { boolean: {} } });
    await c.t.nvim.command("AcpChatOption fast true");
    await c.t.waitFor(async () => received(c.t.dir, "session/set_config_option").length === 1, "the option to be set");
    expect(received(c.t.dir, "session/set_config_option")[0]).toMatchObject({
      configId: "fast",
      type: "boolean",
      value: true,
    });
  });

  it("a notice is a vim.notify with its severity and a note in the transcript; secrets in it are redacted", async () => {
    const c = await startChat(
      bin,
      {
        turns: [
          [
            {
              update: {
                sessionUpdate: "notice",
                severity: "warning",
                title: "Rate limited",
                description: "retrying in 5 s",
              },
            },
            { update: { sessionUpdate: "notice", severity: "error", title: "Key $env.ACP_NOTICE_KEY rejected" } },
            { update: { sessionUpdate: "notice", severity: "_custom", title: "FYI" } },
            { text: "done" },
          ],
        ],
      },
      {},
      { agentExtra: { env: { ACP_NOTICE_KEY: "notice-secret-998877" } } },
    );
    await c.ready();
    await recordNotes(c.t);
    await sendAndWait(c, "go");
    const text = await c.text();
    expect(text).toContain("! Rate limited\n  retrying in 5 s");
    expect(text).toContain("! Key [REDACTED] rejected");
    expect(text).toContain("! FYI");
    expect(text).not.toContain("notice-secret-998877");
    await c.t.waitFor(async () => (await c.notes()).length >= 3, "three notifications");
    const notes = await c.notes();
    const WARN = 3;
    const ERROR = 4;
    const INFO = 2;
    expect(notes).toEqual(
      expect.arrayContaining([
        { msg: "acpchat: fake: Rate limited — retrying in 5 s", level: WARN },
        { msg: "acpchat: fake: Key [REDACTED] rejected", level: ERROR },
        { msg: "acpchat: fake: FYI", level: INFO },
      ]),
    );
    // Not an unknown variant any more.
    expect(await c.problems()).toEqual([]);
  });

  it("a compaction is a block at its place: status, then the summary as it streams, then the final status", async () => {
    const c = await startChat(
      bin,
      {
        turns: [
          [
            { text: "before" },
            { update: { sessionUpdate: "compaction_update", compactionId: "c1", status: "in_progress" } },
            {
              update: {
                sessionUpdate: "compaction_summary_chunk",
                compactionId: "c1",
                content: { type: "text", text: "Summary: the user " },
              },
            },
            {
              update: {
                sessionUpdate: "compaction_summary_chunk",
                compactionId: "c1",
                content: { type: "text", text: "fixed the parser.\nNext: tests." },
              },
            },
            { sleep: 1000 },
            { text: "after" },
            { update: { sessionUpdate: "compaction_update", compactionId: "c1", status: "completed" } },
            // A first-seen id in a chunk starts an in-progress compaction; a failure shows its error.
            {
              update: {
                sessionUpdate: "compaction_summary_chunk",
                compactionId: "c2",
                content: { type: "text", text: "partial" },
              },
            },
            {
              update: {
                sessionUpdate: "compaction_update",
                compactionId: "c2",
                status: "failed",
                error: "context too large",
                summary: null,
              },
            },
            // A secret of the agent's env, split across two chunks.
            {
              update: {
                sessionUpdate: "compaction_summary_chunk",
                compactionId: "c3",
                content: { type: "text", text: "token compaction-sec" },
              },
            },
            {
              update: {
                sessionUpdate: "compaction_summary_chunk",
                compactionId: "c3",
                content: { type: "text", text: "ret-4242 seen" },
              },
            },
            { update: { sessionUpdate: "compaction_update", compactionId: "c3", status: "completed" } },
            // A long summary: folded to its first lines; za shows it all.
            {
              update: {
                sessionUpdate: "compaction_summary_chunk",
                compactionId: "c4",
                content: { type: "text", text: "L1\nL2\nL3\nL4\nL5\nL6" },
              },
            },
            { update: { sessionUpdate: "compaction_update", compactionId: "c4", status: "completed" } },
          ],
        ],
      },
      {},
      { agentExtra: { env: { ACP_COMPACTION_KEY: "compaction-secret-4242" } } },
    );
    await c.ready();
    await c.send("go");
    // While it runs: in progress, with the summary so far.
    await c.t.waitFor(
      async () =>
        (await c.text()).includes(
          "⟲ compacting the context…\n  ┆ Summary: the user fixed the parser.\n  ┆ Next: tests.",
        ),
      "the summary streaming",
    );
    await c.t.waitFor(async () => (await c.text()).includes("after"), "the text after the compaction");
    await c.turns(1);
    const text = await c.text();
    expect(text).toContain(
      "before\n\n⟲ context compacted\n  ┆ Summary: the user fixed the parser.\n  ┆ Next: tests.\n\nafter",
    );
    expect(text).toContain("⟲ context compaction failed\n  context too large");
    expect(text).not.toContain("partial");
    expect(text).not.toContain("compacting the context");
    expect(text).toContain("  ┆ token [REDACTED] seen");
    expect(text).not.toContain("compaction-secret-4242");
    expect(await c.problems()).toEqual([]);

    const folded = "⟲ context compacted\n  ┆ L1\n  ┆ L2\n  ┆ L3\n  ┆ … 3 more lines  (za: show all)";
    expect(text).toContain(folded);
    await c.focus();
    const row = (await c.lines()).findIndex((l, i, all) => l === "  ┆ L1" && all[i - 1] === "⟲ context compacted") + 1;
    await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row]);
    await c.t.nvim.input("<Esc>za");
    await c.t.waitFor(async () => (await c.text()).includes("  ┆ L5\n  ┆ L6"), "the whole summary");
    expect(await c.text()).not.toContain("3 more lines");
    await c.t.nvim.input("za");
    await c.t.waitFor(async () => (await c.text()).includes(folded), "the summary folded again");
  });
});
