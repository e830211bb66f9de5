/**
 * A planted secret (in the agent's environment, on its command line, and a value that looks
 * like an API key that nobody configured) leaks through every channel the fake agent has:
 * session title, plan, tool title and input, message and thought chunks split mid-secret,
 * terminal output. It must be absent from every surface: transcript, winbar, the statusline
 * function, the sessions index file, :AcpChatSave, :AcpChatLog, the trace files, notifications.
 * The log folder's pruning leaves files it did not write alone.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FAKE_AGENT, nvimBins } from "../support/nvim.js";
import { fakeAgent, nvim, openChat, startChat, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const ENV_SECRET = "planted-env-secret-7f3a9c";
const ARG_SECRET = "argkey-9f8e7d6c5b4a";
const KEY_LIKE = "sk-ant-api03-Qz8xW7vU6tS5rR4pP3oO2nN1";
/** Pieces no surface may show (a secret is never shown in part either). */
const FRAGMENTS = [ENV_SECRET, ARG_SECRET, KEY_LIKE, "7f3a9c", "9f8e7d6c", "Qz8xW7vU", "pP3oO2nN1"];

function leaks(surface: string, text: string): string[] {
  return FRAGMENTS.filter((f) => text.includes(f)).map((f) => `${surface}: ${f}`);
}

const upd = (u: Record<string, unknown>) => ({ update: u });

