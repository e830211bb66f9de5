/**
 * MCP servers through the real claude-code-acp agent and a fake model server: the model asks for
 * a tool, the agent calls the MCP server the chat gave it, and the result reaches the model and
 * the transcript. Two servers: the editor's own (diagnostics planted with
 * vim.diagnostic.set) and a stdio server from npm, @modelcontextprotocol/server-everything (16).
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { nvimBins } from "../support/nvim.js";
import { CLAUDE_ACP, claudeEnv } from "../support/claude.js";
import { answerKinds, nvim, openChat } from "../support/chat.js";

// One Neovim version is enough here: the agent is what is under test.
const bin = nvimBins().at(-1)!;
const EVERYTHING = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);
let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});

/** The tool results the agent sent to the model, as text. */
function toolResults(): string {
  return JSON.stringify(server.requests.map((r) => (r.body as { messages?: unknown }).messages ?? []));
}

describe(`claude-code-acp in Neovim ${bin.version}`, () => {
  it("calls the editor's diagnostics tool and a server from npm; their results reach the model and the transcript", async () => {
    const t = await nvim(bin, {
      agents: { claude: { command: process.execPath, args: [CLAUDE_ACP], env: claudeEnv(server.url) } },
      default_agent: "claude",
      timeouts: { initialize_ms: 30000, new_session_ms: 60000 },
      mcp_servers: [{ name: "everything", command: process.execPath, args: [EVERYTHING, "stdio"] }],
    });
    const work = join(t.dir, "work");
    writeFileSync(join(work, "main.lua"), "local n = 1\nprint(m)\n");
    await t.nvim.command("edit main.lua");
    await t.lua(
      "vim.diagnostic.set(vim.api.nvim_create_namespace('lint'), 0, { { lnum = 1, col = 6, message = 'undefined global m (planted)', severity = vim.diagnostic.severity.WARN, source = 'lint' } })",
    );
    await answerKinds(t, []);
    const c = await openChat(t);
    await c.ready(60_000);

    await t.nvim.command(`AcpChatSend tool mcp__nvim__diagnostics {"path":"main.lua"}`);
    await c.turns(1, 60_000);
    expect(toolResults()).toContain("main.lua:2:7: warning: undefined global m (planted) [lint]");
    expect(await c.text()).toContain("TOOL RESULT: 1 diagnostic in 1 file:");

    await t.nvim.command(`AcpChatSend tool mcp__everything__echo {"message":"through npm"}`);
    await c.turns(2, 60_000);
    expect(await c.text()).toContain("TOOL RESULT: Echo: through npm");
  }, 180_000);
});
