/**
 * The ACP v2 draft end to end in a real Neovim, with an agent built on the official SDK's
 * `experimental/v2` app (test/agents/v2-agent.mjs): the option `protocol = "v2-draft"`; the
 * prompt acknowledged and the turn ended by the agent's idle state; messages streamed and
 * replaced by id; plans by id; an agent-owned terminal; a structured diff through the permission question
 * (its own title and description) and the per-hunk review, then on disk; the editor's MCP server
 * offered to the v2 session.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { answers, chatCount, chatHandle, nvim, openChat, shareNvim } from "../support/chat.js";

const V2_AGENT = fileURLToPath(new URL("../agents/v2-agent.mjs", import.meta.url));
const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("a v2 turn: messages by id, a terminal, a structured diff reviewed and written, idle", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const file = join(work, "notes.txt");
    writeFileSync(file, "one\ntwo\nthree\n");
    const log = join(t.dir, "v2-agent.jsonl");
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: {
          v2: { command: process.execPath, args: [V2_AGENT], env: { V2_AGENT_LOG: log }, protocol: "v2-draft" },
        },
        default_agent: "v2",
      },
    ]);
    // The permission question: its text recorded, then "Show the diff first" (the last choice).
    await t.lua(
      `_G.prompts = {}
       vim.ui.select = function(items, opts, on_choice)
         table.insert(_G.prompts, opts.prompt)
         _G.labels = vim.tbl_map(function(i) return i.label end, items)
         on_choice(items[#items])
       end`,
    );
    const c = await openChat(t);
    await c.ready();
    await c.send(file);
    // The review: the one hunk accepted, then done.
    const lw = await t.waitFor(
      async () =>
        t.lua<number | null>(
          "local k = next(require('acpchat.ask.review').open_reviews); local r = k and require('acpchat.ask.review').open_reviews[k]; return r and r.lw and vim.api.nvim_win_is_valid(r.lw) and r.lw or nil",
        ),
      "the review tab",
    );
    await t.nvim.command("stopinsert");
    await t.lua("local w = ...; vim.api.nvim_set_current_win(w); vim.api.nvim_win_set_cursor(0, { 2, 0 })", [lw]);
    await t.nvim.input("ga");
    await t.nvim.input("ZZ");
    await c.turns(1, 30_000);
    expect(readFileSync(file, "utf8")).toBe("one\nTWO\nthree\n");
    expect(await c.lastStop()).toBe("end_turn");
    const text = await c.text();
    // Messages by id: interleaved ones each whole, the replaced one replaced, the prompt once.
    expect(text).toContain("First message.");
    expect(text).toContain("Second message, replaced.");
    expect(text).not.toContain("Second draft");
    expect(text.split(file).length - 1).toBeGreaterThanOrEqual(1);
    expect(text).toContain("Edited.");
    // Two plans by id, each its own block, the first replaced whole; v2's `cancelled` shown as such.
    expect(text).toContain("✓ read the file");
    expect(text).toContain("⊘ rewrite it all");
    expect(text).toContain("◐ upper-case line two");
    expect(text).toContain("○ run the checks");
    expect(text.split("read the file").length - 1).toBe(1);
    // The agent-owned terminal: the snapshot replaced the stale output; split bytes joined.
    expect(text).toContain("line two é");
    expect(text).not.toContain("stale output");
    // The permission question said the request's own title and description.
    const prompts = await t.lua<string[]>("return _G.prompts");
    expect(prompts[0]).toContain("Allow the change to notes.txt?");
    // Its own title is a question already: not "Allow the agent to: Allow the change ...".
    expect(prompts[0]).not.toMatch(/allow the agent to/i);
    expect(prompts[0]).toContain("It upper-cases the second line.");
    // The v2 wire: no fs or terminal capabilities; the editor's MCP server offered, typed.
    const sent = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const init = sent.find((e) => e.initialize).initialize;
    expect(init.protocolVersion).toBe(2);
    expect(init.capabilities).not.toHaveProperty("fs");
    expect(init.capabilities).not.toHaveProperty("terminal");
    const servers = sent.find((e) => e.sessionNew).sessionNew.mcpServers as { name: string; type: string }[];
    // The v2 agent takes http MCP servers: the editor's tools are served by the host itself.
    expect(servers).toContainEqual(expect.objectContaining({ name: "nvim", type: "http" }));
    expect(sent.find((e) => e.permission).permission.outcome).toEqual({ outcome: "selected", optionId: "yes" });
    await t.nvim.command("checkhealth acpchat");
    const health = (await t.nvim.buffer.lines).join("\n");
    expect(health).toContain('v2: offered the ACP v2 draft (protocol = "v2-draft")');
  });

  it("agent-initiated work shows the chat working until idle; a terminal no tool call shows is drawn; list, load (replay) and close", async () => {
    const t = await nvim(bin);
    const log = join(t.dir, "v2-agent.jsonl");
    const env = { V2_AGENT_LOG: log, V2_AGENT_STORE: join(t.dir, "v2-store.json") };
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: { v2: { command: process.execPath, args: [V2_AGENT], env, protocol: "v2-draft" } },
        default_agent: "v2",
      },
    ]);
    const c = await openChat(t);
    await c.ready();
    await c.send("background please");
    await c.turns(1);
    // The agent works with no prompt: the chat says it is working, past the 2 s quiet spell
    // that ends v1's late work, and is ready when the agent says idle.
    await t.waitFor(async () => (await c.text()).includes("Background work done."), "the agent's own work", 20_000);
    expect(await c.state()).toBe("running");
    await new Promise((r) => setTimeout(r, 2300));
    expect(await c.state()).toBe("running");
    await c.ready(20_000);
    const text = await c.text();
    // The terminal no tool call showed: a block of its own with its command, output and exit.
    expect(text).toContain("make watch");
    expect(text).toContain("watching 3 files");
    // The tool call named by its tool's name (patched), its input cleared by null.
    expect(text).toContain("scan_tree_v2");
    expect(text).not.toContain("depth");
    // A prompt after it goes as usual, and is kept by the agent for a later load.
    await c.send("plain hello");
    await c.turns(2);
    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => readFileSync(log, "utf8").includes('"sessionClose"'), "session/close");
    // Listed, then continued in a new chat: v1's session/load as v2's resume with a replay.
    await answers(t, ["plain hello"]);
    await t.nvim.command("AcpChatSessions");
    await t.waitFor(async () => (await chatCount(t)) === 1, "a chat to open");
    const b = await chatHandle(t);
    await b.ready();
    await t.waitFor(async () => (await b.text()).includes("plain reply"), "the replayed conversation");
    expect(await b.text()).toContain("plain hello");
    const sent = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(sent.find((e) => e.sessionList)).toBeTruthy();
    expect(sent.find((e) => e.sessionResume).sessionResume.replayFrom).toEqual({ type: "start" });
  });
});
