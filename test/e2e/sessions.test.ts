/** Sessions, modes and models, sign-in, questions, failures and the traffic log, end to end. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readRecord } from "../support/conformance.js";
import { nvimBins } from "../support/nvim.js";
import {
  answers,
  chatCount,
  chatHandle,
  notes,
  openChat,
  recordNotes,
  startChat,
  withAgents,
  shareNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const CAPS_LIST = { loadSession: true, sessionCapabilities: { list: {}, delete: {} }, promptCapabilities: {} };

describe.each(bins)("Neovim $version", (bin) => {
  it("an agent started to list sessions ends when the chat it was asked from closes", async () => {
    // The agent never answers initialize: the listing would wait out its 30 s timeout, its
    // agent running all the while after the chat is gone.
    const c = await startChat(bin, { noInitAnswer: true });
    const t = c.t;
    const records = join(t.dir, "records");
    const pids = () => (existsSync(records) ? readdirSync(records).map((f) => Number(f.replace(".jsonl", ""))) : []);
    await t.waitFor(async () => pids().length === 1, "the chat's agent to ask for initialize");
    await t.nvim.command("AcpChatSessions");
    await t.waitFor(async () => pids().length === 2, "the listing's agent to ask for initialize");
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(pids().every(alive)).toBe(true);
    await t.nvim.command("AcpChatClose");
    const closed = Date.now();
    await t.waitFor(async () => !pids().some(alive), "both agents to end", 5000);
    expect(Date.now() - closed).toBeLessThan(5000);
  });

  it("lists past sessions and loads one: the replay renders like live updates; ! deletes", async () => {
    const a = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: CAPS_LIST,
      title: "Greeting",
      turns: [[{ text: "hi there" }]],
    });
    const t = a.t;
    await a.ready();
    await t.nvim.command("AcpChatSend hello");
    await a.turns(1);
    await t.nvim.command("AcpChatClose");
    await answers(t, ["Greeting"]);
    await t.nvim.command("AcpChatSessions");
    await t.waitFor(async () => (await chatCount(t)) === 1, "a chat to open");
    const b = await chatHandle(t);
    expect(b.id).not.toBe(a.id);
    await b.ready();
    expect(await b.text()).toBe("## You · turn 1\n> hello\n\n## fake\nhi there");
    // Delete it: the list is then empty.
    await answers(t, ["Greeting"]);
    await t.nvim.command("AcpChatSessions!");
    await t.waitFor(
      async () => (JSON.parse(readFileSync(join(t.dir, "store.json"), "utf8")) as unknown[]).length === 0,
      "the agent to delete the session",
    );
    const index = JSON.parse(readFileSync(join(t.dir, "state/nvim/acpchat/sessions.json"), "utf8")) as {
      sessionId: string;
    }[];
    expect(index).toHaveLength(0);
  });

  it("uses session/resume when advertised (no replay), and the client's index when the agent cannot list", async () => {
    const a = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
      title: "Refactor",
      turns: [[{ text: "done" }]],
    });
    const t = a.t;
    await a.ready();
    await t.nvim.command("AcpChatSend refactor it");
    await a.turns(1);
    await t.nvim.command("AcpChatClose");
    // No session/list: the entry comes from the client's index.
    await answers(t, [""]);
    await t.nvim.command("AcpChatSessions");
    await t.waitFor(async () => (await chatCount(t)) === 1, "a chat");
    const b = await chatHandle(t);
    await b.ready();
    await t.waitFor(async () => (await b.status()).title === "Refactor", "the title from session_info_update");
    // Nothing replayed: what the plugin recorded for the session shows, marked as local history.
    await t.waitFor(async () => (await b.text()).includes("local history"), "the local history");
    expect(await b.text()).toContain("> refactor it");
    expect(await b.winbarText()).toContain("Refactor");
  });

  it("modes, models and options: pickers, direct arguments, winbar, agent-initiated changes, per-agent defaults", async () => {
    const c = await startChat(
      bin,
      {
        modes: {
          currentModeId: "ask",
          availableModes: [
            { id: "ask", name: "Ask" },
            { id: "code", name: "Code" },
            { id: "plan", name: "Plan" },
          ],
        },
        configOptions: [
          {
            id: "model",
            name: "Model",
            category: "model",
            type: "select",
            currentValue: "m1",
            options: [
              { value: "m1", name: "Model One" },
              { value: "m2", name: "Model Two" },
            ],
          },
          { id: "fast", name: "Fast", type: "boolean", currentValue: false },
        ],
        turns: [[{ update: { sessionUpdate: "current_mode_update", currentModeId: "plan" } }, { text: "planning" }]],
      },
      {},
      { agentExtra: { mode: "code" } },
    );
    const t = c.t;
    await c.ready();
    // The configured default mode was applied at start.
    await t.waitFor(async () => (await c.winbarText()).includes("mode: Code"), "the default mode");
    expect(await c.winbarText()).toContain("model: Model One");
    await answers(t, ["Model Two"]);
    await t.nvim.command("AcpChatModel");
    await t.waitFor(async () => (await c.winbarText()).includes("model: Model Two"), "the model picked");
    await t.nvim.command("AcpChatModel m1");
    await t.waitFor(async () => (await c.winbarText()).includes("model: Model One"), "the model set directly");
    await recordNotes(t);
    await t.nvim.command("AcpChatOption fast true");
    // Sent without waiting; the agent's answer updates the option, and one line says it is done.
    await t.waitFor(async () => {
      const opts = (await c.status()).options as { id: string; current: unknown }[];
      return opts.find((o) => o.id === "fast")!.current === true;
    }, "the option set");
    await t.waitFor(
      async () => (await notes(t)).some((n) => n.msg === "acpchat: fast set to true"),
      "the option's note",
    );
    expect(await t.lua("return vim.fn.getcompletion('AcpChatMode ', 'cmdline')")).toEqual(["ask", "code", "plan"]);
    expect(await t.lua("return vim.fn.getcompletion('AcpChatModel ', 'cmdline')")).toEqual(["m1", "m2"]);
    expect(await t.lua("return vim.fn.getcompletion('AcpChatOption fast ', 'cmdline')")).toEqual(["true", "false"]);
    await answers(t, ["Ask"]);
    await t.nvim.command("AcpChatMode");
    await t.waitFor(async () => (await c.winbarText()).includes("mode: Ask"), "the mode picked");
    // The agent changes the mode itself.
    await t.nvim.command("AcpChatSend go");
    await c.turns(1);
    expect(await c.winbarText()).toContain("mode: Plan");
    expect((await t.lua<{ mode: string }>("return require('acpchat').status()")).mode).toBe("Plan");
  });

  it("legacy models (gemini-cli style) use session/set_model", async () => {
    const c = await startChat(bin, {
      record: "$DIR/record.jsonl",
      models: {
        currentModelId: "g1",
        availableModels: [
          { modelId: "g1", name: "Gemini One" },
          { modelId: "g2", name: "Gemini Two" },
        ],
      },
    });
    await c.ready();
    expect(await c.winbarText()).toContain("model: Gemini One");
    await c.t.nvim.command("AcpChatModel g2");
    await c.t.waitFor(async () => (await c.winbarText()).includes("model: Gemini Two"), "the legacy model");
    const sent = readRecord(join(c.t.dir, "record.jsonl")).received.find((m) => m.method === "session/set_model");
    expect(sent?.params).toMatchObject({ modelId: "g2" });
  });

  it("signs in: an agent method through authenticate, and a terminal method in a :terminal", async () => {
    const methods = [
      { id: "key", name: "Use an API key" },
      { id: "login", name: "Log in with a browser", type: "terminal", args: ["--login"] },
    ];
    const t = await withAgents(bin, {
      fake: { record: "$DIR/record.jsonl", authRequired: true, authMethods: methods, authFile: "$DIR/authed" },
    });
    await answers(t, ["API key"]);
    const a = await openChat(t);
    await a.ready();
    expect(readRecord(join(t.dir, "record.jsonl")).received.filter((m) => m.method === "session/new")).toHaveLength(2);
    expect(readRecord(join(t.dir, "record.jsonl")).received.find((m) => m.method === "authenticate")?.params).toEqual({
      methodId: "key",
    });
    // A new chat (a new agent process) must sign in again: this time through the terminal method.
    await answers(t, ["browser"]);
    const b = await openChat(t, "AcpChat!");
    await b.ready();
    expect(existsSync(join(t.dir, "authed"))).toBe(true);
    const terms = await t.lua<string[]>(
      "return vim.tbl_map(function(b) return vim.api.nvim_buf_get_name(b) end, vim.api.nvim_list_bufs())",
    );
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
    const t = await withAgents(bin, { fake: { turns: [[form], [form]] } });
    await t.lua(`
      _G.inputs = { "3" }
      vim.ui.input = function(opts, cb) cb(table.remove(_G.inputs, 1)) end
    `);
    await answers(t, ["prod", "yes"]);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend deploy");
    await c.turns(1);
    const reply = JSON.parse((await c.text()).split("\n").at(-1)!) as { result: unknown };
    expect(reply.result).toEqual({ action: "accept", content: { confirm: true, env: "prod", replicas: 3 } });
    await answers(t, []); // <Esc> at the first field
    await t.nvim.command("AcpChatSend again");
    await c.turns(2);
    expect(await c.text()).toContain('"result":{"action":"cancel"}');
  });

  it("a URL question is shown and opened only after the user agrees; declining says so", async () => {
    const ask = {
      request: "elicitation/create",
      params: { mode: "url", message: "Authorize GitHub", url: "https://example.invalid/auth", elicitationId: "e1" },
      echo: true,
    };
    const t = await withAgents(bin, { fake: { turns: [[ask], [ask]] } });
    await t.lua("_G.opened = {}; vim.ui.open = function(u) table.insert(_G.opened, u); return {} end");
    await answers(t, ["Open in the browser"]);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    await c.turns(1);
    expect(JSON.parse((await c.text()).split("\n").at(-1)!).result).toEqual({ action: "accept" });
    expect(await t.lua("return _G.opened")).toEqual(["https://example.invalid/auth"]);
    expect((await t.lua<string[]>("return _G.prompts"))[0]).toContain("https://example.invalid/auth");
    // Every question names the agent and chat that asks.
    expect((await t.lua<string[]>("return _G.prompts"))[0]).toMatch(
      new RegExp(`^\\[fake · chat ${c.id}\\] Authorize GitHub\n`),
    );
    await answers(t, ["Decline"]);
    await t.nvim.command("AcpChatSend again");
    await c.turns(2);
    expect(JSON.parse((await c.text()).split("\n").at(-1)!).result).toEqual({ action: "decline" });
    expect(await t.lua("return #_G.opened")).toBe(1);
  });

  it("an agent that dies mid-turn ends it visibly; :AcpChat restarts it and loads the session again", async () => {
    const c = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: CAPS_LIST,
      turns: [[{ text: "first answer" }], [{ text: "partial" }, { sleep: 50 }, { exit: 3 }]],
      byText: { three: [{ text: "after restart" }] },
    });
    const t = c.t;
    await c.ready();
    await t.nvim.command("AcpChatSend one");
    await c.turns(1);
    await t.nvim.command("AcpChatSend two");
    await c.turns(2);
    expect(await c.lastStop()).toBe("error");
    await c.waitState("crashed");
    const crashed = await c.text();
    expect(crashed).toContain("partial");
    expect(crashed).toMatch(/The agent stopped: .*exited with code 3/);
    await t.nvim.command("AcpChat");
    await c.ready();
    // Loaded: the conversation was replayed into a fresh view.
    const loaded = await c.text();
    expect(loaded).toContain("> one\n\n## fake\nfirst answer");
    expect(loaded).not.toContain("exited with code 3");
    await t.nvim.command("AcpChatSend three");
    await c.turns(3);
    expect(await c.text()).toContain("after restart");
  });

  it("times out an agent that never answers initialize, with a clear message", async () => {
    const c = await startChat(bin, { noInitAnswer: true }, { timeouts: { initialize_ms: 500 } });
    await c.waitState("crashed");
    expect(await c.text()).toMatch(/initialize got no answer from the agent within 500 ms/);
  });

  it(":AcpChatLog shows the trace (method, direction, ids, sizes; filter), with secrets redacted", async () => {
    const c = await startChat(
      bin,
      { turns: [[{ text: "ok" }]] },
      {},
      { agentExtra: { env: { MY_API_TOKEN: "tok-123456789-secret" } } },
    );
    const t = c.t;
    await c.ready();
    await t.nvim.command("AcpChatSend the token is tok-123456789-secret");
    await c.turns(1);
    await t.nvim.command("AcpChatLog");
    await t.waitFor(async () => (await t.lua<string>("return vim.bo.filetype")) === "acpchat-log", "the log");
    const log = (await t.lines(0)).join("\n");
    expect(log).toMatch(/→ #0 initialize \d+B/);
    expect(log).toMatch(/← #0 initialize \(response\) \d+B/);
    expect(log).toMatch(/→ #2 session\/prompt \d+B/);
    expect(log).toMatch(/← session\/update \d+B/);
    expect(log).toContain("[REDACTED]");
    expect(log).not.toContain("tok-123456789-secret");
    expect(await t.lua("return vim.wo.foldmethod")).toBe("indent");
    // The filter works from the log's own tab.
    await t.nvim.command("AcpChatLog session/prompt");
    const filtered = await t.waitFor(async () => {
      const lines = (await t.lines(0)).filter((l) => !l.startsWith("    "));
      return lines.length > 0 && lines.every((l) => l.includes("session/prompt")) ? lines : undefined;
    }, "the filtered log");
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((l) => l.includes("session/prompt"))).toBe(true);
    // The trace file on disk is redacted too.
    const logs = join(t.dir, "state/nvim/acpchat");
    await t.nvim.command("tabclose");
    await t.nvim.command("AcpChatClose");
    const disk = await t.waitFor(async () => {
      const files = existsSync(logs) ? readdirSync(logs).filter((f) => f.endsWith(".jsonl")) : [];
      const text = files.map((f) => readFileSync(join(logs, f), "utf8")).join("");
      return text.includes('"closed"') ? text : undefined;
    }, "the trace file");
    expect(disk).toContain("session/prompt");
    expect(disk).not.toContain("tok-123456789-secret");
  });
});
