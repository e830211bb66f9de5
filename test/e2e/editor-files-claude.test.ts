/**
 * The editor's file tools with the real claude-agent-acp (driven by the fake model server on
 * 127.0.0.1): the agent is steered to them (its own Read, Write, Edit are taken away in
 * session/new's _meta and its system prompt says why), a read of a file whose buffer holds
 * unsaved edits gives the model the buffer's text, and a write goes through the permission
 * question with its diff and the per-hunk review before it reaches the disk.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeAnthropic, type FakeAnthropic } from "../support/fake-anthropic.js";
import { nvimBins } from "../support/nvim.js";
import { CLAUDE_AGENT_ACP, claudeEnv } from "../support/claude.js";
import { nvim, openChat, reviews } from "../support/chat.js";

let server: FakeAnthropic;
beforeAll(async () => {
  server = await startFakeAnthropic();
});
afterAll(async () => {
  await server.close();
});

interface Req {
  system?: unknown;
  tools?: { name: string }[];
  messages?: { role: string; content: unknown }[];
}

/** The tool results the agent sent the model (every request's messages), as text. */
function toolResults(): string[] {
  const out = new Set<string>();
  for (const r of server.requests) {
    for (const m of (r.body as Req).messages ?? []) {
      if (!Array.isArray(m.content)) continue;
      for (const b of m.content as { type: string; content?: unknown }[])
        if (b.type === "tool_result") out.add(JSON.stringify(b.content));
    }
  }
  return [...out];
}

/** The last request of the agent's turns (one that offers tools). */
function lastTurnRequest(): Req {
  const withTools = server.requests.filter((r) => ((r.body as Req).tools ?? []).length > 0);
  return withTools.at(-1)!.body as Req;
}

