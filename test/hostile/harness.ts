/** Shared set-up for the hostile-agent suite: a real Neovim, the fake agent as "bad", helpers. */
import { nvimBins } from "../support/nvim.js";
import { recordNotes, startChat, type Chat } from "../support/chat.js";

// One Neovim (the newest) is enough: these tests are about the agent, not the editor version.
export const bin = nvimBins().at(-1)!;

export type H = Chat;

export async function start(
  scenario: Record<string, unknown>,
  extra: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<H> {
  const sc = { ...scenario, byText: { ping: [{ text: "pong" }], ...(scenario.byText as object) } };
  const h = await startChat(bin, sc, { write: "buffer", ...extra }, { name: "bad", agentExtra: { env } });
  await recordNotes(h.t);
  return h;
}

/** After each hostile scenario the chat must still work: one more ordinary turn. */
export async function stillUsable(h: H, n: number): Promise<boolean> {
  await h.send("ping");
  await h.turns(n);
  return (await h.text()).endsWith("pong") && (await h.lastStop()) === "end_turn";
}
