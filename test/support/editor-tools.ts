/**
 * Steps for the editor tools' end-to-end tests: a chat whose session/new carried the
 * editor's MCP server, the official MCP client started on that server exactly as an agent starts
 * it, and a language server written in Lua (started with vim.lsp.start from a FileType autocmd,
 * as a user's config would).
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, expect } from "vitest";
import type { TestNvim } from "./nvim.js";
import { fakeAgent, openChat, received, reviews, type Chat } from "./chat.js";

export interface Server {
  name: string;
  command: string;
  args: string[];
  env: { name: string; value: string }[];
}

/** The editor's tools as offered to an agent that takes http MCP servers (served by the host). */
export interface HttpServer {
  type: "http";
  name: string;
  url: string;
  headers: { name: string; value: string }[];
}

const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
});

/** The official MCP client on the server the chat offered, as the agent would start it. */
export async function connect(
  s: Server,
  envOverride: Record<string, string> = {},
): Promise<{ client: Client; transport: StdioClientTransport; closed: Promise<void> }> {
  const env = {
    PATH: process.env.PATH ?? "",
    ...Object.fromEntries(s.env.map((e) => [e.name, e.value])),
    ...envOverride,
  };
  const transport = new StdioClientTransport({ command: s.command, args: s.args, env, stderr: "pipe" });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  const closed = new Promise<void>((resolve) => {
    client.onclose = () => resolve();
  });
  await client.connect(transport);
  clients.push(client);
  return { client, transport, closed };
}

/** The official MCP client on the host's http endpoint, as an agent reaches it (its headers as given). */
export async function connectHttp(
  s: HttpServer,
  headers: Record<string, string> = Object.fromEntries(s.headers.map((h) => [h.name, h.value])),
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(s.url), { requestInit: { headers } });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, transport };
}

export async function tool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ text: string; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text: string }[];
    isError?: boolean;
  };
  return { text: r.content.map((c) => c.text).join(""), isError: r.isError === true };
}

/** The user edits src/a.lua's first line in its buffer and does not save: the buffer and the disk differ. */
export async function editUnsaved(t: TestNvim): Promise<void> {
  await t.nvim.command("edit src/a.lua");
  await t.lua("vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'local b = require(\"b\") -- edited' })");
}

/** read_file's answer for src/a.lua after editUnsaved(): the buffer's text, said to be unsaved, numbered. */
export const UNSAVED_READ = [
  "[src/a.lua is open in the editor with unsaved changes: this is the buffer's text, which the file on disk does not have yet.]",
  '     1\tlocal b = require("b") -- edited',
  "     2\tlocal x = b.greet('you')",
  "     3\treturn x",
].join("\n");

/**
 * edit_file of src/a.lua ("return x" -> "return x + 1") as the agent sends it: the review opens
 * and, until it is answered, the disk keeps its text; every hunk accepted (gAZZ). The tool's answer.
 */
export async function editThroughReview(
  t: TestNvim,
  client: Client,
  work: string,
): Promise<{ text: string; isError: boolean }> {
  const pending = tool(client, "edit_file", { path: "src/a.lua", old_string: "return x", new_string: "return x + 1" });
  await t.waitFor(async () => (await reviews(t)) === 1, "the review to open");
  expect(readFileSync(join(work, "src/a.lua"), "utf8")).toContain("return x\n");
  await t.waitFor(
    async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
    "the review tab",
  );
  await t.nvim.input("gAZZ");
  return pending;
}

/** Paths outside the session's folders: read_file refuses them, as fs/read_text_file does. */
export async function expectOutsideRefused(client: Client): Promise<void> {
  for (const path of ["/etc/hosts", "../outside.txt"]) {
    const r = await tool(client, "read_file", { path });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("outside the session's working directory");
  }
}

/**
 * The server's secrets reach neither the trace (which names `mention`, the header or variable
 * that carried them), the transcript nor the log files.
 */
export async function expectSecretsHidden(t: TestNvim, c: Chat, mention: string, secrets: string[]): Promise<void> {
  const trace = JSON.stringify(await c.trace());
  expect(trace).toContain(mention);
  const text = await c.text();
  // Its files (the checkpoints' folder is beside the traces: stdpath("log") is the state folder).
  const logDir = await t.lua<string>("return require('acpchat.config').log_dir()");
  const logs = readdirSync(logDir, { withFileTypes: true })
    .filter((f) => f.isFile())
    .map((f) => readFileSync(join(logDir, f.name), "utf8"));
  for (const secret of secrets) {
    expect(trace).not.toContain(secret);
    expect(text).not.toContain(secret);
    for (const log of logs) expect(log).not.toContain(secret);
  }
}