describe.each(nvimBins())("claude-agent-acp with the editor's file tools in Neovim $version", (bin) => {
  it("reads the unsaved buffer, and writes through the question, its diff and the review", async () => {
    const t = await nvim(bin, {
      agents: { claude: { command: process.execPath, args: [CLAUDE_AGENT_ACP], env: claudeEnv(server.url) } },
      default_agent: "claude",
      timeouts: { initialize_ms: 30000, new_session_ms: 60000 },
    });
    const work = join(t.dir, "work");
    const notes = join(work, "notes.txt");
    writeFileSync(notes, "line one on disk\nline two\n");
    await t.nvim.command(`edit ${notes}`);
    await t.nvim.call("setline", [1, "line one EDITED, unsaved"]);
    // Questions are recorded; the one about edit_file is answered with the per-hunk review.
    await t.lua(
      `_G.asked = {}
       vim.ui.select = function(items, opts, on_choice)
         local labels = {}
         for i, it in ipairs(items) do labels[i] = opts.format_item(it) end
         table.insert(_G.asked, { prompt = opts.prompt, labels = labels })
         for _, it in ipairs(items) do
           if opts.prompt:find("edit_file", 1, true) and it.show_diff then return on_choice(it) end
         end
         for _, it in ipairs(items) do if it.kind == "allow_once" then return on_choice(it) end end
         on_choice(nil)
       end`,
    );
    const c = await openChat(t);
    await c.ready(60_000);
    // claude-agent-acp takes http MCP servers: the editor's tools are served by the host itself.
    const setup = (await c.trace()).find((e) => e.dir === "out" && e.method === "session/new")!;
    const offered = (JSON.parse(setup.payload_json) as { params: { mcpServers: { name: string; type?: string }[] } })
      .params.mcpServers;
    expect(offered.find((s) => s.name === "nvim")).toMatchObject({
      type: "http",
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:/),
    });

    // A read: the model gets the buffer's text, numbered, and is told it is unsaved.
    await t.nvim.command(`AcpChatSend tool mcp__nvim__read_file {"path":"notes.txt"}`);
    await c.turns(1, 90_000);
    const read = toolResults().find((r) => r.includes("line two"));
    expect(read, JSON.stringify(toolResults())).toBeDefined();
    expect(read).toContain("line one EDITED, unsaved");
    expect(read).not.toContain("line one on disk");
    expect(read).toContain("unsaved changes");
    expect(read).toContain("     1\\tline one EDITED, unsaved");
    // A read through the editor is not asked about (claude's own Read never was); writes are.
    expect(await t.lua<{ prompt: string }[]>("return _G.asked")).toEqual([]);
    // Steered: no Read, Write or Edit of its own; the editor's tools and the instruction instead.
    const req = lastTurnRequest();
    const names = (req.tools ?? []).map((x) => x.name);
    expect(names).toContain("mcp__nvim__read_file");
    expect(names).toContain("mcp__nvim__edit_file");
    for (const own of ["Read", "Write", "Edit", "MultiEdit", "NotebookEdit"]) expect(names).not.toContain(own);
    expect(names).toContain("Bash");
    expect(JSON.stringify(req.system)).toContain("mcp__nvim__read_file");
    // The prompt named the unsaved file and the tool that reads it.
    expect(JSON.stringify(req.messages)).toContain("these files have unsaved edits in the editor");
    expect(await c.text()).toContain("notes.txt");

    // A new file: asked with its diff, allowed; "Allow" showed counts, not the diff, so with
    // write = "review" the write opens in review; accepted, on disk.
    const fresh = join(work, "fresh.txt");
    await t.nvim.command(
      `AcpChatSend tool mcp__nvim__write_file {"path":"fresh.txt","content":"hello from the model\\n"}`,
    );
    await t.waitFor(async () => (await reviews(t)) === 1, "the write's review to open", 90_000);
    expect(existsSync(fresh)).toBe(false);
    await t.waitFor(
      async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the write's review tab",
    );
    await t.nvim.input("gAZZ");
    await c.turns(2, 90_000);
    const asked = await t.lua<{ prompt: string }[]>("return _G.asked");
    const q = asked.find((a) => a.prompt.includes("write_file"));
    expect(q, JSON.stringify(asked)).toBeDefined();
    expect(q!.prompt).toMatch(/\+1 -0 .*fresh\.txt/);
    expect(readFileSync(fresh, "utf8")).toBe("hello from the model\n");

    // An edit of a file on disk: the question's "show the diff first" opens the review; nothing
    // is on disk until it is accepted.
    const code = join(work, "code.txt");
    writeFileSync(code, "alpha\nbeta\ngamma\n");
    await t.nvim.command(
      `AcpChatSend tool mcp__nvim__edit_file {"path":"code.txt","old_string":"beta","new_string":"BETA"}`,
    );
    await t.waitFor(async () => (await reviews(t)) === 1, "the review to open", 90_000);
    expect(readFileSync(code, "utf8")).toBe("alpha\nbeta\ngamma\n");
    await t.waitFor(
      async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the review tab",
    );
    await t.nvim.input("gAZZ");
    await c.turns(3, 90_000);
    expect(readFileSync(code, "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(toolResults().some((r) => r.includes("code.txt") && !r.includes("rejected"))).toBe(true);

    // A missing old_string fails with a clear message, and writes nothing.
    await t.nvim.command(
      `AcpChatSend tool mcp__nvim__edit_file {"path":"code.txt","old_string":"delta","new_string":"x"}`,
    );
    await c.turns(4, 90_000);
    expect(toolResults().some((r) => r.includes("old_string was not found in code.txt"))).toBe(true);
    expect(readFileSync(code, "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(existsSync(join(work, "x"))).toBe(false);

    // An edit of the file whose buffer holds the user's unsaved edit: its review compares with
    // the buffer (what the call edits), so its one hunk is the agent's change and the user's
    // line is on both sides, never offered to be rejected; accepted, it stays.
    await t.nvim.command(
      `AcpChatSend tool mcp__nvim__edit_file {"path":"notes.txt","old_string":"line two","new_string":"LINE TWO"}`,
    );
    await t.waitFor(async () => (await reviews(t)) === 1, "the review of notes.txt", 90_000);
    // The review is listed at once; its tab (and windows) come a few turns of the loop later.
    await t.waitFor(
      async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the review tab",
    );
    const review = await t.lua<{ left: string[]; hunks: number }>(
      `local rv = require('acpchat.ask.review')
       local r = rv.open_reviews[next(rv.open_reviews)]
       return { left = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(r.lw), 0, -1, false), hunks = #r.hunks }`,
    );
    expect(review).toEqual({ left: ["line one EDITED, unsaved", "line two"], hunks: 1 });
    await t.nvim.input("gAZZ");
    await c.turns(5, 90_000);
    expect(
      await t.lua<string[]>("return vim.api.nvim_buf_get_lines(vim.fn.bufnr(...), 0, -1, false)", [notes]),
    ).toEqual(["line one EDITED, unsaved", "LINE TWO"]);
  }, 400_000);
});
