/** Sessions, modes and models, sign-in, questions, failures and the traffic log, end to end. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readRecord } from "../support/conformance.js";
import { FAKE_AGENT, nvimBins, startNvim, type TestNvim } from "../support/nvim.js";

const bins = nvimBins();
let current: TestNvim | undefined;
afterEach(async () => {
  await current?.quit();
  current = undefined;
});

/** Neovim with one fake agent whose scenario may name files inside the test's folder ($DIR). */
async function start(bin: (typeof bins)[number], scenario: Record<string, unknown>, extra: Record<string, unknown> = {}, agentExtra: Record<string, unknown> = {}) {
  const t = (current = await startNvim(bin, {}));
  const sc = JSON.parse(JSON.stringify(scenario).replaceAll("$DIR", t.dir));
  await t.lua("require('acpchat').setup(...)", [
    { agents: { fake: { command: process.execPath, args: [FAKE_AGENT], env: { FAKE_AGENT_SCENARIO: JSON.stringify(sc) }, ...agentExtra } }, default_agent: "fake", ...extra },
  ]);
  const h = {
    t,
    chat: () => t.lua<{ id: number; buf: number }>("local c = require('acpchat.registry').current(); return { id = c.id, buf = c.buf }"),
    status: (id: number) => t.lua<Record<string, unknown>>("return require('acpchat.registry').get(...).status", [id]),
    ready: async (id: number) => t.waitFor(async () => (await h.status(id)).state === "ready", "ready"),
    turns: async (id: number, n: number) => t.waitFor(async () => ((await t.lua<number>("return require('acpchat.registry').get(...).turn_ended or 0", [id])) >= n ? true : false), `turn ${n}`),
    text: async (id: number) => (await t.lines(await t.lua<number>("return require('acpchat.registry').get(...).buf", [id]))).join("\n"),
    /** The winbar's whole text (a narrow window shows less of it). */
    winbar: async (id: number) => t.lua<string>("local c = require('acpchat.registry').get(...); return require('acpchat.text').winbar(c.status)", [id]),
    /** vim.ui.select answers, in order, by label substring. */
    answers: (labels: string[]) =>
      t.lua(
        `_G.answers = ...
         _G.prompts = {}
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
      ),
  };
  return h;
}

const CAPS_LIST = { loadSession: true, sessionCapabilities: { list: {}, delete: {} }, promptCapabilities: {} };

describe.each(bins)("Neovim $version", (bin) => {
  it("lists past sessions and loads one: the replay renders like live updates; ! deletes", async () => {
    const h = await start(bin, { store: "$DIR/store.json", agentCapabilities: CAPS_LIST, title: "Greeting", turns: [[{ text: "hi there" }]] });
    await h.t.nvim.command("AcpChat");
    const a = await h.chat();
    await h.ready(a.id);
    await h.t.nvim.command("AcpChatSend hello");
    await h.turns(a.id, 1);
    await h.t.nvim.command("AcpChatClose");
    await h.answers(["Greeting"]);
    await h.t.nvim.command("AcpChatSessions");
    await h.t.waitFor(async () => (await h.t.lua<number>("return vim.tbl_count(require('acpchat.registry').chats)")) === 1, "a chat to open");
    const b = await h.chat();
    expect(b.id).not.toBe(a.id);
    await h.ready(b.id);
    expect(await h.text(b.id)).toBe("## You · turn 1\n> hello\n\nhi there");
    // Delete it: the list is then empty.
    await h.answers(["Greeting"]);
    await h.t.nvim.command("AcpChatSessions!");
    await h.t.waitFor(async () => (JSON.parse(readFileSync(join(h.t.dir, "store.json"), "utf8")) as unknown[]).length === 0, "the agent to delete the session");
    const index = JSON.parse(readFileSync(join(h.t.dir, "state/nvim/acpchat/sessions.json"), "utf8")) as { sessionId: string }[];
    expect(index).toHaveLength(0);
  });

  it("uses session/resume when advertised (no replay), and the client's index when the agent cannot list", async () => {
    const h = await start(bin, { store: "$DIR/store.json", agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } }, title: "Refactor", turns: [[{ text: "done" }]] });
    await h.t.nvim.command("AcpChat");
    const a = await h.chat();
    await h.ready(a.id);
    await h.t.nvim.command("AcpChatSend refactor it");
    await h.turns(a.id, 1);
    await h.t.nvim.command("AcpChatClose");
    // No session/list: the entry comes from the client's index.
    await h.answers([""]);
    await h.t.nvim.command("AcpChatSessions");
    await h.t.waitFor(async () => (await h.t.lua<number>("return vim.tbl_count(require('acpchat.registry').chats)")) === 1, "a chat");
    const b = await h.chat();
    await h.ready(b.id);
    await h.t.waitFor(async () => (await h.status(b.id)).title === "Refactor", "the title from session_info_update");
    expect(await h.text(b.id)).toBe("");
    expect(await h.winbar(b.id)).toContain("Refactor");
  });

  it("modes, models and options: pickers, direct arguments, winbar, agent-initiated changes, per-agent defaults", async () => {
    const h = await start(
      bin,
      {
        modes: { currentModeId: "ask", availableModes: [{ id: "ask", name: "Ask" }, { id: "code", name: "Code" }, { id: "plan", name: "Plan" }] },
        configOptions: [
          { id: "model", name: "Model", category: "model", type: "select", currentValue: "m1", options: [{ value: "m1", name: "Model One" }, { value: "m2", name: "Model Two" }] },
          { id: "fast", name: "Fast", type: "boolean", currentValue: false },
        ],
        turns: [[{ update: { sessionUpdate: "current_mode_update", currentModeId: "plan" } }, { text: "planning" }]],
      },
      {},
      { mode: "code" },
    );
    await h.t.nvim.command("AcpChat");
    const c = await h.chat();
    await h.ready(c.id);
    // The configured default mode was applied at start.
    await h.t.waitFor(async () => (await h.winbar(c.id)).includes("mode: Code"), "the default mode");
    expect(await h.winbar(c.id)).toContain("model: Model One");
    await h.answers(["Model Two"]);
    await h.t.nvim.command("AcpChatModel");
    await h.t.waitFor(async () => (await h.winbar(c.id)).includes("model: Model Two"), "the model picked");
    await h.t.nvim.command("AcpChatModel m1");
    await h.t.waitFor(async () => (await h.winbar(c.id)).includes("model: Model One"), "the model set directly");
    await h.t.nvim.command("AcpChatOption fast true");
    // Sent without waiting; the agent's answer updates the option.
    await h.t.waitFor(async () => {
      const opts = await h.t.lua<{ id: string; current: unknown }[]>("return require('acpchat.registry').get(...).status.options", [c.id]);
      return opts.find((o) => o.id === "fast")!.current === true;
    }, "the option set");
    expect(await h.t.lua("return vim.fn.getcompletion('AcpChatMode ', 'cmdline')")).toEqual(["ask", "code", "plan"]);
    expect(await h.t.lua("return vim.fn.getcompletion('AcpChatModel ', 'cmdline')")).toEqual(["m1", "m2"]);
    expect(await h.t.lua("return vim.fn.getcompletion('AcpChatOption fast ', 'cmdline')")).toEqual(["true", "false"]);
    await h.answers(["Ask"]);
    await h.t.nvim.command("AcpChatMode");
    await h.t.waitFor(async () => (await h.winbar(c.id)).includes("mode: Ask"), "the mode picked");
    // The agent changes the mode itself.
    await h.t.nvim.command("AcpChatSend go");
    await h.turns(c.id, 1);
    expect(await h.winbar(c.id)).toContain("mode: Plan");
    expect((await h.t.lua<{ mode: string }>("return require('acpchat').status()")).mode).toBe("Plan");
  });

  it("legacy models (gemini-cli style) use session/set_model", async () => {
    const h = await start(bin, { record: "$DIR/record.jsonl", models: { currentModelId: "g1", availableModels: [{ modelId: "g1", name: "Gemini One" }, { modelId: "g2", name: "Gemini Two" }] } });
    await h.t.nvim.command("AcpChat");
    const c = await h.chat();
    await h.ready(c.id);
    expect(await h.winbar(c.id)).toContain("model: Gemini One");
    await h.t.nvim.command("AcpChatModel g2");
    await h.t.waitFor(async () => (await h.winbar(c.id)).includes("model: Gemini Two"), "the legacy model");
    const sent = readRecord(join(h.t.dir, "record.jsonl")).received.find((m) => m.method === "session/set_model");
    expect(sent?.params).toMatchObject({ modelId: "g2" });
  });

  it("signs in: an agent method through authenticate, and a terminal method in a :terminal", async () => {
    const methods = [
      { id: "key", name: "Use an API key" },
      { id: "login", name: "Log in with a browser", type: "terminal", args: ["--login"] },
    ];
    const h = await start(bin, { record: "$DIR/record.jsonl", authRequired: true, authMethods: methods, authFile: "$DIR/authed" });
    await h.answers(["API key"]);
    await h.t.nvim.command("AcpChat");
    const a = await h.chat();
    await h.ready(a.id);
    expect(readRecord(join(h.t.dir, "record.jsonl")).received.filter((m) => m.method === "session/new")).toHaveLength(2);
    expect(readRecord(join(h.t.dir, "record.jsonl")).received.find((m) => m.method === "authenticate")?.params).toEqual({ methodId: "key" });
    // A new chat (a new agent process) must sign in again: this time through the terminal method.
    await h.answers(["browser"]);
    await h.t.nvim.command("AcpChat!");
    const b = await h.chat();
    await h.ready(b.id);
    expect(existsSync(join(h.t.dir, "authed"))).toBe(true);
    const terms = await h.t.lua<string[]>("return vim.tbl_map(function(b) return vim.api.nvim_buf_get_name(b) end, vim.api.nvim_list_bufs())");
    expect(terms.some((n) => n.includes("sign-in"))).toBe(true);
  });

  it("answers the agent's questions (elicitation): a form field by field, and a cancelled one", async () => {
    const form = {
      request: "elicitation/create",
      params: {
        mode: "form",
        message: "Configure the deploy",
        requestedSchema: {
          type: "object",
          properties: {
            env: { type: "string", title: "Environment", enum: ["staging", "prod"] },
            replicas: { type: "integer", title: "Replicas" },
            confirm: { type: "boolean", title: "Confirm" },
          },
          required: ["env", "replicas"],
        },
      },
      echo: true,
    };
    const h = await start(bin, { turns: [[form], [form]] });
    await h.t.lua(`
      _G.inputs = { "3" }
      vim.ui.input = function(opts, cb) cb(table.remove(_G.inputs, 1)) end
    `);
    await h.answers(["prod", "yes"]);
    await h.t.nvim.command("AcpChat");
    const c = await h.chat();
    await h.ready(c.id);
    await h.t.nvim.command("AcpChatSend deploy");
    await h.turns(c.id, 1);
    const reply = JSON.parse((await h.text(c.id)).split("\n").at(-1)!) as { result: unknown };
    expect(reply.result).toEqual({ action: "accept", content: { confirm: true, env: "prod", replicas: 3 } });
    await h.answers([]); // <Esc> at the first field
    await h.t.nvim.command("AcpChatSend again");
    await h.turns(c.id, 2);
    expect(await h.text(c.id)).toContain('"result":{"action":"cancel"}');
  });

  it("a URL question is shown and opened only after the user agrees; declining says so", async () => {
    const ask = { request: "elicitation/create", params: { mode: "url", message: "Authorize GitHub", url: "https://example.invalid/auth", elicitationId: "e1" }, echo: true };
    const h = await start(bin, { turns: [[ask], [ask]] });
    await h.t.lua("_G.opened = {}; vim.ui.open = function(u) table.insert(_G.opened, u); return {} end");
    await h.answers(["Open in the browser"]);
    await h.t.nvim.command("AcpChat");
    const c = await h.chat();
    await h.ready(c.id);
    await h.t.nvim.command("AcpChatSend go");
    await h.turns(c.id, 1);
    expect(JSON.parse((await h.text(c.id)).split("\n").at(-1)!).result).toEqual({ action: "accept" });
    expect(await h.t.lua("return _G.opened")).toEqual(["https://example.invalid/auth"]);
    expect((await h.t.lua<string[]>("return _G.prompts"))[0]).toContain("https://example.invalid/auth");
    await h.answers(["Decline"]);
    await h.t.nvim.command("AcpChatSend again");
    await h.turns(c.id, 2);
    expect(JSON.parse((await h.text(c.id)).split("\n").at(-1)!).result).toEqual({ action: "decline" });
    expect(await h.t.lua("return #_G.opened")).toBe(1);
  });

  it("an agent that dies mid-turn ends it visibly; :AcpChat restarts it and loads the session again", async () => {
    const h = await start(bin, { store: "$DIR/store.json", agentCapabilities: CAPS_LIST, turns: [[{ text: "first answer" }], [{ text: "partial" }, { sleep: 50 }, { exit: 3 }]], byText: { three: [{ text: "after restart" }] } });
    await h.t.nvim.command("AcpChat");
    const c = await h.chat();
    await h.ready(c.id);
    await h.t.nvim.command("AcpChatSend one");
    await h.turns(c.id, 1);
    await h.t.nvim.command("AcpChatSend two");
    await h.turns(c.id, 2);
    expect(await h.t.lua("return require('acpchat.registry').get(...).last_stop", [c.id])).toBe("error");
    await h.t.waitFor(async () => (await h.status(c.id)).state === "crashed", "failed");
    const crashed = await h.text(c.id);
    expect(crashed).toContain("partial");
    expect(crashed).toMatch(/The agent stopped: .*exited with code 3/);
    await h.t.nvim.command("AcpChat");
    await h.ready(c.id);
    // Loaded: the conversation was replayed into a fresh view.
    const loaded = await h.text(c.id);
    expect(loaded).toContain("> one\n\nfirst answer");
    expect(loaded).not.toContain("exited with code 3");
    await h.t.nvim.command("AcpChatSend three");
    await h.turns(c.id, 3);
    expect(await h.text(c.id)).toContain("after restart");
  });

  it("times out an agent that never answers initialize, with a clear message", async () => {
    const h = await start(bin, { noInitAnswer: true }, { timeouts: { initialize_ms: 500 } });
    await h.t.nvim.command("AcpChat");
    const c = await h.chat();
    await h.t.waitFor(async () => (await h.status(c.id)).state === "crashed", "failed");
    expect(await h.text(c.id)).toMatch(/initialize got no answer from the agent within 500 ms/);
  });

  it(":AcpChatLog shows the trace (method, direction, ids, sizes; filter), with secrets redacted", async () => {
    const h = await start(bin, { turns: [[{ text: "ok" }]] }, {}, { env: { MY_API_TOKEN: "tok-123456789-secret" } });
    await h.t.nvim.command("AcpChat");
    const c = await h.chat();
    await h.ready(c.id);
    await h.t.nvim.command("AcpChatSend the token is tok-123456789-secret");
    await h.turns(c.id, 1);
    await h.t.nvim.command("AcpChatLog");
    await h.t.waitFor(async () => (await h.t.lua<string>("return vim.bo.filetype")) === "acpchat-log", "the log");
    const log = (await h.t.lines(0)).join("\n");
    expect(log).toMatch(/→ #0 initialize \d+B/);
    expect(log).toMatch(/← #0 initialize \(response\) \d+B/);
    expect(log).toMatch(/→ #2 session\/prompt \d+B/);
    expect(log).toMatch(/← session\/update \d+B/);
    expect(log).toContain("[REDACTED]");
    expect(log).not.toContain("tok-123456789-secret");
    expect(await h.t.lua("return vim.wo.foldmethod")).toBe("indent");
    // The filter works from the log's own tab.
    await h.t.nvim.command("AcpChatLog session/prompt");
    const filtered = await h.t.waitFor(async () => {
      const lines = (await h.t.lines(0)).filter((l) => !l.startsWith("    "));
      return lines.length > 0 && lines.every((l) => l.includes("session/prompt")) ? lines : undefined;
    }, "the filtered log");
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((l) => l.includes("session/prompt"))).toBe(true);
    // The trace file on disk is redacted too.
    const logs = join(h.t.dir, "state/nvim/acpchat");
    await h.t.nvim.command("tabclose");
    await h.t.nvim.command("AcpChatClose");
    const { readdirSync } = await import("node:fs");
    const disk = await h.t.waitFor(async () => {
      const files = existsSync(logs) ? readdirSync(logs).filter((f) => f.endsWith(".jsonl")) : [];
      const text = files.map((f) => readFileSync(join(logs, f), "utf8")).join("");
      return text.includes('"closed"') ? text : undefined;
    }, "the trace file");
    expect(disk).toContain("session/prompt");
    expect(disk).not.toContain("tok-123456789-secret");  });
});
