/**
 * The editor's file tools with the real gemini-cli (`gemini --acp`, driven by the fake Gemini
 * API on 127.0.0.1): steered by a policy file of its own (`--policy`), its `replace` and
 * `read_many_files` are gone and its `read_file` / `write_file` refused when called (they cannot be
 * taken away without the editor's tools of the same name); a read of a file whose buffer holds unsaved edits gives the model the buffer's
 * text, and an edit goes through the permission question with its diff and the review before
 * it reaches the disk. With `editor_files = false` it keeps its own tools.
 */
import { writeFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  declaredTools,
  functionResponses,
  GEMINI_CLI,
  geminiEnv,
  startFakeGemini,
  type FakeGemini,
} from "../support/fake-gemini.js";
import { nvimBins } from "../support/nvim.js";
import { chatHandle, nvim, openChat, reviews } from "../support/chat.js";

let server: FakeGemini;
beforeAll(async () => {
  server = await startFakeGemini();
});
afterAll(async () => {
  await server.close();
});

/** The model's turn requests (the main model's, which offer tools) since `from`. */
function turnRequests(from = 0) {
  return server.requests.slice(from).filter((r) => r.path.endsWith(":streamGenerateContent"));
}
function allResponses(from = 0): string[] {
  return [...new Set(turnRequests(from).flatMap((r) => functionResponses(r.body)))];
}

describe.each(nvimBins())("gemini-cli with the editor's file tools in Neovim $version", (bin) => {
  it("reads the unsaved buffer, edits through the question, its diff and the review", async () => {
    const from = server.requests.length;
    const t = await nvim(bin, { timeouts: { initialize_ms: 60000, new_session_ms: 60000 } });
    const env = geminiEnv(server.url);
    // gemini starts no MCP server in a folder it does not trust: this one is trusted.
    writeFileSync(join(env.HOME!, ".gemini", "trustedFolders.json"), JSON.stringify({ [t.dir]: "TRUST_FOLDER" }));
    const gemini = { command: process.execPath, args: [GEMINI_CLI, "--acp"], env };
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: { gemini, own: { ...gemini, editor_files: false } },
        default_agent: "gemini",
        timeouts: { initialize_ms: 60000, new_session_ms: 60000 },
      },
    ]);
    const work = join(t.dir, "work");
    const notes = join(work, "notes.txt");
    writeFileSync(notes, "line one on disk\nline two\n");
    await t.nvim.command(`edit ${notes}`);
    await t.nvim.call("setline", [1, "line one EDITED, unsaved"]);
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

    // A read through the editor: the buffer's text, numbered, said to be unsaved.
    await t.nvim.command(`AcpChatSend tool mcp_nvim_read_file {"path":"notes.txt"}`);
    await c.turns(1, 60_000);
    const read = allResponses(from).find((r) => r.includes("line two"));
    expect(read, (await c.text()) + JSON.stringify(allResponses(from))).toBeDefined();
    expect(read).toContain("line one EDITED, unsaved");
    expect(read).not.toContain("line one on disk");
    expect(read).toContain("unsaved changes");
    // Steered: the editor's tools offered, gemini's own edit tools gone, its read_file refused.
    const names = declaredTools(turnRequests(from).at(-1)!.body);
    for (const tool of ["read_file", "write_file", "edit_file", "list_files"])
      expect(names).toContain(`mcp_nvim_${tool}`);
    expect(names).not.toContain("replace");
    expect(names).not.toContain("read_many_files");
    expect(names).toContain("run_shell_command");
    // The prompt named the unsaved file and the editor's server, whatever gemini calls the tool.
    const contents = JSON.stringify(turnRequests(from)[0]!.body.contents);
    expect(contents).toContain("these files have unsaved edits in the editor, newer than the disk: notes.txt");
    expect(contents).toContain('read_file tool of the editor\'s \\"nvim\\" MCP server');
    await t.nvim.command(`AcpChatSend tool read_file {"file_path":"${notes}"}`);
    await c.turns(2, 60_000);
    // (gemini's ACP mode drops the policy's deny_message: the model reads "denied by policy".)
    const refused = allResponses(from).find((r) => r.includes('"read_file"') && r.includes("denied by policy"));
    expect(refused, JSON.stringify(allResponses(from))).toBeDefined();
    expect(refused).not.toContain("line one on disk");

    // An edit: the question carries its diff, "show the diff first" opens the review, and the
    // disk changes only when the review is accepted.
    const code = join(work, "code.txt");
    writeFileSync(code, "alpha\nbeta\ngamma\n");
    await t.nvim.command(
      `AcpChatSend tool mcp_nvim_edit_file {"path":"code.txt","old_string":"beta","new_string":"BETA"}`,
    );
    await t.waitFor(async () => (await reviews(t)) === 1, "the review to open", 60_000);
    const asked = await t.lua<{ prompt: string }[]>("return _G.asked");
    const q = asked.find((a) => a.prompt.includes("edit_file"));
    expect(q, JSON.stringify(asked)).toBeDefined();
    expect(q!.prompt).toMatch(/\+1 -1 .*code\.txt/);
    expect(readFileSync(code, "utf8")).toBe("alpha\nbeta\ngamma\n");
    await t.waitFor(
      async () => /acpchat:\/\/review\//.test(await t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the review tab",
    );
    await t.nvim.input("gAZZ");
    await c.turns(3, 60_000);
    expect(readFileSync(code, "utf8")).toBe("alpha\nBETA\ngamma\n");

    // editor_files = false: gemini keeps its own tools.
    const before = server.requests.length;
    await t.nvim.command("AcpChat own");
    const own = await chatHandle(t);
    await own.ready(60_000);
    await t.nvim.command("AcpChatSend hello");
    await own.turns(1, 60_000);
    const ownNames = declaredTools(turnRequests(before).at(-1)!.body);
    expect(ownNames).toContain("replace");
    expect(ownNames).toContain("read_file");
    expect(ownNames).toContain("mcp_nvim_read_file");
  }, 300_000);
});
