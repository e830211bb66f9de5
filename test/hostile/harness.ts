/** Shared set-up for the hostile-agent suite: a real Neovim, the fake agent, helpers. */
import { afterEach } from "vitest";
import { FAKE_AGENT, nvimBins, startNvim, type TestNvim } from "../support/nvim.js";

// One Neovim (the newest) is enough: these tests are about the agent, not the editor version.
export const bin = nvimBins().at(-1)!;
let current: TestNvim | undefined;
afterEach(async () => {
  await current?.quit();
  current = undefined;
});

export type H = Awaited<ReturnType<typeof start>>;

export async function start(scenario: Record<string, unknown>, extra: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const t = (current = await startNvim(bin, {}));
  const sc = JSON.parse(JSON.stringify(scenario).replaceAll("$DIR", t.dir));
  sc.byText = { ping: [{ text: "pong" }], ...sc.byText };
  await t.lua("require('acpchat').setup(...)", [
    { agents: { bad: { command: process.execPath, args: [FAKE_AGENT], env: { FAKE_AGENT_SCENARIO: JSON.stringify(sc), ...env } } }, default_agent: "bad", write: "buffer", ...extra },
  ]);
  await t.lua("_G.notes = {}; vim.notify = function(m, l) table.insert(_G.notes, m) end");
  await t.nvim.command("AcpChat");
  const id = await t.lua<number>("return require('acpchat.chat').current().id");
  const h = {
    t,
    id,
    buf: await t.lua<number>("return require('acpchat.chat').get(...).buf", [id]),
    status: () => t.lua<Record<string, unknown>>("return require('acpchat.chat').get(...).status", [id]),
    ready: () => t.waitFor(async () => (await h.status()).status === "ready", "ready"),
    turns: (n: number, ms = 20_000) => t.waitFor(async () => ((await t.lua<number>("return require('acpchat.chat').get(...).turn_ended or 0", [id])) >= n ? true : false), `turn ${n}`, ms),
    text: async () => (await t.lines(h.buf)).join("\n"),
    send: (text: string) => t.lua("require('acpchat.chat').send(require('acpchat.chat').get(...), select(2, ...))", [id, text]),
    lastStop: () => t.lua<string>("return require('acpchat.chat').get(...).last_stop", [id]),
    trace: () => t.lua<{ dir: string; kind: string; method?: string; payload: unknown }[]>("return require('acpchat.rpc').request('trace', { id = ... })", [id]),
    problems: async () => (await h.trace()).filter((e) => e.kind === "problem").map((e) => String(e.payload)),
    notes: () => t.lua<string[]>("return _G.notes"),
    agentPid: async () => (await t.lua<{ id: number; pid: number }[]>("return require('acpchat.rpc').request('list', {})")).find((c) => c.id === id)!.pid,
  };
  return h;
}

/** After each hostile scenario the chat must still work: one more ordinary turn. */
export async function stillUsable(h: H, n: number): Promise<boolean> {
  await h.send("ping");
  await h.turns(n);
  return (await h.text()).endsWith("pong") && (await h.lastStop()) === "end_turn";
}
