/**
 * The one end-to-end harness for chats: start a real Neovim with fake agents, open a chat, send,
 * wait for turns, read the transcript and the chat's state. Every end-to-end and hostile test
 * uses it, so a test reads as the scenario it checks.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterEach, expect } from "vitest";
import { FAKE_AGENT, startNvim, type NvimBin, type TestNvim } from "./nvim.js";
import { acquire, release } from "./shared-nvim.js";

export { ownNvim, shareNvim } from "./shared-nvim.js";

export type Scenario = Record<string, unknown>;

let current: TestNvim[] = [];
afterEach(async (ctx) => {
  const all = current;
  current = [];
  const failed = ctx.task.result?.state === "fail";
  // Every Neovim is quit or reset even when one's check fails; the first failure is reported.
  let first: unknown;
  for (const t of all) {
    try {
      if (!(await release(t, failed))) await t.quit();
    } catch (e) {
      first ??= e;
    }
  }
  if (first) throw first;
});

/** A Neovim that the harness quits after the test (or resets, when the file shares one: shareNvim()). */
export async function nvim(
  bin: NvimBin,
  setup: Record<string, unknown> = {},
  env: Record<string, string> = {},
  init?: string,
): Promise<TestNvim> {
  const t = (await acquire(bin, setup, env, init)) ?? (await startNvim(bin, setup, env, init));
  current.push(t);
  return t;
}

/** An agent entry for setup(): the fake agent running `scenario` ($DIR: the test's folder). */
export function fakeAgent(
  t: TestNvim,
  scenario: Scenario,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const sc = JSON.parse(JSON.stringify(scenario).replaceAll("$DIR", t.dir));
  const { env, ...rest } = extra as { env?: Record<string, string> };
  return {
    command: process.execPath,
    args: [FAKE_AGENT],
    env: { FAKE_AGENT_SCENARIO: JSON.stringify(sc), ...env },
    ...rest,
  };
}

/** setup() on a running Neovim with fake agents (the first is the default) and more options. */
export async function setAgents(
  t: TestNvim,
  scenarios: Record<string, Scenario>,
  extra: Record<string, unknown> = {},
): Promise<void> {
  const agents: Record<string, unknown> = {};
  for (const [name, sc] of Object.entries(scenarios)) agents[name] = fakeAgent(t, sc);
  await t.lua("require('acpchat').setup(...)", [{ agents, default_agent: Object.keys(scenarios)[0], ...extra }]);
}