/**
 * A language server in Lua: answers from fixed data; `_G.fakels_delay` ms late; `_G.fakels_silent`:
 * never; `_G.fakels_definitions`: the files a definition is in.
 */
export const FAKE_LS = `
local dir = ...
local function loc(file, line, ch) return { uri = vim.uri_from_fname(dir .. "/" .. file), range = { start = { line = line, character = ch }, ["end"] = { line = line, character = ch + 5 } } } end
local function server(dispatchers)
  local closing, id = false, 0
  return {
    request = function(method, params, callback)
      id = id + 1
      _G.fakels_requests = (_G.fakels_requests or 0) + 1
      -- Requests in flight at once (the most seen: _G.fakels_max_inflight).
      _G.fakels_inflight = (_G.fakels_inflight or 0) + 1
      _G.fakels_max_inflight = math.max(_G.fakels_max_inflight or 0, _G.fakels_inflight)
      local function reply(result)
        if _G.fakels_silent and method ~= "initialize" and method ~= "shutdown" then return end
        vim.defer_fn(function() _G.fakels_inflight = _G.fakels_inflight - 1; callback(nil, result) end, method == "initialize" and 0 or (_G.fakels_delay or 0))
      end
      if method == "initialize" then
        reply({ capabilities = { textDocumentSync = 1, definitionProvider = true, referencesProvider = true, hoverProvider = true, documentSymbolProvider = true, workspaceSymbolProvider = true } })
      elseif method == "textDocument/definition" then
        _G.fakels_position = params.position
        if _G.fakels_definitions then
          -- Files (relative to the folder) the definition is said to be in, at their first line.
          reply(vim.tbl_map(function(f) return loc(f, 0, 0) end, _G.fakels_definitions))
        else
          reply(loc("src/b.lua", 1, 9))
        end
      elseif method == "textDocument/references" then
        _G.fakels_context = params.context
        reply({ loc("src/a.lua", 1, 8), loc("src/b.lua", 1, 9), { uri = vim.uri_from_fname("/etc/hosts"), range = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 1 } } } })
      elseif method == "textDocument/hover" then
        reply({ contents = { kind = "markdown", value = "function greet(name: string)\\n\\nSays hello." } })
      elseif method == "textDocument/documentSymbol" then
        local r = function(a, b) return { start = { line = a, character = 0 }, ["end"] = { line = b, character = 0 } } end
        reply({ { name = "M", kind = 2, range = r(0, 4), selectionRange = r(0, 0), children = { { name = "greet", kind = 12, detail = "(name)", range = r(1, 3), selectionRange = r(1, 1) } } } })
      elseif method == "workspace/symbol" then
        _G.fakels_query = params.query
        reply({ { name = "greet", kind = 12, containerName = "M", location = loc("src/b.lua", 1, 9) } })
      elseif method == "shutdown" then
        reply(vim.NIL)
      end
      return true, id
    end,
    notify = function(method)
      if method == "exit" then dispatchers.on_exit(0, 15) end
      return true
    end,
    is_closing = function() return closing end,
    terminate = function() closing = true end,
  }
end
-- Like a user's config: a server for every Lua file the editor loads.
vim.api.nvim_create_autocmd("FileType", { pattern = "lua", callback = function(ev)
  vim.lsp.start({ name = "fakels", cmd = server, root_dir = dir }, { bufnr = ev.buf })
end })
`;

export async function setupChat(
  t: TestNvim,
  extra: Record<string, unknown> = {},
  scenario: Record<string, unknown> = {},
  /** The agent's own options (`editor_tools = "stdio"`, …). */
  agentExtra: Record<string, unknown> = {},
): Promise<{ c: Chat; server: Server; work: string; offered: (Server | HttpServer)[] }> {
  const work = join(t.dir, "work");
  mkdirSync(join(work, "src"), { recursive: true });
  writeFileSync(join(work, "src/a.lua"), "local b = require('b')\nlocal x = b.greet('you')\nreturn x\n");
  writeFileSync(
    join(work, "src/b.lua"),
    "local M = {}\nfunction M.greet(name)\n  return 'hello ' .. name\nend\nreturn M\n",
  );
  await t.lua("require('acpchat').setup(...)", [
    {
      agents: { fake: fakeAgent(t, { record: "$DIR/record.jsonl", ...scenario }, agentExtra) },
      default_agent: "fake",
      ...extra,
    },
  ]);
  const c = await openChat(t);
  await c.ready();
  const servers = received(t.dir, "session/new")[0]!.mcpServers as (Server | HttpServer)[];
  return { c, server: servers.find((s) => s.name === "nvim") as Server, work, offered: servers };
}
