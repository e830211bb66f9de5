/**
 * ACP v2 work apart from the turn, in a real Neovim with the SDK-built v2 agent
 * (test/agents/v2-agent.mjs, prompt "cancellable"): gC on a tool call sends `tool_call/cancel`
 * only where the agent advertises it, and on a call whose command runs on, `terminal/cancel`;
 * the blocks say "cancelling…" and then what the agent confirmed. The background work each
 * state update lists is counted in the winbar and marked on its blocks; the turn ends at idle
 * while it runs, what it prints after idle leaves the chat ready, and neither the turn's end
 * marks it unfinished.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { nvim, notes, openChat, recordNotes, type Chat } from "../support/chat.js";

const V2_AGENT = fileURLToPath(new URL("../agents/v2-agent.mjs", import.meta.url));
const bins = nvimBins();

/** The 1-based row of the transcript's first line that holds `needle`. */
async function rowOf(c: Chat, needle: string): Promise<number> {
  const i = (await c.lines()).findIndex((l) => l.includes(needle));
  if (i < 0) throw new Error(`no line with ${needle} in:\n${await c.text()}`);
  return i + 1;
}

/** gC typed in the transcript with the cursor on the line that holds `needle`. */
async function cancelAt(c: Chat, needle: string): Promise<void> {
  const row = await rowOf(c, needle);
  await c.focus();
  await c.t.nvim.command("stopinsert");
  await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row]);
  await c.t.nvim.input("gC");
}

const lineWith = async (c: Chat, needle: string) => (await c.lines())[(await rowOf(c, needle)) - 1]!;

describe.each(bins)("Neovim $version", (bin) => {
  it("gC cancels one tool call, then the command it left running; background work counted while the chat is ready", async () => {
    const t = await nvim(bin);
    const log = join(t.dir, "v2-agent.jsonl");
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: {
          v2: { command: process.execPath, args: [V2_AGENT], env: { V2_AGENT_LOG: log }, protocol: "v2-draft" },
        },
        default_agent: "v2",
      },
    ]);
    await recordNotes(t);
    const c = await openChat(t);
    await c.ready();
    await c.send("cancellable");
    await t.waitFor(
      async () =>
        (await c.text()).includes("Slow search  (gC: cancel it)") && (await c.text()).includes("Watch the tests"),
      "the cancellable tool call",
    );
    // The watcher does not advertise a cancel: gC says so and sends nothing.
    await cancelAt(c, "Watch the tests");
    await t.waitFor(
      async () => (await notes(t)).some((n) => n.msg.includes('does not let the client cancel "Watch the tests"')),
      "the refusal",
    );
    expect(await lineWith(c, "Watch the tests")).not.toContain("gC");
    // The search: tool_call/cancel, and the agent confirms it; the turn ends at idle.
    await cancelAt(c, "Slow search");
    await c.turns(1);
    expect(await c.lastStop()).toBe("end_turn");
    expect(await lineWith(c, "Slow search")).toMatch(/^⊘ cancelled · search · Slow search$/);
    expect(await c.text()).toContain("Search cancelled; the server runs on.");
    // Background work: counted, marked, not settled by the turn's end; the chat is ready.
    await t.waitFor(async () => (await c.winbarText()).includes("ready · 2 in the background"), "the background count");
    expect(await lineWith(c, "Watch the tests")).toMatch(/^◐ running · other · Watch the tests · in the background$/);
    expect(await lineWith(c, "Start the dev server")).toMatch(
      /^● done · execute · Start the dev server · in the background {2}\(gC: stop its command\)$/,
    );
    // What the command prints after idle shows, and leaves the chat ready for a prompt.
    await t.waitFor(async () => (await c.text()).includes("request 2"), "output after idle", 10_000);
    expect(await c.text()).toContain("│ [running]  (gt: full output)");
    expect(await c.state()).toBe("ready");
    // The command: terminal/cancel; its exit is drawn, the background empties.
    await cancelAt(c, "Start the dev server");
    await t.waitFor(async () => (await c.text()).includes("[signal SIGTERM]"), "the command's exit");
    await t.waitFor(async () => !(await c.winbarText()).includes("background"), "the background emptied");
    expect(await lineWith(c, "Watch the tests")).toMatch(/^● done · other · Watch the tests$/);
    // Stopped by the user: the call is not shown failed for its signal.
    expect(await lineWith(c, "Start the dev server")).toMatch(/^● done · execute · Start the dev server$/);
    expect(await c.state()).toBe("ready");
    // The agent got exactly the two cancels, with the ids it advertised.
    const sent = readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const sessionId = sent.find((e) => e.toolCallCancel).toolCallCancel.sessionId;
    expect(sent.filter((e) => e.toolCallCancel).map((e) => e.toolCallCancel)).toEqual([
      { sessionId, toolCallId: "slow1" },
    ]);
    expect(sent.filter((e) => e.terminalCancel).map((e) => e.terminalCancel)).toEqual([
      { sessionId, terminalId: "srv" },
    ]);
    // Nothing left to cancel there: gC says so.
    await cancelAt(c, "Start the dev server");
    await t.waitFor(
      async () =>
        (await notes(t)).some((n) => n.msg.includes('does not let the client cancel "Start the dev server" now')),
      "the second refusal",
    );
  });
});
