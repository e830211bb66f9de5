import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { chatCount, chatHandle, fakeAgent, nvim, openChat, received, sendAndWait, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();
const SECRET = "mcp-token-e2e-31337";

const servers = [
  { name: "files", command: process.execPath, args: ["--version"], env: { MCP_TOKEN: "$ACP_E2E_TOKEN", PLAIN: "x" } },
  { name: "docs", type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer ${ACP_E2E_TOKEN}" } },
];
const stdioSent = {
  name: "files",
  command: process.execPath,
  args: ["--version"],
  env: [
    { name: "MCP_TOKEN", value: SECRET },
    { name: "PLAIN", value: "x" },
  ],
};
const _httpSent = {
  type: "http",
  name: "docs",
  url: "http://127.0.0.1:9/mcp",
  headers: [{ name: "Authorization", value: `Bearer ${SECRET}` }],
};

describe.each(bins)("Neovim $version", (bin) => {
  it("stdio servers are passed with $VARs expanded; an http server is left out, with a note, for an agent without http", async () => {
    const t = await nvim(bin, {}, { ACP_E2E_TOKEN: SECRET });
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: { fake: fakeAgent(t, { record: "$DIR/record.jsonl" }) },
        default_agent: "fake",
        mcp_servers: servers,
        editor_tools: { enabled: false },
      },
    ]);
    const c = await openChat(t);
    await c.ready();
    expect(received(t.dir, "session/new")[0]!.mcpServers).toEqual([stdioSent]);
    await t.waitFor(
      async () => (await c.text()).includes('MCP server "docs" (http) not passed'),
      "the note naming the skipped server",
    );
    // The expanded value is a secret: not in the transcript, not in the trace.
    await sendAndWait(c, "hello");
    expect(await c.text()).not.toContain(SECRET);
    const trace = JSON.stringify(await c.trace());
    expect(trace).toContain("session/new");
    expect(trace).not.toContain(SECRET);
  });

  it("an agent that accepts http gets it, on session/new and on session/load; per-agent servers replace global ones by name", async () => {
    const t = await nvim(bin, {}, { ACP_E2E_TOKEN: SECRET });
    const scenario = {
      record: "$DIR/record.jsonl",
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true, mcpCapabilities: { http: true } },
    };
    const agentServers = [
      { name: "extra", command: process.execPath },
      { name: "docs", type: "http", url: "http://127.0.0.1:9/other" },
    ];
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: { fake: fakeAgent(t, scenario, { mcp_servers: agentServers }) },
        default_agent: "fake",
        mcp_servers: servers,
        editor_tools: { enabled: false },
      },
    ]);
    const c = await openChat(t);
    await c.ready();
    const httpOther = { type: "http", name: "docs", url: "http://127.0.0.1:9/other", headers: [] };
    const extra = { name: "extra", command: process.execPath, args: [], env: [] };
    expect(received(t.dir, "session/new")[0]!.mcpServers).toEqual([stdioSent, httpOther, extra]);
    expect(await c.text()).not.toContain("not passed");
    await sendAndWait(c, "hello");
    const sessionId = (received(t.dir, "session/prompt")[0] as { sessionId: string }).sessionId;
    await t.nvim.command("AcpChatClose");
    await t.lua("require('acpchat.app.chats').create('fake', { resume = ... })", [sessionId]);
    await t.waitFor(async () => (await chatCount(t)) === 1, "the loaded chat");
    const d = await chatHandle(t);
    await d.ready();
    const load = received(t.dir, "session/load");
    expect(load).toHaveLength(1);
    expect(load[0]).toMatchObject({ sessionId, mcpServers: [stdioSent, httpOther, extra] });
  });

  it("session/resume gets the servers too (and additionalDirectories when the agent advertises them)", async () => {
    const t = await nvim(bin, {}, { ACP_E2E_TOKEN: SECRET });
    const scenario = {
      record: "$DIR/record.jsonl",
      store: "$DIR/store.json",
      agentCapabilities: { sessionCapabilities: { resume: {}, additionalDirectories: {} } },
    };
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: { fake: fakeAgent(t, scenario) },
        default_agent: "fake",
        mcp_servers: [servers[0]],
        fs: { extra_roots: [t.dir] },
        editor_tools: { enabled: false },
      },
    ]);
    const c = await openChat(t);
    await c.ready();
    expect(received(t.dir, "session/new")[0]).toMatchObject({
      mcpServers: [stdioSent],
      additionalDirectories: [t.dir],
    });
    await sendAndWait(c, "hello");
    const sessionId = (received(t.dir, "session/prompt")[0] as { sessionId: string }).sessionId;
    await t.nvim.command("AcpChatClose");
    await t.lua("require('acpchat.app.chats').create('fake', { resume = ... })", [sessionId]);
    await t.waitFor(async () => (await chatCount(t)) === 1, "the resumed chat");
    await (await chatHandle(t)).ready();
    expect(received(t.dir, "session/resume")[0]).toEqual({
      sessionId,
      cwd: expect.any(String),
      mcpServers: [stdioSent],
      additionalDirectories: [t.dir],
    });
  });

  it("a config mistake in mcp_servers is reported with its path, and :checkhealth lists the servers", async () => {
    const t = await nvim(bin, {}, { ACP_E2E_TOKEN: SECRET });
    const msg = await t.lua<string>("return require('acpchat.config').validate(...)", [
      { mcp_servers: [{ name: "x", type: "http" }] },
    ]);
    expect(msg).toBe("acpchat: setup(): mcp_servers[1]: an http server needs url");
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: { fake: fakeAgent(t, {}) },
        mcp_servers: [...servers, { name: "missing", command: "no-such-mcp-server-here" }],
      },
    ]);
    await t.nvim.command("checkhealth acpchat");
    const health = (await t.lines(0)).join("\n");
    expect(health).toMatch(/files: stdio, `.*node.*` found/);
    expect(health).toContain("missing: stdio, `no-such-mcp-server-here` not found");
    expect(health).toContain("docs: http, http://127.0.0.1:9/mcp, headers Authorization");
    expect(health).not.toContain(SECRET);
  });
});
