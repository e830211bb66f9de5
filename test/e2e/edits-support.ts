/** Helpers for the end-to-end tests of the agent's edits (test/e2e/edits-*.test.ts). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeAgents, startNvim, type NvimBin, type TestNvim } from "../support/nvim.js";

export type Step = Record<string, unknown>;

export interface EditsNvim {
  t: TestNvim;
  work: string;
  /** Open a chat whose agent runs `steps` in its turn (a scenario file: large contents fit), and send a prompt. */
  start(steps: Step[]): Promise<{ id: number; buf: number }>;
  turnEnded(id: number, n?: number): Promise<void>;
  /** The agent's echoed replies (each request's result or error), in order. */
  replies(buf: number): Promise<Record<string, unknown>[]>;
  reviews(): Promise<number>;
  bufOf(path: string): Promise<number>;
}

export async function editsNvim(bin: NvimBin, extra: Record<string, unknown> = {}): Promise<EditsNvim> {
  const t = await startNvim(bin, fakeAgents({ fake: { turns: [[]] } }, extra));
  const work = join(t.dir, "work");
  let n = 0;
  const turnEnded = async (id: number, count = 1) => {
    try {
      await t.waitFor(async () => ((await t.lua<number>("return require('acpchat.registry').get(...).turn_ended or 0", [id])) >= count ? true : false), `turn ${count} to end`);
    } catch (e) {
      const buf = await t.lua<number>("return require('acpchat.registry').get(...).buf", [id]);
      const msgs = await t.lua<string>("return vim.fn.execute('messages')");
      throw new Error(`${(e as Error).message}\ntranscript:\n${(await t.lines(buf)).join("\n")}\nmessages:${msgs}`);
    }
  };
  return {
    t,
    work,
    async start(steps) {
      const file = join(t.dir, `scenario-${n++}.json`);
      writeFileSync(file, JSON.stringify({ turns: [steps] }));
      await t.lua("require('acpchat.config').options.agents.fake.env.FAKE_AGENT_SCENARIO = ...", [file]);
      await t.nvim.command("AcpChat!");
      const c = await t.lua<{ id: number; buf: number }>("local c = require('acpchat.registry').current(); return { id = c.id, buf = c.buf }");
      await t.waitFor(async () => (await t.lua<string>("return (require('acpchat.registry').get(...).status or {}).state", [c.id])) === "ready", "ready");
      await t.nvim.command("AcpChatSend go");
      return c;
    },
    turnEnded,
    async replies(buf) {
      const text = (await t.lines(buf)).join("\n");
      return [...text.matchAll(/\{"jsonrpc":"2\.0".*?\}(?=\{"jsonrpc"|$|\n)/gs)].map((m) => JSON.parse(m[0]));
    },
    reviews: () => t.lua<number>("return vim.tbl_count(require('acpchat.review').open_reviews)"),
    bufOf: (path) => t.lua<number>("return vim.fn.bufnr(...)", [path]),
  };
}

export const write = (path: string, content: string): Step => ({ request: "fs/write_text_file", params: { path, content }, echo: true });
export const read = (path: string, more: Step = {}): Step => ({ request: "fs/read_text_file", params: { path, ...more }, echo: true });

/** Wait until a review tab is open and focused (the review's left window). */
export async function reviewShown(e: EditsNvim, count = 1): Promise<void> {
  await e.t.waitFor(async () => (await e.reviews()) === count, "the review to open");
  await e.t.waitFor(async () => /acpchat:\/\/review\//.test(await e.t.lua<string>("return vim.api.nvim_buf_get_name(0)")), "the review tab");
}
