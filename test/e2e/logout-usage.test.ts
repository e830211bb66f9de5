/**
 * :AcpChatLogout (stable `logout`, when the agent advertises auth.logout) and the turn's token
 * usage (unstable PromptResponse.usage), end to end with the fake agent.
 */
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { answers, nvim, notes, openChat, recordNotes, sendAndWait, setAgents, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it(":AcpChatLogout signs out; the next prompt asks to sign in, then goes", async () => {
    const t = await nvim(bin);
    await setAgents(t, {
      fake: {
        authRequired: true,
        authMethods: [{ id: "key", name: "Use an API key" }],
        agentCapabilities: { loadSession: true, auth: { logout: {} } },
      },
    });
    await answers(t, ["API key", "API key"]);
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "one");
    expect(await c.text()).toContain("echo: one");
    await t.nvim.command("AcpChatLogout");
    await t.waitFor(async () => (await c.text()).includes("Signed out of fake"), "the sign-out note");
    await sendAndWait(c, "two");
    const text = await c.text();
    expect(text).toContain("echo: two");
    expect(text.split("fake asks you to sign in.").length - 1).toBe(2);
    expect(await c.state()).toBe("ready");
    expect(await t.lua<string[]>("return _G.prompts")).toHaveLength(2);
  });

  it(":AcpChatLogout on an agent that cannot sign out says so", async () => {
    const t = await nvim(bin);
    await setAgents(t, { fake: {} });
    await recordNotes(t);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatLogout");
    await t.waitFor(async () => (await notes(t)).find((n) => n.msg.includes("cannot sign out")), "the note");
  });

  it("unstable: the turn's tokens are shown at its end and in status()", async () => {
    const t = await nvim(bin);
    await setAgents(
      t,
      {
        fake: {
          usage: {
            inputTokens: 1200,
            outputTokens: 340,
            cachedReadTokens: 800,
            thoughtTokens: 12,
            totalTokens: 1552,
            bogus: "x",
          },
        },
      },
      { unstable: true },
    );
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "count");
    await t.waitFor(
      async () =>
        (await c.text()).includes("Tokens this turn: 1.2k in · 340 out · 800 cached · 12 thought · 1.6k total"),
      "the usage line",
    );
    const s = await t.lua<{ turn_usage?: Record<string, number> }>("return require('acpchat').status()");
    expect(s.turn_usage).toMatchObject({ input_tokens: 1200, output_tokens: 340 });
  });
});
