/** Small things of a day's use: pickers, wrong ids, where a saved transcript goes, output windows. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { chatCount, recordNotes, startChat, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it("the sessions picker shows title, time and folder; choosing the session already open focuses its chat", async () => {
    const c = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true, sessionCapabilities: { list: {} } },
      title: "Fix the parser",
      turns: [[{ text: "ok" }]],
    });
    await c.ready();
    await c.send("hello");
    await c.turns(1);
    await c.t.lua(`
      _G.shown = {}
      vim.ui.select = function(items, opts, cb)
        for _, it in ipairs(items) do table.insert(_G.shown, opts.format_item(it)) end
        cb(items[1], 1)
      end`);
    // From another window, the chat's session is chosen again.
    await c.t.nvim.command("wincmd h");
    await c.t.nvim.command("AcpChatSessions");
    await c.t.waitFor(async () => (await c.t.lua<string[]>("return _G.shown")).length > 0, "the picker");
    const [line] = await c.t.lua<string[]>("return _G.shown");
    expect(line).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d {2}Fix the parser {2}.*work {2}\[open\]$/);
    await c.t.waitFor(
      async () => (await c.t.lua<number>("return vim.api.nvim_get_current_buf()")) === c.promptBuf,
      "the open chat focused",
    );
    expect(await chatCount(c.t)).toBe(1);
  });

  it(":AcpChatMode with an id the agent does not offer says which are valid and sends nothing", async () => {
    const c = await startChat(bin, {
      record: "$DIR/record.jsonl",
      modes: {
        currentModeId: "ask",
        availableModes: [
          { id: "ask", name: "Ask" },
          { id: "code", name: "Code" },
        ],
      },
    });
    await c.ready();
    await recordNotes(c.t);
    await c.t.nvim.command("AcpChatMode plan");
    await c.t.waitFor(
      async () => (await c.notes()).some((n) => n.msg.includes('no mode "plan"; valid: ask, code')),
      "the note",
    );
    expect(readFileSync(join(c.t.dir, "record.jsonl"), "utf8")).not.toContain("session/set_mode");
  });

  it(":AcpChatSave without a path writes under Neovim's data folder and says where", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          {
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "r1",
              title: "Run ls",
              kind: "execute",
              status: "completed",
              content: [{ type: "content", content: { type: "text", text: "# not a heading\nfile.txt" } }],
            },
          },
          { text: "worth keeping" },
        ],
      ],
    });
    await c.ready();
    await c.send("save me");
    await c.turns(1);
    await recordNotes(c.t);
    await c.t.nvim.command("AcpChatSave");
    const note = await c.t.waitFor(
      async () => (await c.notes()).find((n) => n.msg.startsWith("acpchat: saved the transcript to "))?.msg,
      "the note",
    );
    const path = note.replace("acpchat: saved the transcript to ", "");
    expect(path.startsWith(join(c.t.dir, "data/nvim/acpchat/transcripts/"))).toBe(true);
    expect(readFileSync(path, "utf8")).toContain("worth keeping");
    // A header says what it is: title, agent, session, folder, date.
    const head = readFileSync(path, "utf8").split("\n").slice(0, 7);
    expect(head.slice(0, 5)).toEqual([
      "# Chat with fake",
      "",
      "- agent: fake",
      `- session: ${(await c.status()).session_id}`,
      `- folder: ${join(c.t.dir, "work")}`,
    ]);
    expect(head[5]).toMatch(/^- saved: \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(existsSync(join(c.t.dir, "work", path.split("/").at(-1)!))).toBe(false);
    // A tool call's output is fenced: its "# ..." line is output, not a heading.
    const saved = readFileSync(path, "utf8");
    expect(saved).toMatch(/Run ls\n```text\n(?:.*\n)*? {2}# not a heading\n {2}file\.txt\n```\n/);
  });

  it(":AcpChatSave never replaces an existing file without !, nor a file open with unsaved edits even with !", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          {
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "r1",
              title: "Run ls",
              kind: "execute",
              status: "completed",
              content: [{ type: "content", content: { type: "text", text: "# not a heading\nfile.txt" } }],
            },
          },
          { text: "worth keeping" },
        ],
      ],
    });
    await c.ready();
    await c.send("save me");
    await c.turns(1);
    await recordNotes(c.t);
    const readme = join(c.t.dir, "work", "README.md");
    const other = join(c.t.dir, "work", "notes.md");
    writeFileSync(readme, "# my project\n");
    writeFileSync(other, "my notes\n");
    const refused = async (path: string, why: string) => {
      await c.t.waitFor(
        async () => (await c.notes()).some((n) => n.msg === `acpchat: not saved: ${path} ${why}` && n.level === 4),
        `the refusal for ${path}`,
      );
    };
    await c.t.nvim.command(`AcpChatSave ${other}`);
    await refused(other, "exists (add ! to replace it)");
    expect(readFileSync(other, "utf8")).toBe("my notes\n");
    // README.md open in a window, with an edit not yet written.
    await c.t.nvim.command("wincmd t");
    await c.t.nvim.command(`edit ${readme}`);
    await c.t.lua("vim.api.nvim_buf_set_lines(0, 0, 0, false, { 'unsaved line' })");
    await c.t.nvim.command(`AcpChatSave ${readme}`);
    await refused(readme, "is open with unsaved changes; not replaced");
    await c.t.nvim.command(`AcpChatSave! ${readme}`);
    await refused(readme, "is open with unsaved changes; not replaced");
    expect(readFileSync(readme, "utf8")).toBe("# my project\n");
    expect(await c.t.lua("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")).toEqual([
      "unsaved line",
      "# my project",
    ]);
    // With ! an existing file (not open) is replaced, as :w! does.
    await c.t.nvim.command(`AcpChatSave! ${other}`);
    await c.t.waitFor(
      async () => (await c.notes()).some((n) => n.msg === `acpchat: saved the transcript to ${other}`),
      "the save",
    );
    expect(readFileSync(other, "utf8")).toContain("worth keeping");
  });

  it("gt opens a terminal's output above the chat, the prompt keeps its height, q closes it", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          { request: "terminal/create", params: { command: "printf", args: ["one\\ntwo\\n"] } },
          { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
        ],
      ],
    });
    await c.ready();
    await c.send("run");
    await c.turns(1);
    const promptHeight = () =>
      c.t.lua<number>("return vim.api.nvim_win_get_height(vim.fn.win_findbuf(...)[1])", [c.promptBuf]);
    const before = await promptHeight();
    await c.t.nvim.command("AcpChatTerminal");
    await c.t.waitFor(
      async () => /terminal/.test(await c.t.lua<string>("return vim.api.nvim_buf_get_name(0)")),
      "the output window",
    );
    expect((await c.t.lines(0)).slice(0, 2)).toEqual(["one", "two"]);
    expect(await promptHeight()).toBe(before);
    const wins = await c.t.lua<number>("return #vim.api.nvim_list_wins()");
    await c.t.nvim.input("q");
    await c.t.waitFor(
      async () => (await c.t.lua<number>("return #vim.api.nvim_list_wins()")) === wins - 1,
      "q to close it",
    );
  });
});
