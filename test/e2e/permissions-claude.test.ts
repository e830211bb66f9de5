/**
 * Permission questions from the real claude-code-acp agent (driven by the fake model server on
 * 127.0.0.1): its `session/request_permission` carries only the id, title and raw input of the
 * tool call; the question merges it with the call announced before, so an edit reads as an
 * edit with its path and diff and a command as its command line, never "[other]".
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { nvimBins } from "../support/nvim.js";
import { CLAUDE_ACP, claudeEnv } from "../support/claude.js";
import { nvim, openChat, questions, recordQuestions } from "../support/chat.js";

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});

describe.each(nvimBins())("claude-code-acp in Neovim $version", (bin) => {
  it("asks about an edit with its path, input and diff, and about a command with its command line", async () => {
    const t = await nvim(bin, {
      agents: { claude: { command: process.execPath, args: [CLAUDE_ACP], env: claudeEnv(server.url) } },
      default_agent: "claude",
      // Writes land without a review: this test is about the question before them.
      write: "save",
      timeouts: { initialize_ms: 30000, new_session_ms: 60000 },
    });
    const work = join(t.dir, "work");
    // Every question is recorded and allowed once.
    await recordQuestions(t);
    const c = await openChat(t);
    await c.ready(60_000);

    const file = join(work, "new.txt");
    await t.nvim.command(`AcpChatSend write ${file} from claude`);
    await c.turns(1, 60_000);
    const edit = (await questions(t)).find((q) => q.prompt.includes(file));
    expect(edit, JSON.stringify(await questions(t))).toBeDefined();
    const lines = edit!.prompt.split("\n");
    expect(lines[0]).toBe(`[claude · chat 1] Allow the agent to: Write ${file} [edit]`);
    expect(lines).toContain(`  ${file}`);
    expect(lines).toContain(`  file_path: ${file} · content: from claude`);
    expect(lines.some((l) => l.endsWith(` ${file}`) && /^ {2}\+1 -0 /.test(l))).toBe(true);
    expect(edit!.labels).toContain("Allow (this call)");
    expect(edit!.labels.indexOf("Always Allow (this session; the agent may keep it too)")).toBeGreaterThan(
      edit!.labels.indexOf("Reject (this call)"),
    );
    await t.waitFor(
      async () => existsSync(file) && readFileSync(file, "utf8") === "from claude",
      "the file to be written",
    );

    await t.nvim.command("AcpChatSend run echo hi-from-terminal");
    await c.turns(2, 60_000);
    const run = (await questions(t)).find((q) => q.prompt.includes("hi-from-terminal"));
    expect(run, JSON.stringify(await questions(t))).toBeDefined();
    expect(run!.prompt.split("\n")).toEqual([
      "[claude · chat 1] Allow the agent to: `echo hi-from-terminal` [execute]",
      "  $ echo hi-from-terminal · timeout: 20000 · description: Run a command",
    ]);
    for (const q of await questions(t)) expect(q.prompt).not.toContain("[other]");
    expect(await c.text()).toContain("hi-from-terminal");
  }, 240_000);
});