/** Neovim with fake agents (the first is the default) and more setup() options. */
export async function withAgents(
  bin: NvimBin,
  scenarios: Record<string, Scenario>,
  extra: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<TestNvim> {
  const t = await nvim(bin, {}, env);
  await setAgents(t, scenarios, extra);
  return t;
}

/** How many chats the registry holds. */
export function chatCount(t: TestNvim): Promise<number> {
  return t.lua<number>("return vim.tbl_count(require('acpchat.chat.registry').chats)");
}

/** Call the Node host and wait for the answer (tests only: this is the one blocking helper). */
export function call<T = unknown>(
  t: TestNvim,
  method: string,
  params: Record<string, unknown> = {},
  ms = 5000,
): Promise<T> {
  return t.lua<T>("return require('acpchat.host.bridge').call_sync(...)", [method, params, ms]);
}

/** vim.ui.select answers, in order, by label substring; the prompts shown land in _G.prompts. */
export function answers(t: TestNvim, labels: string[]): Promise<unknown> {
  return t.lua(
    `_G.answers = ...
     _G.prompts = _G.prompts or {}
     vim.ui.select = function(items, opts, cb)
       table.insert(_G.prompts, opts.prompt)
       local want = table.remove(_G.answers, 1)
       for i, it in ipairs(items) do
         local label = opts.format_item and opts.format_item(it) or tostring(it)
         if want and label:find(want, 1, true) then return cb(it, i) end
       end
       cb(nil, nil)
     end`,
    [labels],
  );
}

/**
 * Permission questions answered by option kind (allow_once, reject_once, ...), in order; once
 * the list runs out, `otherwise`. Options that would be remembered are never picked. "cancel"
 * picks the explicit reject the editor adds when the agent offers none (its question is
 * cancelled); a kind no item has closes the list (dismissing, which answers nothing).
 */
export function answerKinds(t: TestNvim, kinds: string[], otherwise = "allow_once"): Promise<unknown> {
  return t.lua(
    `_G.answers, _G.otherwise = ...
     vim.ui.select = function(items, opts, on_choice)
       local want = table.remove(_G.answers, 1) or _G.otherwise
       for _, it in ipairs(items) do
         if (want == "cancel" and it.cancel) or (it.kind == want and not it.remember) then return on_choice(it) end
       end
       on_choice(nil)
     end`,
    [kinds, otherwise],
  );
}

/** Notifications are recorded in _G.notes (message and level) instead of shown. */
export function recordNotes(t: TestNvim): Promise<unknown> {
  return t.lua("_G.notes = {}; vim.notify = function(m, l) table.insert(_G.notes, { msg = m, level = l }) end");
}

/** The notifications recordNotes() caught so far. */
export function notes(t: TestNvim): Promise<{ msg: string; level: number }[]> {
  return t.lua<{ msg: string; level: number }[]>("return _G.notes or {}");
}

export type Chat = Awaited<ReturnType<typeof chatHandle>>;

/** The current chat of `t`, with helpers. */
export async function chatHandle(t: TestNvim, id?: number) {
  const info = await t.lua<{ id: number; buf: number; prompt_buf: number }>(
    "local c = (...) and require('acpchat.chat.registry').get(...) or require('acpchat.chat.registry').current(); return { id = c.id, buf = c.buf, prompt_buf = c.prompt_buf }",
    [id ?? null],
  );
  const get = (expr: string) => t.lua(`local c = require('acpchat.chat.registry').get(...); return ${expr}`, [info.id]);
  const h = {
    t,
    id: info.id,
    buf: info.buf,
    promptBuf: info.prompt_buf,
    status: () =>
      get("c.status") as Promise<
        Record<string, unknown> & { state: string; reason?: string; queued?: { text: string }[] }
      >,
    state: async () => (await h.status()).state,
    /** Wait for the chat's state (default: ready). */
    waitState: (state = "ready", ms = 15_000) =>
      t.waitFor(async () => (await h.state()) === state, `the chat to be ${state}`, ms),
    ready: (ms?: number) => h.waitState("ready", ms),
    turnsEnded: () => get("c.turn_ended or 0") as Promise<number>,
    /** Wait until `n` turns have ended; on timeout, say what the transcript and messages hold. */
    turns: async (n = 1, ms = 20_000) => {
      try {
        await t.waitFor(async () => (await h.turnsEnded()) >= n, `turn ${n} to end`, ms);
      } catch (e) {
        const msgs = await t.lua<string>("return vim.fn.execute('messages')").catch(() => "");
        throw new Error(`${(e as Error).message}\ntranscript:\n${await h.text()}\nmessages:${msgs}`);
      }
    },
    lines: () => t.lines(info.buf),
    text: async () => (await t.lines(info.buf)).join("\n"),
    promptLines: () => t.lines(info.prompt_buf),
    /** Send as :AcpChatSend does (queued when the agent is not ready). */
    send: (text: string) =>
      t.lua("require('acpchat.app.chats').send(require('acpchat.chat.registry').get(...), select(2, ...))", [
        info.id,
        text,
      ]),
    /** Type `text` into the prompt buffer and send it with the prompt's send key. */
    type: async (text: string) => {
      await t.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, vim.split(select(2, ...), '\\n'))", [
        info.prompt_buf,
        text,
      ]);
      await t.lua("require('acpchat.app.chats').send_prompt(require('acpchat.chat.registry').get(...))", [info.id]);
    },
    lastStop: () => get("c.last_stop") as Promise<string>,
    /** Render batches applied to the transcript so far. */
    batches: () => get("c.batches") as Promise<number>,
    /** The transcript's (first) window. */
    win: () => get("vim.fn.win_findbuf(c.buf)[1]") as Promise<number>,
    /** How many windows show the transcript (0 when hidden). */
    windows: () => get("#vim.fn.win_findbuf(c.buf)") as Promise<number>,
    /** Make the transcript's window, or the prompt's, the current one. */
    focus: () => get("vim.api.nvim_set_current_win(vim.fn.win_findbuf(c.buf)[1])"),
    focusPrompt: () => get("vim.api.nvim_set_current_win(vim.fn.win_findbuf(c.prompt_buf)[1])"),
    /** The transcript window's winbar as set (cut to the window's width). */
    winbar: () => get("vim.wo[vim.fn.win_findbuf(c.buf)[1]].winbar") as Promise<string>,
    /** The winbar's whole text, as a wide enough window would show it. */
    winbarText: () => get("require('acpchat.transcript.status_text').winbar(c.status)") as Promise<string>,
    /** The prompt window's winbar (the context attached to the next prompt). */
    promptWinbar: () => get("vim.wo[vim.fn.win_findbuf(c.prompt_buf)[1]].winbar") as Promise<string>,
    /** Completion candidates for `text` typed in the prompt (/ commands, @ files). */
    complete: (text: string) =>
      t.lua<{ word: string; abbr?: string; menu?: string; kind?: string }[]>(
        "return require('acpchat.complete').candidates(require('acpchat.chat.registry').get(...), select(2, ...))",
        [info.id, text],
      ),
    trace: () =>
      call<{ dir: string; kind: string; method?: string; payload_json: string }[]>(t, "trace", { chat: info.id }),
    problems: async () =>
      (await h.trace()).filter((e) => e.kind === "problem").map((e) => String(JSON.parse(e.payload_json))),
    notes: () => notes(t),
    agentPid: async () =>
      (await call<{ chat: number; pid: number }[]>(t, "chats")).find((c) => c.chat === info.id)!.pid,
  };
  return h;
}