describe.each(bins)("Neovim $version", (bin) => {
  it("a planted key is absent from every surface and file", async () => {
    const turns = [
      [
        upd({ sessionUpdate: "session_info_update", title: `Fix login with $env.SECRET_TOKEN and ${KEY_LIKE}` }),
        upd({
          sessionUpdate: "plan",
          entries: [{ content: "export API=$env.SECRET_TOKEN", priority: "high", status: "pending" }],
        }),
        upd({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "the key is $env.SECRET_TOKEN" } }),
        { text: `I will use ${KEY_LIKE.slice(0, 17)}` },
        { text: `${KEY_LIKE.slice(17)} and $env.SECRET_TOKEN now.` },
        upd({
          sessionUpdate: "tool_call",
          toolCallId: "c1",
          title: "curl -H 'Authorization: Bearer $env.SECRET_TOKEN' api",
          kind: "execute",
          status: "in_progress",
          rawInput: { command: `curl -H 'x-api-key: ${KEY_LIKE}' api` },
        }),
        { request: "terminal/create", params: { command: "echo", args: ["out:", "$env.SECRET_TOKEN", KEY_LIKE] } },
        upd({
          sessionUpdate: "tool_call_update",
          toolCallId: "c1",
          content: [{ type: "terminal", terminalId: "$last.terminalId" }],
        }),
        { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
        upd({ sessionUpdate: "tool_call_update", toolCallId: "c1", status: "completed" }),
        { text: " Done." },
      ],
    ];
    const t = await nvim(bin);
    const agent = fakeAgent(
      t,
      { turns, title: "t" },
      { args: [FAKE_AGENT, "--api-key", ARG_SECRET], env: { SECRET_TOKEN: ENV_SECRET } },
    );
    await t.lua("require('acpchat').setup(...)", [{ agents: { fake: agent }, default_agent: "fake" }]);
    // Files in the log folder that the plugin did not write, and more traces than it keeps.
    const logDirReal = await t.lua<string>("return vim.fn.stdpath('log') .. '/acpchat'");
    mkdirSync(logDirReal, { recursive: true });
    const foreign = ["history.jsonl", "2020-01-01-notes.jsonl", "export-chat1.jsonl"];
    for (const f of foreign) writeFileSync(join(logDirReal, f), "{}\n");
    for (let i = 0; i < 55; i++)
      writeFileSync(join(logDirReal, `2020-01-01T00-00-${String(i).padStart(2, "0")}-000Z-chat${i}-old.jsonl`), "{}\n");
    await t.lua(
      "_G.notes = {}; local orig = vim.notify; vim.notify = function(m, ...) table.insert(_G.notes, tostring(m)); return orig(m, ...) end",
    );

    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    await c.turns(1, 15_000);
    await t.waitFor(async () => (await c.lines()).some((l) => l.includes("[exit 0]")), "the terminal's exit");

    const found: string[] = [];
    const transcript = await c.text();
    found.push(...leaks("transcript", transcript));
    // The secrets were there to leak: they show as redacted, the rest of the text intact.
    if (!transcript.includes("I will use [REDACTED] and [REDACTED] now.")) console.error(transcript);
    expect(transcript).toContain("I will use [REDACTED] and [REDACTED] now.");
    expect(transcript).toContain("out: [REDACTED] [REDACTED]");
    const winbar = await c.winbar();
    found.push(...leaks("winbar", winbar));
    // The window is narrow: the winbar as a wide one would draw it, title included.
    const wide = await t.lua<string>(
      "return require('acpchat.transcript.status_text').winbar(require('acpchat.chat.registry').get(...).status, 500)",
      [c.id],
    );
    expect(wide).toContain("Fix login with [REDACTED] and [REDACTED]");
    found.push(...leaks("winbar", wide));
    found.push(
      ...leaks("statusline function", await t.lua<string>("return vim.json.encode(require('acpchat').status())")),
    );
    found.push(
      ...leaks(
        "status",
        await t.lua<string>("return vim.json.encode(require('acpchat.chat.registry').get(...).status)", [c.id]),
      ),
    );

    const saved = join(t.dir, "saved.md");
    await t.nvim.command(`AcpChatSave ${saved}`);
    await t.waitFor(async () => existsSync(saved), "the saved transcript");
    found.push(...leaks(":AcpChatSave", readFileSync(saved, "utf8")));
    // Saved without a path, the file is named after the (redacted) title.
    await t.nvim.command("AcpChatSave");
    const saveDir = await t.lua<string>("return require('acpchat.transcript.save').default_dir()");
    await t.waitFor(async () => existsSync(saveDir) && readdirSync(saveDir).length > 0, "the default save");
    for (const f of readdirSync(saveDir))
      found.push(
        ...leaks(":AcpChatSave name", f),
        ...leaks(":AcpChatSave file", readFileSync(join(saveDir, f), "utf8")),
      );

    await t.nvim.command("AcpChatLog");
    await t.waitFor(
      async () => /\/log$/.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the log buffer",
    );
    const log = (await t.lines(0)).join("\n");
    expect(log).toContain("--api-key [REDACTED]");
    found.push(...leaks(":AcpChatLog", log));

    await t.nvim.command("AcpChatClose");
    const index = join(t.dir, "state/nvim/acpchat/sessions.json");
    await t.waitFor(async () => existsSync(index), "the sessions index");
    const indexText = readFileSync(index, "utf8");
    expect(indexText).toContain("[REDACTED]");
    found.push(...leaks("sessions index", indexText));
    await new Promise((r) => setTimeout(r, 400));
    const traces = readdirSync(logDirReal).filter((f) => f.includes("-fake.jsonl"));
    expect(traces).toHaveLength(1);
    found.push(...leaks("trace file", readFileSync(join(logDirReal, traces[0]!), "utf8")));
    found.push(...leaks("notifications", (await t.lua<string[]>("return _G.notes")).join("\n")));
    expect(found).toEqual([]);

    // Pruning kept the newest 50 traces and every file it did not write.
    const left = readdirSync(logDirReal);
    for (const f of foreign) expect(left).toContain(f);
    expect(left.filter((f) => f.endsWith("-old.jsonl"))).toHaveLength(50);
  });

  it("a secret JSON escapes (quote, backslash, a \\u0078 escape) is absent from the trace and :AcpChatLog", async () => {
    // The agent's env value and an MCP server's env value (a name no rule calls secret) hold `"`
    // and `\`: on the wire they are `\"` and `\\`, so a search of the wire text for the value
    // found nothing. The agent echoes both, once as JSON.stringify writes them and once with a
    // character as a \u escape (the raw line), which parsing gives back as the secret.
    const AGENT_SECRET = 'Zq9"x\\Vb7Lm2Pw';
    const MCP_SECRET = 'Pq4"w\\Nn8Kk3Rr';
    const fragments = ["Vb7Lm2Pw", "Nn8Kk3Rr"];
    const raw = (text: string) => ({
      raw: JSON.stringify({
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "$sessionId",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "@@" } },
        },
      }).replace('"@@"', text),
    });
    const turns = [
      [
        { text: "echo: $env.SECRET_TOKEN and $env.DB_ECHO." },
        raw(String.raw`"unicode: Zq9\"\u0078\\Vb7Lm2Pw and Pq4\u0022w\\Nn8Kk3Rr."`),
        upd({
          sessionUpdate: "tool_call",
          toolCallId: "c1",
          title: "run",
          kind: "execute",
          status: "completed",
          rawInput: { env: { DB_PASS: "$env.DB_ECHO" } },
        }),
      ],
    ];
    const t = await nvim(bin);
    const agent = fakeAgent(t, { turns, title: "t" }, { env: { SECRET_TOKEN: AGENT_SECRET, DB_ECHO: MCP_SECRET } });
    const mcp = [{ name: "db", command: process.execPath, args: ["-e", "0"], env: { DB_PASS: MCP_SECRET } }];
    await t.lua("require('acpchat').setup(...)", [
      { agents: { fake: agent }, default_agent: "fake", mcp_servers: mcp },
    ]);
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    await c.turns(1, 15_000);
    const transcript = await c.text();
    // The echoes arrived (redacted in the transcript, which sees values, not wire text).
    expect(transcript).toContain("echo: [REDACTED] and [REDACTED].");
    expect(transcript).toContain("unicode: [REDACTED] and [REDACTED].");

    await t.nvim.command("AcpChatLog");
    await t.waitFor(
      async () => /\/log$/.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the log buffer",
    );
    const log = (await t.lines(0)).join("\n");
    expect(log).toContain("session/new");
    expect(log).toContain("unicode: [REDACTED]");
    await t.nvim.command("AcpChatClose");
    await new Promise((r) => setTimeout(r, 400));
    const logDir = await t.lua<string>("return vim.fn.stdpath('log') .. '/acpchat'");
    const traces = readdirSync(logDir).filter((f) => f.includes("-fake.jsonl"));
    expect(traces).toHaveLength(1);
    const file = readFileSync(join(logDir, traces[0]!), "utf8");
    // Every string of every line, parsed: no escaping brings a secret back.
    const strings: string[] = [];
    for (const l of file.trim().split("\n")) JSON.parse(l, (_k, v) => (typeof v === "string" && strings.push(v), v));
    const found = [
      ...fragments.filter((f) => file.includes(f)).map((f) => `trace file: ${f}`),
      ...fragments.filter((f) => strings.some((s) => s.includes(f))).map((f) => `trace file, parsed: ${f}`),
      ...fragments.filter((f) => log.includes(f)).map((f) => `:AcpChatLog: ${f}`),
    ];
    expect(found).toEqual([]);
    // The MCP server's env in session/new is redacted by where it is, whatever its name.
    const sessionNew = file.split("\n").find((l) => l.includes('"method":"session/new"') && l.includes('"dir":"out"'))!;
    expect(sessionNew).toContain('{"name":"DB_PASS","value":"[REDACTED]"}');
  });

  it(":AcpChatTerminal shows the full output without the planted key", async () => {
    const turns = [
      [
        { request: "terminal/create", params: { command: "echo", args: ["out:", "$env.SECRET_TOKEN", KEY_LIKE] } },
        { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
      ],
    ];
    const c = await startChat(bin, { turns }, {}, { agentExtra: { env: { SECRET_TOKEN: ENV_SECRET } } });
    const t = c.t;
    await c.ready();
    await t.nvim.command("AcpChatSend go");
    await c.turns(1, 15_000);
    await t.nvim.command("AcpChatTerminal");
    await t.waitFor(
      async () => /terminal/.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the terminal buffer",
    );
    const text = (await t.lines(0)).join("\n");
    expect(text).toContain("out:");
    expect(leaks(":AcpChatTerminal", text)).toEqual([]);
  });
});
