/** MCP servers (stable v1): capability gating, `$VAR` expansion, absolute commands, redaction. */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { expandVars, findCommand, gateMcpServers, resolveMcpServers } from "../../src/client/mcp-servers.js";
import type { EditorPort } from "../../src/client/editor-port.js";
import type { McpServer } from "../../src/protocol/outgoing.js";
import { Chat } from "../../src/session/chat/chat.js";

const stdio: McpServer = { name: "files", command: "/bin/true", args: [], env: [] };
const http: McpServer = { type: "http", name: "docs", url: "http://127.0.0.1/mcp", headers: [] };
const sse: McpServer = { type: "sse", name: "events", url: "http://127.0.0.1/sse", headers: [] };

describe("capability gating", () => {
  it("stdio always; http and sse only when mcpCapabilities says true", () => {
    const all = [stdio, http, sse];
    expect(gateMcpServers(all, undefined)).toEqual({ send: [stdio], skipped: [http, sse] });
    expect(gateMcpServers(all, {})).toEqual({ send: [stdio], skipped: [http, sse] });
    expect(gateMcpServers(all, { http: true })).toEqual({ send: [stdio, http], skipped: [sse] });
    expect(gateMcpServers(all, { http: false, sse: true })).toEqual({ send: [stdio, sse], skipped: [http] });
    expect(gateMcpServers(all, { http: true, sse: true })).toEqual({ send: all, skipped: [] });
    expect(gateMcpServers(all, { http: null, sse: null })).toEqual({ send: [stdio], skipped: [http, sse] });
  });
});

describe("$VAR expansion", () => {
  const env = { TOKEN: "tok-123456", HOME: "/home/u" };
  it("expands $NAME and ${NAME}, keeps $$ as $, and lists names that are not set", () => {
    const missing: string[] = [];
    expect(expandVars("Bearer $TOKEN", env)).toBe("Bearer tok-123456");
    expect(expandVars("${HOME}/x:$HOME", env)).toBe("/home/u/x:/home/u");
    expect(expandVars("a$$b", env)).toBe("a$b");
    expect(expandVars("$NOPE-${ALSO_NOPE}", env, missing)).toBe("-");
    expect(missing).toEqual(["NOPE", "ALSO_NOPE"]);
    expect(expandVars("no vars, 5$ only", env)).toBe("no vars, 5$ only");
  });

  it("resolveMcpServers: env and header values expanded and collected as secrets; stdio commands absolute; problems said", () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-mcp-"));
    const bin = join(dir, "mcp-tool");
    writeFileSync(bin, "#!/bin/sh\n");
    chmodSync(bin, 0o755);
    const r = resolveMcpServers(
      [
        {
          name: "local",
          type: "stdio",
          command: "mcp-tool",
          args: ["--x"],
          env: [
            { name: "API_TOKEN", value: "$TOKEN" },
            { name: "UNSET", value: "${MISSING_VAR}" },
          ],
        },
        { name: "rel", command: "./mcp-tool" },
        { name: "gone", command: "no-such-mcp-binary" },
        {
          name: "docs",
          type: "http",
          url: "https://x/mcp",
          headers: [{ name: "Authorization", value: "Bearer ${TOKEN}" }],
        },
      ],
      dir,
      { PATH: `/nonexistent:${dir}`, TOKEN: "tok-123456" },
    );
    expect(r.servers).toEqual([
      {
        name: "local",
        command: bin,
        args: ["--x"],
        env: [
          { name: "API_TOKEN", value: "tok-123456" },
          { name: "UNSET", value: "" },
        ],
      },
      { name: "rel", command: bin, args: [], env: [] },
      { name: "gone", command: "no-such-mcp-binary", args: [], env: [] },
      {
        type: "http",
        name: "docs",
        url: "https://x/mcp",
        headers: [{ name: "Authorization", value: "Bearer tok-123456" }],
      },
    ]);
    expect(r.secrets).toEqual(expect.arrayContaining(["tok-123456", "Bearer tok-123456"]));
    expect(r.problems).toEqual([
      'MCP server "local": env UNSET uses $MISSING_VAR, which is not set',
      'MCP server "gone": `no-such-mcp-binary` is not an executable file or on PATH (passed as it is)',
    ]);
    expect(findCommand("sh", "/", { PATH: "/bin:/usr/bin" })).toMatch(/^\/(usr\/)?bin\/sh$/);
  });
});

describe("redaction", () => {
  it("a chat's Redactor knows its MCP servers' env and header values (expanded from the environment)", () => {
    process.env.ACP_MCP_UNIT_SECRET = "mcp-secret-value-42";
    try {
      const chat = new Chat({
        agentName: "a",
        command: { command: "agent" },
        cwd: tmpdir(),
        port: {} as EditorPort,
        onEvents: () => undefined,
        mcpServers: [
          { name: "s", command: "/bin/true", env: [{ name: "K", value: "$ACP_MCP_UNIT_SECRET" }] },
          { name: "h", type: "sse", url: "http://x", headers: [{ name: "X-Key", value: "literal-header-secret" }] },
        ],
      });
      expect(chat.redactor.text("leak mcp-secret-value-42 and literal-header-secret")).toBe(
        "leak [REDACTED] and [REDACTED]",
      );
    } finally {
      delete process.env.ACP_MCP_UNIT_SECRET;
    }
  });
});
