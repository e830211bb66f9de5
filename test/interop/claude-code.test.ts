/**
 * The real @zed-industries/claude-code-acp agent, driven by a fake model server on 127.0.0.1:
 * it reads an unsaved buffer, writes a file, runs a command in a client terminal, is denied once.
 */
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groupAlive } from "../../src/agent/process-group.js";
import { Chat } from "../../src/session/chat/chat.js";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { MemoryPort } from "../support/fake-chat.js";
import { CLAUDE_ACP, claudeEnv } from "../support/claude.js";

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});

describe("claude-code-acp against a fake model server", () => {
  it("reads an unsaved buffer, writes, runs a terminal, and is denied once", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-claude-")));
    const file = join(dir, "notes.txt");
    writeFileSync(file, "on disk\n");
    const port = new MemoryPort();
    port.buffers.set(file, "UNSAVED BUFFER TEXT\n");
    const chat = new Chat({
      agentName: "claude",
      command: { command: process.execPath, args: [CLAUDE_ACP], env: claudeEnv(server.url) },
      cwd: dir,
      port,
      onEvents: () => undefined,
      timeouts: { initializeMs: 30_000, newSessionMs: 60_000 },
    });
    const agentText = () =>
      chat.state.blocks
        .filter((b) => b.type === "agent")
        .map((b) => (b as { text: string }).text)
        .join("\n");
    try {
      await chat.start();
      expect(chat.client!.init!.agentInfo?.name).toMatch(/claude/i);

      expect(await chat.prompt([{ type: "text", text: `read ${file}` }])).toBe("end_turn");
      expect(agentText()).toContain("UNSAVED BUFFER TEXT");

      port.answer = (req) => ({
        outcome: "selected",
        optionId: req.options.find((o) => o.kind === "allow_once")!.optionId,
      });
      expect(await chat.prompt([{ type: "text", text: `write ${join(dir, "out.txt")} written by claude` }])).toBe(
        "end_turn",
      );
      expect(readFileSync(join(dir, "out.txt"), "utf8")).toBe("written by claude");

      expect(await chat.prompt([{ type: "text", text: "run echo hello-from-bash && pwd" }])).toBe("end_turn");
      expect(chat.terminals.all().length).toBeGreaterThanOrEqual(1);
      expect(agentText()).toContain("hello-from-bash");
      expect(agentText()).toContain(dir);

      const asked = port.questions.length;
      port.answer = (req) => ({
        outcome: "selected",
        optionId: req.options.find((o) => o.kind === "reject_once")!.optionId,
      });
      await chat.prompt([{ type: "text", text: `write ${join(dir, "denied.txt")} nope` }]);
      expect(port.questions.length).toBe(asked + 1);
      expect(() => readFileSync(join(dir, "denied.txt"))).toThrow();
    } finally {
      const pid = chat.agent?.pid;
      await chat.close();
      expect(groupAlive(pid)).toBe(false);
    }
  }, 120_000);
});