/** Run `cmd` (default :AcpChat) and return the chat it opened or focused. */
export async function openChat(t: TestNvim, cmd = "AcpChat"): Promise<Chat> {
  await t.nvim.command(cmd);
  return chatHandle(t);
}

/** The common case: Neovim with one fake agent "fake" (or "bad" in the hostile suite), a chat open. */
export async function startChat(
  bin: NvimBin,
  scenario: Scenario,
  extra: Record<string, unknown> = {},
  opts: { name?: string; env?: Record<string, string>; agentExtra?: Record<string, unknown> } = {},
): Promise<Chat> {
  const t = await nvim(bin, {}, opts.env ?? {});
  const name = opts.name ?? "fake";
  await t.lua("require('acpchat').setup(...)", [
    { agents: { [name]: fakeAgent(t, scenario, opts.agentExtra) }, default_agent: name, ...extra },
  ]);
  return openChat(t);
}

/**
 * The answer to fs/write_text_file when the write landed: `_meta` says what was written
 * (`where`: "buffer" or "disk"; either by default).
 */
export function wrote(where?: "buffer" | "disk" | "nothing"): unknown {
  return {
    _meta: {
      "acp-chat.nvim/write": expect.objectContaining({ written: where ?? expect.stringMatching(/^(buffer|disk)$/) }),
    },
  };
}

let scenarioFiles = 0;

/**
 * The scenario of the fake agent `agent` for the chats started from now on (their agent reads it
 * when it starts): a file in the test's folder, so large contents fit; $DIR: the test's folder.
 */
export async function setScenario(t: TestNvim, scenario: Scenario, agent = "fake"): Promise<void> {
  const file = join(t.dir, `scenario-${scenarioFiles++}.json`);
  writeFileSync(file, JSON.stringify(scenario).replaceAll("$DIR", t.dir));
  await t.lua("require('acpchat.config').options.agents[select(1, ...)].env.FAKE_AGENT_SCENARIO = select(2, ...)", [
    agent,
    file,
  ]);
}

/** Send `text` to the chat (as :AcpChatSend does) and wait until the turn it starts has ended. */
export async function sendAndWait(c: Chat, text: string, ms?: number): Promise<void> {
  const n = (await c.turnsEnded()) + 1;
  await c.send(text);
  await c.turns(n, ms);
}

