/** Steps for the end-to-end tests of the agent's edits (test/e2e/edits-*.test.ts), on the chat harness. */
import { join } from "node:path";
import type { NvimBin, TestNvim } from "../support/nvim.js";
import { openChat, reviews, setScenario, withAgents, type Chat } from "../support/chat.js";

export type Step = Record<string, unknown>;

/** Neovim with the fake agent and these setup() options; each chat's turn is set by agentTurn(). */
export async function editsNvim(
  bin: NvimBin,
  extra: Record<string, unknown> = {},
): Promise<{ t: TestNvim; work: string }> {
  const t = await withAgents(bin, { fake: { turns: [[]] } }, extra);
  return { t, work: join(t.dir, "work") };
}

/** A new chat whose agent runs `steps` in its turn (a scenario file: large contents fit); "go" is sent once it is ready. */
export async function agentTurn(t: TestNvim, steps: Step[]): Promise<Chat> {
  await setScenario(t, { turns: [steps] });
  const c = await openChat(t, "AcpChat!");
  await c.ready();
  await t.nvim.command("AcpChatSend go");
  return c;
}

export const write = (path: string, content: string): Step => ({
  request: "fs/write_text_file",
  params: { path, content },
  echo: true,
});
export const read = (path: string, more: Step = {}): Step => ({
  request: "fs/read_text_file",
  params: { path, ...more },
  echo: true,
});

/** Wait until a review tab is open and focused (the review's left window). */
export async function reviewShown(t: TestNvim, count = 1): Promise<void> {
  await t.waitFor(async () => (await reviews(t)) === count, "the review to open");
  await t.waitFor(
    async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
    "the review tab",
  );
}
