/**
 * End to end, one huge agent_message_chunk: it reaches the editor in slices (bench/big-chunk.mjs
 * times them) and the transcript holds it byte for byte: one line of 3 MB of ASCII and
 * multi-byte characters (held as lines of at most 64 KiB, joined back by long_line.text), and
 * 100,000 short lines in one chunk; the window following the reply ends on its last line, and
 * :AcpChatSave writes the long line whole.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { startChat, type Chat } from "../support/chat.js";

const bins = nvimBins();
const PATTERN = "w1 é 漢 😀 z9 ";
const ONE_LINE = 200_000; // x 16 bytes: 3.2 MB
const MANY = "a short line\n";

/** The last turn's reply as the transcript holds it, and facts about its buffer lines. */
async function reply(
  c: Chat,
): Promise<{ sha: string; bytes: number; longest: number; marks: number; cursorAtEnd: boolean }> {
  return c.t.lua(
    `
    local buf = ...
    local n = vim.api.nvim_buf_line_count(buf)
    local rows = vim.api.nvim_buf_get_lines(buf, 0, n, false)
    local you, from
    for i = n, 1, -1 do if rows[i]:match("^## You") then you = i break end end
    for i = you + 1, n do if rows[i]:match("^## ") then from = i break end end
    local text = require("acpchat.transcript.long_line").text(buf, from, n)
    local longest = 0
    for i = from + 1, n do longest = math.max(longest, #rows[i]) end
    local win = vim.fn.win_findbuf(buf)[1]
    return { sha = vim.fn.sha256(text), bytes = #text, longest = longest,
      marks = #vim.api.nvim_buf_get_extmarks(buf, require("acpchat.transcript.long_line").ns, { from, 0 }, { n - 1, -1 }, {}),
      cursorAtEnd = vim.api.nvim_win_get_cursor(win)[1] == n }
  `,
    [c.buf],
  );
}

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe.each(bins)("Neovim $version", (bin) => {
  it("one chunk of 3.2 MB with no line break, then one of 100,000 lines: each byte for byte, no buffer line over 64 KiB", async () => {
    const c = await startChat(
      bin,
      { turns: [[{ text: PATTERN, repeat: ONE_LINE }], [{ text: MANY, repeat: 100_000 }]] },
      { checkpoints: { enabled: false } },
    );
    await c.ready();
    await c.send("one line");
    await c.turns(1, 60_000);
    const want = PATTERN.repeat(ONE_LINE);
    const r = await reply(c);
    expect(r.bytes).toBe(Buffer.byteLength(want));
    expect(r.sha).toBe(sha(want));
    expect(r.longest).toBeLessThanOrEqual(64 * 1024);
    // Every break marked: 3.2 MB in lines of 64 KiB at most.
    expect(r.marks).toBeGreaterThanOrEqual(Math.floor(Buffer.byteLength(want) / (64 * 1024)));
    expect(r.cursorAtEnd).toBe(true);
    // :AcpChatSave writes the line whole.
    const saved = join(c.t.dir, "saved.md");
    await c.t.nvim.command(`AcpChatSave ${saved}`);
    const file = readFileSync(saved, "utf8");
    expect(file.split("\n").some((l) => l === want)).toBe(true);
    await c.send("many lines");
    await c.turns(2, 60_000);
    const many = MANY.repeat(100_000);
    const m = await reply(c);
    expect(m.bytes).toBe(many.length);
    expect(m.sha).toBe(sha(many));
    expect(m.marks).toBe(0);
    expect(m.cursorAtEnd).toBe(true);
  });
});
