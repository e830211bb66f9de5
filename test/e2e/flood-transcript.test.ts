/**
 * End to end, correctness under floods: after 20,000 chunks the transcript holds
 * exactly their concatenation, for a reply of many short lines and for one that is a single
 * long line, the window following the reply stays on its last line; and a secret split across
 * chunk boundaries is hidden in the transcript and the trace.
 */
import { describe, expect, it } from "vitest";
import { nvimBins, ROOT } from "../support/nvim.js";
import { nvim, openChat, startChat, type Chat, shareNvim } from "../support/chat.js";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();
const FLOOD = join(ROOT, "bench/flood-agent.mjs");
const KEY = "sk-ant-api03-Zx9_Qw8-Lm7Kp6Jn5Hb4Gv3Fc2Dx1Sz0Aa";

/**
 * What bench/flood-agent.mjs streams for `flood N 0 [long] [key]`: chunk i is "w<i mod 10> ", or
 * "w\n" every 50th unless long; with `key`, after chunk 500 and every 997 chunks on, "key " and
 * the key in chunks of 3 bytes, then " ".
 */
function floodText(chunks: number, long: boolean, key = false): string {
  let s = "";
  for (let i = 0; i < chunks; i++) {
    s += !long && i % 50 === 49 ? "w\n" : `w${i % 10} `;
    if (key && i % 997 === 500) s += `key ${KEY} `;
  }
  return s;
}

/**
 * The reply of the last turn as the transcript holds it: everything under the agent's header
 * (a line Lua broke for its length joined back: lua/acpchat/transcript/long_line.lua).
 */
async function lastReply(c: Chat): Promise<string> {
  const text = await c.t.lua<string>("return require('acpchat.transcript.long_line').text(...)", [c.buf]);
  const turn = text.slice(text.lastIndexOf("## You"));
  const reply = turn.slice(turn.indexOf("\n## ") + 1);
  return reply.slice(reply.indexOf("\n") + 1);
}

describe.each(bins)("Neovim $version", (bin) => {
  it("a flood of 20,000 chunks lands byte for byte, as many lines and as one long line", async () => {
    const t = await nvim(bin, {
      agents: { flood: { command: process.execPath, args: [FLOOD] } },
      default_agent: "flood",
    });
    const c = await openChat(t);
    await c.ready();
    await c.send("flood 20000 0");
    await c.turns(1, 60_000);
    expect((await lastReply(c)) === floodText(20000, false)).toBe(true);
    await c.send("flood 20000 0 long");
    await c.turns(2, 60_000);
    const long = floodText(20000, true);
    expect(long).not.toContain("\n");
    const reply = await lastReply(c);
    expect(reply.length).toBe(long.length);
    expect(reply === long).toBe(true);
    // The transcript's window followed the reply to its last line.
    const [row, count] = await t.lua<[number, number]>(
      "local w = vim.fn.win_findbuf(...)[1]; return { vim.api.nvim_win_get_cursor(w)[1], vim.api.nvim_buf_line_count(...) }",
      [c.buf],
    );
    expect(row).toBe(count);
  });

  it("a reply line past 64 KiB goes on in marked lines (joined back byte for byte), drawn without 'wrap' while it is the last line; the next turn brings 'wrap' back", async () => {
    const t = await nvim(bin, {
      agents: { flood: { command: process.execPath, args: [FLOOD] } },
      default_agent: "flood",
    });
    const c = await openChat(t);
    await c.ready();
    const wrap = () => t.lua<boolean>("return vim.wo[vim.fn.win_findbuf(...)[1]].wrap", [c.buf]);
    expect(await wrap()).toBe(true);
    await c.send("flood 50000 0 long");
    await c.turns(1, 60_000);
    const long = floodText(50000, true);
    expect((await lastReply(c)) === long).toBe(true);
    // 150 KB: three buffer lines, none over 64 KiB, the first two marked as going on.
    const sizes = (await c.lines()).map((l) => Buffer.byteLength(l));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(64 * 1024);
    expect(
      await t.lua<number>(
        "return #vim.api.nvim_buf_get_extmarks(..., require('acpchat.transcript.long_line').ns, 0, -1, {})",
        [c.buf],
      ),
    ).toBe(2);
    expect(await wrap()).toBe(false);
    await c.send("flood 100 0");
    await c.turns(2, 60_000);
    expect(await wrap()).toBe(true);
    expect((await lastReply(c)) === floodText(100, false)).toBe(true);
  });

  it("a flood of 20,000 chunks with a key cut into chunks every 997: each key hidden in the transcript and the trace, every other byte in place", async () => {
    const t = await nvim(bin, {
      agents: { flood: { command: process.execPath, args: [FLOOD] } },
      default_agent: "flood",
    });
    const c = await openChat(t);
    await c.ready();
    await c.send("flood 20000 0 key");
    await c.turns(1, 60_000);
    const sent = floodText(20000, false, true);
    expect(sent.split(KEY)).toHaveLength(21);
    // The keys cross chunk boundaries, and some the boundaries of what Node reads at once.
    expect((await lastReply(c)) === sent.split(KEY).join("[REDACTED]")).toBe(true);
    const trace = JSON.stringify(await c.trace());
    for (let k = 0; k + 8 <= KEY.length; k++) expect(trace).not.toContain(KEY.slice(k, k + 8));
    // The trace file holds every other piece of the reply, in order (written in batches: wait).
    const logDir = await t.lua<string>("return vim.fn.stdpath('log') .. '/acpchat'");
    const file = () => join(logDir, readdirSync(logDir).filter((f) => f.endsWith(".jsonl"))[0] ?? "none");
    const pieces = () =>
      (existsSync(file()) ? readFileSync(file(), "utf8") : "")
        .trimEnd()
        .split("\n")
        .filter((l) => l !== "")
        .flatMap((l) => {
          let e: {
            kind: string;
            method?: string;
            payload: {
              texts?: string[];
              params?: { update?: { sessionUpdate?: string; content?: { text?: string } } };
            };
          };
          try {
            e = JSON.parse(l);
          } catch {
            return ["(a line being written)"];
          }
          if (e.kind === "notifications") return e.payload.texts!;
          return e.method === "session/update" && e.payload.params?.update?.sessionUpdate === "agent_message_chunk"
            ? [e.payload.params.update.content!.text!]
            : [];
        })
        .join("");
    const want = sent.split(KEY).join("");
    for (let i = 0; i < 100 && pieces().replaceAll("[REDACTED]", "") !== want; i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(pieces().replaceAll("[REDACTED]", "")).toBe(want);
    const written = readFileSync(file(), "utf8");
    for (let k = 0; k + 8 <= KEY.length; k++) expect(written).not.toContain(KEY.slice(k, k + 8));
  });

  it("a key split across chunk boundaries is hidden in the transcript and the trace", async () => {
    const pieces = [`key ${KEY.slice(0, 5)}`, KEY.slice(5, 20), `${KEY.slice(20)} ok`];
    const c = await startChat(bin, { turns: [pieces.map((text) => ({ text }))] });
    await c.ready();
    await c.send("hi");
    await c.turns(1);
    const reply = await lastReply(c);
    expect(reply).toContain("[REDACTED]");
    expect(reply).toContain(" ok");
    const trace = JSON.stringify(await c.trace());
    for (const s of [reply, trace]) {
      for (let k = 0; k + 8 <= KEY.length; k++) expect(s).not.toContain(KEY.slice(k, k + 8));
    }
  });
});
