/**
 * Permission questions from the real claude-code-acp agent (driven by the fake model server on
 * 127.0.0.1): its `session/request_permission` carries only the id, title and raw input of the
 * tool call; the question merges it with the call announced before, so an edit reads as an
 * edit with its path and diff and a command as its command line, never "[other]".
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { nvimBins, startNvim, type TestNvim } from "../support/nvim.js";
import { CLAUDE_ACP, claudeEnv } from "../support/claude.js";

let server: FakeAnthropic;
let t: TestNvim | undefined;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await t?.quit();
  t = undefined;
});

describe.each(nvimBins())("claude-code-acp in Neovim $version", (bin) => {
  it("asks about an edit with its path, input and diff, and about a command with its command line", async () => {
    t = await startNvim(bin, {
      agents: { claude: { command: process.execPath, args: [CLAUDE_ACP], env: claudeEnv(server.url) } },
      default_agent: "claude",
      // Writes land without a review: this test is about the question before them.
      write: "save",
      timeouts: { initialize_ms: 30000, new_session_ms: 60000 },
    });
    const tt = t;
    const work = join(tt.dir, "work");
    await tt.lua(`
      _G.asked, _G.answers = {}, {}
      vim.ui.select = function(items, opts, on_choice)
        local labels = {}
        for i, it in ipairs(items) do labels[i] = opts.format_item(it) end
        table.insert(_G.asked, { prompt = opts.prompt, labels = labels })
        local want = table.remove(_G.answers, 1) or "allow_once"
        for _, it in ipairs(items) do if it.kind == want and not it.remember then return on_choice(it) end end
        on_choice(nil)
      end
    `);
    await tt.nvim.command("AcpChat");
    const c = await tt.lua<{ id: number; buf: number }>("local c = require('acpchat.registry').current(); return { id = c.id, buf = c.buf }");
    await tt.waitFor(async () => (await tt.lua<string>("return require('acpchat.registry').get(...).status.state", [c.id])) === "ready", "claude to be ready", 60_000);
    const turns = async (n: number) =>
      tt.waitFor(async () => ((await tt.lua<number>("return require('acpchat.registry').get(...).turn_ended or 0", [c.id])) >= n ? true : false), `turn ${n}`, 60_000);
    const asked = () => tt.lua<{ prompt: string; labels: string[] }[]>("return _G.asked");

    const file = join(work, "new.txt");
    await tt.nvim.command(`AcpChatSend write ${file} from claude`);
    await turns(1);
    const edit = (await asked()).find((q) => q.prompt.includes(file));
    expect(edit, JSON.stringify(await asked())).toBeDefined();
    const lines = edit!.prompt.split("\n");
    expect(lines[0]).toBe(`Allow the agent to: Write ${file} [edit]`);
    expect(lines).toContain(`  ${file}`);
    expect(lines).toContain(`  file_path: ${file} · content: from claude`);
    expect(lines.some((l) => l.endsWith(` ${file}`) && /^ {2}\+1 -0 /.test(l))).toBe(true);
    expect(edit!.labels).toContain("Allow (allow once)");
    expect(edit!.labels.indexOf("Always Allow (allow always)")).toBeGreaterThan(edit!.labels.indexOf("Reject (reject)"));
    await tt.waitFor(async () => existsSync(file) && readFileSync(file, "utf8") === "from claude", "the file to be written");

    await tt.nvim.command("AcpChatSend run echo hi-from-terminal");
    await turns(2);
    const run = (await asked()).find((q) => q.prompt.includes("hi-from-terminal"));
    expect(run, JSON.stringify(await asked())).toBeDefined();
    expect(run!.prompt.split("\n")).toEqual(["Allow the agent to: `echo hi-from-terminal` [execute]", "  $ echo hi-from-terminal · timeout: 20000 · description: Run a command"]);
    for (const q of await asked()) expect(q.prompt).not.toContain("[other]");
    expect((await tt.lines(c.buf)).join("\n")).toContain("hi-from-terminal");
  }, 240_000);
});
