/** The file tools' pure parts (numbering, edits, globs) and each agent's steering switch. */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyEdit, formatRead, globRegExp } from "../../src/editor-tools/file-tools.js";
import { geminiPolicy, geminiTrusts, steerToEditorFiles, steeredAgent } from "../../src/agent/file-steering.js";
import { editorWrite } from "../../src/session/editor-file-calls.js";

describe("file tools", () => {
  // The text as the model reads it: the answer's text blocks, one after the other.
  const read = (...a: Parameters<typeof formatRead>) => formatRead(...a).join("");

  it("number lines like cat -n and say when the file goes on or is unsaved", () => {
    expect(read("/p", { content: "a\nb\nc", unsaved: false, path: "/p/f" }, 5, 2)).toBe(
      "     5\ta\n     6\tb\n[Lines 5-6 shown; the file goes on: read_file with line=7 reads the rest.]",
    );
    expect(read("/p", { content: "a", unsaved: true, path: "/p/f" }, 1, 10)).toBe(
      "[f is open in the editor with unsaved changes: this is the buffer's text, which the file on disk does not have yet.]\n     1\ta",
    );
    expect(read("/p", { content: "", unsaved: true, path: "/p/f" }, 1, 10)).toContain("unsaved changes");
    expect(read("/p", { content: "", unsaved: false, path: "/p/f" }, 1, 10)).toBe("[f is empty.]");
  });

  it("a file's body is a block of its own, not copied to join it to the notes", () => {
    const body = "     1\ta\n     2\tb";
    const pieces = formatRead("/p", { content: body, unsaved: true, path: "/p/f", numbered: true }, 1, 1);
    expect(pieces).toHaveLength(3);
    expect(pieces[0]).toMatch(/unsaved changes.*\n$/);
    expect(pieces[1]).toBe("     1\ta");
    expect(pieces[2]).toBe("\n[Lines 1-1 shown; the file goes on: read_file with line=2 reads the rest.]");
    // The whole file read: the editor's text itself, the same string.
    expect(formatRead("/p", { content: body, unsaved: false, path: "/p/f", numbered: true }, 1, 2)[0]).toBe(body);
  });

  it("lines the editor numbered are counted and cut, not numbered again", () => {
    const numbered = "     5\ta\n     6\t\n     7\tc";
    expect(read("/p", { content: numbered, unsaved: false, path: "/p/f", numbered: true }, 5, 2)).toBe(
      "     5\ta\n     6\t\n[Lines 5-6 shown; the file goes on: read_file with line=7 reads the rest.]",
    );
    expect(read("/p", { content: numbered, unsaved: false, path: "/p/f", numbered: true }, 5, 3)).toBe(numbered);
    // The same lines numbered here read the same.
    expect(read("/p", { content: "a\n\nc", unsaved: false, path: "/p/f" }, 5, 3)).toBe(numbered);
  });
  it("edit: missing and repeated old_string refused; replace_all replaces each", () => {
    expect(() => applyEdit("f", "abc", "x", "y", false)).toThrow(/not found in f/);
    expect(() => applyEdit("f", "a a", "a", "b", false)).toThrow(/appears 2 times/);
    expect(applyEdit("f", "a a", "a", "b", true)).toBe("b b");
    expect(applyEdit("f", "a$b", "$", "$&", false)).toBe("a$&b");
  });
  it("globs", () => {
    expect(globRegExp("*.lua").test("src/a.lua")).toBe(true);
    expect(globRegExp("src/**/*.ts").test("src/x/y.ts")).toBe(true);
    expect(globRegExp("src/*.ts").test("src/x/y.ts")).toBe(false);
  });
});

