#!/usr/bin/env node
// One agent_message_chunk of 4, 8 and 15 MB with no line break, into a chat with a 160x50 UI
// attached: the editor's longest block and its 99th percentile (a second client's
// nvim_eval("1") every 2 ms, one at a time, while the chunk is drawn), the time from the
// prompt to the turn's end, and whether the transcript holds the reply byte for byte.
// Run by bench/run.mjs; alone: node bench/big-chunk.mjs [sizes in MB, comma-separated]
// ACPCHAT_ROOT=<checkout> runs another checkout's plugin (the "before" figures).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { attachUi, nvimBin, root as here, pinger, startBenchNvim, waitChatReady, waitLua } from "./nvim.mjs";

const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/**
 * Before: the plugin at 56598e0 (one batch per frame carrying the whole chunk, drawn as one
 * buffer line), this bench, UI attached, on the machine of bench/RESULTS.md (2 shared cores).
 */
export const BIG_BEFORE = {
  0.12: [
    { mb: 4, ms: 1852, max: 1103.4, p99: 11.7 },
    { mb: 8, ms: 2151, max: 1380.1, p99: 1380.1 },
    { mb: 15, ms: 5219, max: 4245.8, p99: 4245.8 },
  ],
  "0.10": [
    { mb: 4, ms: 4493, max: 3256.7, p99: 61.0 },
    { mb: 8, ms: 4879, max: 3315.4, p99: 3315.4 },
    { mb: 15, ms: 7398, max: 4528.8, p99: 4528.8 },
  ],
};

/** 16 bytes of ASCII and multi-byte characters: a cut inside one would show. */
export const PATTERN = "w1 é 漢 😀 z9 ";

/** The reply of the last turn, as the transcript holds it (long lines joined back when Lua breaks them). */
const REPLY_LUA = `
  local c = require("acpchat.chat.registry").get(...)
  local buf = c.buf
  local n = vim.api.nvim_buf_line_count(buf)
  local rows = vim.api.nvim_buf_get_lines(buf, 0, n, false)
  local first
  for i = n, 1, -1 do if rows[i]:match("^## You") then first = i break end end
  -- the reply's text starts after its header ("## <agent>"), the line after "## You", "> prompt", ""
  local from
  for i = first + 1, n do if rows[i]:match("^## ") then from = i break end end
  local ok, ll = pcall(require, "acpchat.transcript.long_line")
  local text = ok and ll.text(buf, from, n) or table.concat(vim.api.nvim_buf_get_lines(buf, from, n, false), "\\n")
  return { bytes = #text, sha = vim.fn.sha256(text) }
`;

export async function bigChunkBench({
  bin = nvimBin(),
  sizes = [4, 8, 15],
  pluginRoot = process.env.ACPCHAT_ROOT ?? here,
} = {}) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-big-"));
  const reps = sizes.map((mb) => Math.floor((mb * 1024 * 1024) / Buffer.byteLength(PATTERN)));
  const scenario = { turns: reps.map((n) => [{ text: PATTERN, repeat: n }]) };
  const agent = {
    command: process.execPath,
    args: [join(here, "test/agents/fake-agent.mjs")],
    env: { FAKE_AGENT_SCENARIO: JSON.stringify(scenario) },
  };
  const setup = { agents: { fake: agent }, default_agent: "fake", checkpoints: { enabled: false } };
  const { nvim, proc, sock } = startBenchNvim(bin, dir, setup, join(dir, "work"), pluginRoot);
  await nvim.eval("1");
  await attachUi(sock);
  await nvim.lua(`
    _G.bb = {}
    vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function() _G.bb.done = vim.uv.hrtime() end })
    vim.cmd("AcpChat")
  `);
  await waitChatReady(nvim);
  const chat = await nvim.lua("return require('acpchat.chat.registry').current().id");
  const pingClient = attach({ socket: sock });
  await pingClient.eval("1");
  const { createHash } = await import("node:crypto");
  const rows = [];
  for (let i = 0; i < sizes.length; i++) {
    const stopPinging = pinger(pingClient);
    await nvim.lua(
      `_G.bb.done = nil; _G.bb.sent = vim.uv.hrtime(); require("acpchat.app.chats").send(require("acpchat.chat.registry").get(...), "go")`,
      [chat],
    );
    await waitLua(nvim, "_G.bb.done", 120_000, 20);
    await sleep(300); // what the turn's end set off (redraws, the history written)
    const ping = await stopPinging();
    const ms = Number(await nvim.lua("return (_G.bb.done - _G.bb.sent) / 1e6"));
    const expected = PATTERN.repeat(reps[i]);
    const got = await nvim.lua(REPLY_LUA, [chat]);
    const exact =
      got.bytes === Buffer.byteLength(expected) && got.sha === createHash("sha256").update(expected).digest("hex");
    const row = {
      mb: sizes[i],
      bytes: Buffer.byteLength(expected),
      ms,
      max: ping.max,
      p99: ping.p99,
      samples: ping.count,
      exact,
    };
    rows.push(row);
    say(
      `big chunk ${row.mb} MB: turn ${ms.toFixed(0)} ms; editor longest ${row.max.toFixed(1)} ms, p99 ${row.p99.toFixed(1)} ms (${row.samples}); byte-exact ${exact}`,
    );
  }
  await nvim.command("AcpChatClose").catch(() => undefined);
  proc.kill("SIGTERM");
  return rows;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const sizes = process.argv[2] ? process.argv[2].split(",").map(Number) : undefined;
  bigChunkBench({ sizes }).then(
    (r) => {
      process.stdout.write(JSON.stringify(r) + "\n");
      process.exit(0);
    },
    (e) => {
      say(`big-chunk failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