/**
 * sendAndWait, then the turn's changes block: the turn ends before its end snapshot is in,
 * and the block follows it.
 */
export async function sendAndWaitChanges(c: Chat, text: string, ms?: number): Promise<void> {
  const blocks = async () => ((await c.text()).match(/^◆ /gm) ?? []).length;
  const before = await blocks();
  await sendAndWait(c, text, ms);
  await c.t.waitFor(async () => (await blocks()) > before, "the turn's changes block", ms ?? 20_000);
}

/** The fake agent's echoed replies (each `echo: true` request's result or error), in order. */
export async function replies(c: Chat): Promise<Record<string, unknown>[]> {
  return [...(await c.text()).matchAll(/\{"jsonrpc":"2\.0".*?\}(?=\{"jsonrpc"|$|\n)/gs)].map(
    (m) => JSON.parse(m[0]) as Record<string, unknown>,
  );
}

/** The sessions this plugin recorded (its session index, src/session/session-index.ts), as `entries`. */
export async function writeSessionIndex(t: TestNvim, entries: Record<string, unknown>[]): Promise<void> {
  const index = await t.lua<string>("return require('acpchat.app.chats').index_file()");
  mkdirSync(dirname(index), { recursive: true });
  writeFileSync(index, JSON.stringify(entries));
}

/** How many reviews of the agent's writes are open. */
export function reviews(t: TestNvim): Promise<number> {
  return t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)");
}

/** The buffer number of the file `path` (-1 when it has no buffer). */
export function bufnr(t: TestNvim, path: string): Promise<number> {
  return t.lua<number>("return vim.fn.bufnr(...)", [path]);
}

/**
 * Every vim.ui.select question is recorded (its prompt and its choices as drawn; questions()
 * reads them) and answered by option kind, in order, then `otherwise`; options that would be
 * remembered are never picked.
 */
export function recordQuestions(t: TestNvim, kinds: string[] = [], otherwise = "allow_once"): Promise<unknown> {
  return t.lua(
    `_G.asked, _G.answers, _G.otherwise = {}, ...
     vim.ui.select = function(items, opts, on_choice)
       local labels = {}
       for i, it in ipairs(items) do labels[i] = opts.format_item(it) end
       table.insert(_G.asked, { prompt = opts.prompt, labels = labels })
       local want = table.remove(_G.answers, 1) or _G.otherwise
       for _, it in ipairs(items) do
         if (want == "cancel" and it.cancel) or (it.kind == want and not it.remember) then return on_choice(it) end
       end
       on_choice(nil)
     end`,
    [kinds, otherwise],
  );
}

/** The questions asked so far (recorded by recordQuestions() or a test's own vim.ui.select in _G.asked). */
export function questions(t: TestNvim): Promise<{ prompt: string; labels: string[] }[]> {
  return t.lua<{ prompt: string; labels: string[] }[]>("return _G.asked");
}

/** The params of every message the fake agent recorded with `method` (scenario `record: "$DIR/record.jsonl"`), in order. */
export function received(dir: string, method: string): Record<string, unknown>[] {
  return readFileSync(join(dir, "record.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { method?: string; params?: Record<string, unknown> })
    .filter((m) => m.method === method)
    .map((m) => m.params!);
}

/**
 * The chat's first snapshot is done (its ref is written): a prompt sent at once on a loaded
 * machine could otherwise go before it, and the turn would be counted from a late snapshot.
 */
export async function checkpointsReady(t: TestNvim): Promise<void> {
  const root = join(t.dir, "state", "nvim", "acpchat", "checkpoints");
  await t.waitFor(
    async () => {
      if (!existsSync(root)) return false;
      for (const p of readdirSync(root)) {
        const refs = join(root, p, "git", "refs", "acpchat");
        if (existsSync(refs) && readdirSync(refs).some((c) => existsSync(join(refs, c, "0")))) return true;
      }
      return false;
    },
    "the chat's first snapshot",
    20_000,
  );
}
