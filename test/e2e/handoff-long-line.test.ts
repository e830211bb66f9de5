/**
 * `:AcpChat! {agent} from` with a reply line longer than the transcript's 64 KiB line limit:
 * the transcript holds it as several buffer lines, and the new agent gets it back whole (joined
 * as :AcpChatSave joins it), not with a newline where the buffer broke it.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { openChat, received, sendAndWait, withAgents } from "../support/chat.js";

const bins = nvimBins();

describe.each(bins)("Neovim $version", (bin) => {
  it("a reply line over 64 KiB reaches the next agent as one line", async () => {
    const long = `BEGIN ${"lorem ipsum dolor ".repeat(4500)}END`; // 81 KB, one line
    const t = await withAgents(bin, {
      fake: { record: "$DIR/record.jsonl", turns: [[{ text: long }, { text: "\nshort after" }]] },
      other: { record: "$DIR/record.jsonl" },
    });
    const first = await openChat(t);
    await first.ready();
    await sendAndWait(first, "say it");
    // The buffer did break it (else this test proves nothing).
    expect(
      await t.lua<number>("return #require('acpchat.transcript.long_line').marked_rows(...)", [first.buf]),
    ).toBeGreaterThan(0);
    await t.nvim.command("AcpChat! other from");
    const next = await openChat(t);
    await next.ready();
    await sendAndWait(next, "go on");
    const p = (received(t.dir, "session/prompt")[1] as { prompt: { type: string; resource?: { text: string } }[] })
      .prompt;
    const text = p.find((b) => b.type === "resource")?.resource?.text ?? "";
    expect(text.split("\n").find((l) => l.includes("BEGIN"))).toBe(long);
    expect(text).toContain("short after");
  });
});
