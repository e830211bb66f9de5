/**
 * Turn checkpoints under attack (issue 23), in a real Neovim with the fake agent changing files
 * with its own processes: what the user does while a turn runs, and what their environment holds.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { checkpointsReady, nvim, openChat, recordNotes, notes, sendAndWait, setAgents } from "../support/chat.js";

const bins = nvimBins();
const lines = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const tool = (id: string, title: string) => ({ update: { sessionUpdate: "tool_call", toolCallId: id, title, kind: "execute", status: "in_progress" } });
const done = (id: string) => ({ update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } });

describe.each(bins)("Neovim $version", (bin) => {
  it("a rewind while a turn runs is refused: the turn's block never claims the user's rewind as the agent's change", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "f.txt"), text(lines(10)));
    await setAgents(t, {
      fake: {
        turns: [
          [tool("t1", "sed"), { sh: "sed -i 's/^line 3$/AGENT 3/' f.txt" }, done("t1"), { text: "edited" }],
          [tool("t2", "think hard"), { sleep: 2500 }, done("t2"), { text: "thought" }],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWait(c, "edit");
    await recordNotes(t);
    await c.send("think");
    await t.waitFor(async () => (await c.text()).includes("think hard"), "turn 2's tool call");
    await t.nvim.command("AcpChatRewind! 1");
    await c.turns(2);
    await t.waitFor(async () => (await notes(t)).some((n) => n.msg.includes("turn")), "the rewind's answer");
    const tr = await c.text();
    expect(tr).not.toMatch(/◆ Turn 2 changed/);
    expect(readFileSync(join(work, "f.txt"), "utf8")).toContain("AGENT 3");
    expect((await notes(t)).map((n) => n.msg).join("\n")).toContain("a turn is running");
    // Once the turn is over, the rewind works.
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note");
    expect(readFileSync(join(work, "f.txt"), "utf8")).toBe(text(lines(10)));
  });
});
