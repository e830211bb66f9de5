/**
 * The editor's tools served by the host itself over MCP's Streamable HTTP, for an agent that
 * advertises `mcpCapabilities.http` (as claude-agent-acp and claude-code-acp do): what session/new
 * offers, the same reads, boundary and review as over stdio, and a hostile local client: no
 * token, a wrong one, another Host or an Origin (a web page), a huge body, too many sessions, a
 * flood of calls; none reaches the editor. A real Neovim, the fake agent over real pipes, the
 * official MCP client over real HTTP.
 */
import { request } from "node:http";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { chatCount, nvim } from "../support/chat.js";
import {
  FAKE_LS,
  UNSAVED_READ,
  connect,
  connectHttp,
  editThroughReview,
  editUnsaved,
  expectOutsideRefused,
  expectSecretsHidden,
  setupChat,
  tool,
  type HttpServer,
  type Server,
} from "../support/editor-tools.js";

const HTTP_AGENT = { agentCapabilities: { loadSession: true, mcpCapabilities: { http: true } } };

/** One raw request (any Host, any header), as a hostile local process would send it. */
function raw(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? "POST", headers: opts.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "x", version: "1" } },
});

describe.each(nvimBins())("the editor's tools over http in Neovim $version", (bin) => {
  it("are served by the host: the buffer's text, the boundary, the review; the token appears nowhere; they end with the chat", async () => {
    const t = await nvim(bin);
    const { c, offered } = await setupChat(t, {}, HTTP_AGENT);
    // One entry, http, on the loopback address, with a bearer token: nothing for the agent to start.
    expect(offered.filter((s) => s.name === "nvim")).toEqual([
      {
        type: "http",
        name: "nvim",
        url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
        headers: [{ name: "Authorization", value: expect.stringMatching(/^Bearer [A-Za-z0-9_-]{40,}$/) }],
      },
    ]);
    const server = offered[0] as HttpServer;
    const { client } = await connectHttp(server);
    expect((await client.listTools()).tools.map((x) => x.name)).toContain("read_file");

    await editUnsaved(t);
    let r = await tool(client, "read_file", { path: "src/a.lua" });
    expect(r).toEqual({ isError: false, text: UNSAVED_READ });
    await expectOutsideRefused(client);
    r = await tool(client, "diagnostics", { path: "/etc/passwd" });
    expect(r).toEqual({
      isError: true,
      text: expect.stringMatching(/^\/etc\/passwd is outside the session's folders/),
    });

    // An edit waits for the review; accepted, it lands in the buffer (the disk keeps its text).
    r = await editThroughReview(t, client, join(t.dir, "work"));
    expect(r.isError).toBe(false);
    expect(await t.lua<string[]>("return vim.api.nvim_buf_get_lines(vim.fn.bufnr('src/a.lua'), 2, 3, false)")).toEqual([
      "return x + 1",
    ]);

    // The token reaches neither the trace, the transcript nor the log files.
    const token = server.headers[0]!.value.slice("Bearer ".length);
    await expectSecretsHidden(t, c, "Authorization", [token]);

    // The chat closes: nothing listens any more.
    await t.nvim.command("AcpChatClose");
    await t.waitFor(async () => (await chatCount(t)) === 0, "the chat to close");
    await expect(raw(server.url, { headers: { Authorization: `Bearer ${token}` }, body: INIT })).rejects.toThrow(
      /ECONNREFUSED|ECONNRESET|socket hang up/,
    );
  }, 120_000);

  it('editor_tools = "stdio": an agent that takes http gets the server process, which reads the buffer; checkhealth says so', async () => {
    const t = await nvim(bin);
    const { offered } = await setupChat(t, {}, HTTP_AGENT, { editor_tools: "stdio" });
    // One entry, the server process (v1's stdio entries carry no type).
    const own = offered.filter((s) => s.name === "nvim");
    expect(own).toHaveLength(1);
    expect(own[0]).not.toHaveProperty("type");
    const server = own[0] as Server;
    expect(server.args[0]).toMatch(/acpchat-mcp\.cjs$/);
    const { client } = await connect(server);
    await editUnsaved(t);
    expect(await tool(client, "read_file", { path: "src/a.lua" })).toEqual({ isError: false, text: UNSAVED_READ });
    await t.nvim.command("checkhealth acpchat");
    const health = (await t.nvim.buffer.lines).join("\n");
    expect(health).toContain('fake: through the server process, even if it takes http (editor_tools = "stdio")');
  }, 120_000);

  it("refuse a missing or wrong token, another Host, an Origin, another path, a huge body and a stale session before the editor is asked", async () => {
    const t = await nvim(bin);
    const { offered } = await setupChat(t, {}, HTTP_AGENT);
    const server = offered[0] as HttpServer;
    const url = new URL(server.url);
    const token = server.headers[0]!.value.slice("Bearer ".length);
    await t.lua(
      "_G.queries = 0; local q = require('acpchat.editor.editor_tools').query; require('acpchat.editor.editor_tools').query = function(p) _G.queries = _G.queries + 1; return q(p) end",
    );
    const mcp = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
    const auth = { ...mcp, Authorization: `Bearer ${token}` };
    const cases: [string, Record<string, string>, number, string?][] = [
      ["no token", mcp, 401],
      ["a token's prefix", { ...mcp, Authorization: `Bearer ${token.slice(0, -1)}` }, 401],
      ["the token and more", { ...mcp, Authorization: `Bearer ${token}x` }, 401],
      ["the bare token", { ...mcp, Authorization: token }, 401],
      ["another Host", { ...auth, Host: `localhost:${url.port}` }, 403],
      ["a rebound name", { ...auth, Host: "evil.example" }, 403],
      ["a web page's Origin", { ...auth, Origin: "http://evil.example" }, 403],
      ["a stale session", { ...auth, "Mcp-Session-Id": "not-a-session" }, 404],
    ];
    for (const [what, headers, status] of cases) {
      const r = await raw(server.url, { headers, body: INIT });
      expect({ what, status: r.status }).toEqual({ what, status });
    }
    expect((await raw(`${url.origin}/other`, { headers: auth, body: INIT })).status).toBe(404);
    // A body larger than a call may be is refused from its declared length, unread.
    const huge = await new Promise<number>((resolve, reject) => {
      const req = request(
        server.url,
        { method: "POST", headers: { ...auth, "Content-Length": String(64 << 20) } },
        (res) => {
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on("error", reject);
      req.write("{");
    });
    expect(huge).toBe(413);
    expect(await t.lua("return _G.queries")).toBe(0);

    // The token, the Host and the path as given: the editor answers (the counter counts).
    const { client } = await connectHttp(server);
    expect((await tool(client, "open_buffers")).isError).toBe(false);
    expect(await t.lua("return _G.queries")).toBe(1);

    // At most 8 MCP sessions: a ninth sends the oldest away (its calls fail; the newest work).
    const more = [];
    for (let i = 0; i < 8; i++) more.push((await connectHttp(server)).client);
    await expect(tool(client, "open_buffers")).rejects.toThrow();
    expect((await tool(more.at(-1)!, "open_buffers")).isError).toBe(false);
  }, 120_000);

  it("a client flooding calls gets a few run at a time and the rest refused at once", async () => {
    const t = await nvim(bin);
    const { offered, work } = await setupChat(t, {}, HTTP_AGENT);
    await t.lua(FAKE_LS, [work]);
    await t.nvim.command("edit src/a.lua");
    await t.lua("_G.fakels_delay = 1000");
    const { client } = await connectHttp(offered[0] as HttpServer);
    const answers = await Promise.all(
      Array.from({ length: 40 }, () => tool(client, "definition", { path: "src/a.lua", line: 2, symbol: "greet" })),
    );
    const refused = answers.filter((a) => a.isError && /busy/.test(a.text));
    const done = answers.filter((a) => !a.isError && a.text.startsWith("src/b.lua:2:10"));
    // Four run and sixteen wait; those that arrive meanwhile are refused (all of them, unless the
    // machine stalls for a second between two requests).
    expect(refused.length + done.length).toBe(40);
    expect(done.length).toBeGreaterThanOrEqual(4);
    expect(refused.length).toBeGreaterThanOrEqual(10);
    // The language server never had more than the channel's four calls at once.
    expect(await t.lua<number>("return _G.fakels_max_inflight")).toBeLessThanOrEqual(4);
  }, 60_000);
});