describe("steering", () => {
  it("knows each agent by its command", () => {
    expect(steeredAgent("claude-agent-acp", [])).toBe("claude-agent-acp");
    expect(steeredAgent("/usr/bin/node", ["/x/claude-agent-acp/dist/index.js"])).toBe("claude-agent-acp");
    expect(steeredAgent("gemini", ["--acp"])).toBe("gemini-cli");
    expect(steeredAgent("codex-acp", [])).toBe("codex-acp");
    expect(steeredAgent("claude-code-acp", [])).toBeUndefined();
  });
  it("claude: _meta; codex: -c developer_instructions; gemini: a policy file, kept with the user's", () => {
    const c = steerToEditorFiles("claude-agent-acp", [], {});
    expect(c.sessionMeta).toMatchObject({
      claudeCode: { options: { disallowedTools: expect.arrayContaining(["Read", "Edit"]) } },
    });
    // The editor's read-only tools are approved without asking; none when there are none.
    expect(
      steerToEditorFiles("claude-agent-acp", [], {}, process.cwd(), {}, ["mcp__nvim__read_file"]).sessionMeta,
    ).toMatchObject({ claudeCode: { options: { allowedTools: ["mcp__nvim__read_file"] } } });
    expect((c.sessionMeta as { claudeCode: { options: object } }).claudeCode.options).not.toHaveProperty(
      "allowedTools",
    );
    expect(steerToEditorFiles("codex-acp", [], {}).args[0]).toBe("-c");
    const home = mkdtempSync(join(tmpdir(), "acpchat-steer-"));
    const project = join(home, "project");
    mkdirSync(join(home, ".gemini", "policies"), { recursive: true });
    mkdirSync(project);
    const env = { HOME: home };
    // A folder gemini does not trust: it starts no MCP server there, so it keeps its own tools.
    expect(steerToEditorFiles("gemini", ["--acp"], env, project, {}).args).toEqual(["--acp"]);
    writeFileSync(join(home, ".gemini", "trustedFolders.json"), JSON.stringify({ [project]: "TRUST_FOLDER" }));
    const g = steerToEditorFiles("gemini", ["--acp"], env, project, {});
    expect(g.args.slice(0, 2)).toEqual(["--acp", "--policy"]);
    const file = g.args[2]!;
    // The user's policies, which --policy would otherwise replace, come back beside it.
    expect(g.args.slice(3)).toEqual(["--policy", join(home, ".gemini", "policies")]);
    expect(readFileSync(file, "utf8")).toBe(geminiPolicy());
    expect(geminiPolicy()).toMatch(/toolName = \["replace","read_many_files"\]\ndecision = "deny"/);
    expect(geminiPolicy()).toMatch(/toolName = "read_file"\nargsPattern = /);
    g.cleanup();
    expect(existsSync(file)).toBe(false);
    // The user's own --policy (either spelling) is theirs: not added a second time.
    const mine = steerToEditorFiles("gemini", ["--acp", "--policy=/mine"], env, project, {});
    expect(mine.args.filter((a) => a.startsWith("--policy"))).toEqual(["--policy=/mine", "--policy"]);
    mine.cleanup();
    expect(geminiTrusts(join(project, "sub"), env)).toBe(true);
    expect(geminiTrusts(home, env)).toBe(false);
    expect(geminiTrusts(home, { ...env, GEMINI_CLI_TRUST_WORKSPACE: "true" })).toBe(true);
    expect(geminiTrusts(project, { ...env, GEMINI_RESTRICTED_MODE: "true" })).toBe(false);
  });
  it("reads gemini's and codex's MCP call input, as each shows it", () => {
    expect(
      editorWrite({
        title: "edit_file (nvim MCP Server)",
        content: [
          { type: "content", content: { type: "text", text: '{"path":"a","old_string":"x","new_string":"y"}' } },
        ],
      }),
    ).toMatchObject({ tool: "edit_file", path: "a", oldString: "x", newString: "y" });
    // codex-acp 0.16's approval of an MCP tool call (as it sent it, run behind a fake model).
    const codex = (server: string) => ({
      title: "Approve MCP tool call",
      rawInput: {
        turn_id: "t",
        server_name: server,
        id: "mcp_tool_call_approval_call_1",
        request: {
          mode: "form",
          _meta: { codex_approval_kind: "mcp_tool_call", tool_params: { path: "a", content: "z" } },
          message: 'Allow the nvim MCP server to run tool "write_file"?',
        },
      },
    });
    expect(editorWrite(codex("nvim"))).toMatchObject({ tool: "write_file", path: "a", content: "z" });
    expect(editorWrite({ ...codex("other"), rawInput: { ...codex("other").rawInput, request: {} } })).toBeUndefined();
  });
  it("recognises a permission question about the editor's write_file / edit_file", () => {
    expect(editorWrite({ title: "mcp__nvim__write_file", rawInput: { path: "a", content: "x" } })).toMatchObject({
      tool: "write_file",
    });
    expect(editorWrite({ title: "mcp__other__write_file", rawInput: { path: "a", content: "x" } })).toBeUndefined();
    expect(editorWrite({ title: "Write", rawInput: { file_path: "a", content: "x" } })).toBeUndefined();
  });
});
