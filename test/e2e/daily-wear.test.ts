/**
 * Small things that wear: the prompt window grows with its text, has no line numbers
 * of its own, the transcript's wrapped lines keep their indent, and coming back from a review
 * lands in the prompt typing.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import {
  answerKinds,
  answers,
  chatHandle,
  notes,
  recordNotes,
  startChat,
  withAgents,
  shareNvim,
  ownNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version: small things that wear", (bin) => {
  it("the prompt window grows with its text up to a third of the editor and shrinks back; no line numbers; the transcript wraps with its indent", async () => {
    ownNvim(); // attaches a UI
    const t = await withAgents(bin, { fake: {} });
    await t.nvim.uiAttach(120, 60, { ext_linegrid: true });
    await t.nvim.command("set number");
    await t.nvim.command("AcpChat");
    const c = await chatHandle(t);
    const height = () => t.lua<number>("return vim.api.nvim_win_get_height(vim.fn.win_findbuf(...)[1])", [c.promptBuf]);
    expect(await height()).toBe(5);
    expect(await t.lua<boolean>("return vim.wo[vim.fn.win_findbuf(...)[1]].number", [c.promptBuf])).toBe(false);
    expect(await t.lua<boolean>("return vim.wo[vim.fn.win_findbuf(...)[1]].breakindent", [c.buf])).toBe(true);
    await c.focusPrompt();
    await t.nvim.input("<Esc>i");
    for (let i = 1; i <= 8; i++) await t.nvim.input(`line ${i}<CR>`);
    await t.waitFor(async () => (await height()) === 9, "the prompt to grow to its 9 lines");
    for (let i = 9; i <= 30; i++) await t.nvim.input(`line ${i}<CR>`);
    await t.waitFor(async () => (await height()) === 20, "the prompt to stop at a third of the editor");
    await t.nvim.input("<Esc>ggdG");
    await t.waitFor(async () => (await height()) === 5, "the prompt to shrink back");
    // The editor window keeps its numbers.
    expect(await t.lua<boolean>("return vim.wo[vim.fn.win_getid(1)].number")).toBe(true);
  });

  it("after a review the user is back in the prompt, typing", async () => {
    const t = await withAgents(bin, {
      fake: {
        turns: [[{ request: "fs/write_text_file", params: { path: "$DIR/work/r.txt", content: "new\n" }, echo: true }]],
      },
    });
    await t.nvim.command("AcpChat");
    const c = await chatHandle(t);
    await c.ready();
    await c.focusPrompt();
    await t.nvim.input("<Esc>");
    await c.send("write");
    await t.waitFor(async () => (await t.lua<number>("return vim.fn.tabpagenr()")) === 2, "the review tab");
    await t.waitFor(
      async () =>
        t.lua<boolean>(
          "local k = next(require('acpchat.ask.review').open_reviews); local r = k and require('acpchat.ask.review').open_reviews[k]; return r and r.lw and vim.api.nvim_get_current_win() == r.lw or false",
        ),
      "the review's windows",
    );
    await t.nvim.input("gA");
    await t.nvim.input("ZZ");
    await c.turns(1);
    await t.waitFor(
      async () =>
        (await t.lua<string>("return vim.api.nvim_get_mode().mode")) === "i" &&
        (await t.lua<number>("return vim.api.nvim_get_current_buf()")) === c.promptBuf,
      "insert mode in the prompt after the review",
    );
  });

  it("turn numbers go on after the agent was restarted (the transcript above stays)", async () => {
    // No session/load: the restart starts a new session below the transcript.
    const c = await startChat(bin, {
      agentCapabilities: { promptCapabilities: {} },
      byText: { boom: [{ text: "going down" }, { exit: 3 }], again: [{ text: "back again" }] },
    });
    await c.ready();
    await c.send("boom");
    await c.waitState("crashed");
    await c.t.nvim.command("AcpChat");
    await c.ready().catch(async (e) => {
      throw new Error(
        `${(e as Error).message}: ${JSON.stringify(await c.status())} ${await c.t.lua("return vim.fn.execute('messages')")}`,
      );
    });
    await c.send("again");
    await c.t.waitFor(async () => (await c.text()).includes("back again"), "the answer after the restart");
    const headers = (await c.lines()).filter((l) => l.startsWith("## You"));
    expect(headers).toEqual(["## You · turn 1", "## You · turn 2"]);
  });

  it("gf reuses the window showing the file; a title with a line break is one line in the winbar; :AcpChatCancel when idle says so", async () => {
    const loc = (line: number) => ({
      update: {
        sessionUpdate: "tool_call",
        toolCallId: `t${line}`,
        title: `Read ${line}`,
        kind: "read",
        status: "completed",
        locations: [{ path: "notes.txt", line }],
      },
    });
    const t = await withAgents(bin, {
      fake: {
        afterNew: [{ sessionUpdate: "session_info_update", title: "Fix the\nparser" }],
        turns: [[loc(2), loc(3)]],
      },
    });
    await t.lua("vim.fn.writefile({ 'one', 'two', 'three' }, 'notes.txt')");
    await t.nvim.command("AcpChat");
    const c = await chatHandle(t);
    await c.ready();
    await c.send("go");
    await c.turns(1);
    const wins = () => t.lua<number>("return #vim.api.nvim_tabpage_list_wins(0)");
    expect(await wins()).toBe(3);
    const lines = await c.lines();
    for (const line of [2, 3]) {
      const row = lines.findIndex((l) => l.endsWith(`Read ${line}`)) + 1;
      await c.focus();
      await t.nvim.input("<Esc>");
      await t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row]);
      await t.nvim.input("gf");
      await t.waitFor(
        async () =>
          (await t.lua<string>("return vim.fn.expand('%:t')")) === "notes.txt" &&
          (await t.lua<number>("return vim.api.nvim_win_get_cursor(0)[1]")) === line,
        `gf to line ${line}`,
      );
      expect(await wins()).toBe(3);
    }
    await t.waitFor(async () => (await c.winbarText()).includes("Fix the parser"), "the title in the winbar");
    expect(await c.winbarText()).not.toContain("\n");
    await recordNotes(t);
    await t.nvim.command("AcpChatCancel");
    expect((await notes(t)).map((n) => n.msg)).toEqual(["acpchat: nothing to cancel (fake is ready)"]);
  });

  it("when continuing the session fails after a crash, the next :AcpChat starts a new one: the transcript and the prompt's text stay", async () => {
    // loadSession is advertised, but the agent kept nothing: session/load fails.
    const c = await startChat(bin, {
      byText: { boom: [{ text: "going down" }, { exit: 3 }], again: [{ text: "back again" }] },
    });
    await c.ready();
    await c.send("boom");
    await c.waitState("crashed");
    await c.t.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { 'my draft' })", [c.promptBuf]);
    await c.t.nvim.command("AcpChat");
    await c.t.waitFor(
      async () => (await c.status()).state === "crashed" && /Resource not found/.test((await c.status()).reason ?? ""),
      "the load to fail",
    );
    await c.t.nvim.command("AcpChat");
    await c.ready();
    expect(await c.promptLines()).toEqual(["my draft"]);
    expect(await c.text()).toContain("going down");
    await c.send("again");
    await c.t.waitFor(async () => (await c.text()).includes("back again"), "the answer in the new session");
  });

  it("an agent that never started is not promised a session that continues", async () => {
    const c = await startChat(bin, {}, {}, { agentExtra: { command: "/nonexistent/acp-agent" } });
    await c.waitState("crashed");
    await c.t.waitFor(async () => (await c.text()).includes("Run :AcpChat to try again"), "the hint");
    expect(await c.text()).not.toContain("session continues");
  });

  it("context is added once, and :AcpChatContext removes one item or all", async () => {
    const c = await startChat(bin, {});
    const { t } = c;
    await t.lua("vim.fn.writefile({ 'a', 'b', 'c' }, 'x.txt'); vim.fn.writefile({ 'n' }, 'notes.txt')");
    await t.nvim.command("AcpChatAdd x.txt");
    await t.nvim.command("AcpChatAdd notes.txt");
    await t.nvim.command("AcpChatAdd x.txt");
    await t.nvim.command("wincmd t");
    await t.nvim.command("edit x.txt");
    await t.nvim.command("1,2AcpChatAdd");
    await t.nvim.command("1,2AcpChatAdd");
    const context = () =>
      t.lua<string[]>(
        "return vim.tbl_map(require('acpchat.chat.prompt').context_label, require('acpchat.chat.registry').get(...).context)",
        [c.id],
      );
    expect(await context()).toEqual(["x.txt", "notes.txt", "x.txt:1-2"]);
    await answers(t, ["remove notes.txt"]);
    await t.nvim.command("AcpChatContext");
    expect(await context()).toEqual(["x.txt", "x.txt:1-2"]);
    expect(await c.promptWinbar()).toBe("context: x.txt, x.txt:1-2");
    await answers(t, ["remove all"]);
    await t.nvim.command("AcpChatContext");
    expect(await context()).toEqual([]);
  });

  it("earlier prompts of this folder come back in the prompt with <M-p> / <M-n>, also in a new chat (kept on disk by folder)", async () => {
    const c = await startChat(bin, {});
    const { t } = c;
    await c.ready();
    await c.type("first prompt");
    await c.turns(1);
    await c.type("second\nprompt");
    await c.turns(2);
    await c.focusPrompt();
    await t.nvim.input("<Esc>idraft");
    await t.nvim.input("<M-p>");
    await t.waitFor(async () => (await c.promptLines()).join("|") === "second|prompt", "the last prompt");
    await t.nvim.input("<M-p>");
    await t.waitFor(async () => (await c.promptLines()).join("|") === "first prompt", "the one before");
    await t.nvim.input("<M-p>");
    await t.nvim.input("<M-n><M-n>");
    await t.waitFor(async () => (await c.promptLines()).join("|") === "draft", "the draft back");
    // Kept for the folder: a new chat in the same folder recalls them.
    await t.nvim.command("AcpChat!");
    const d = await chatHandle(t);
    await d.focusPrompt();
    await t.nvim.input("<Esc>i<M-p>");
    await t.waitFor(
      async () => (await d.promptLines()).join("|") === "second|prompt",
      "the folder's last prompt in a new chat",
    );
  });

  it("a terminal whose output went over the limit says earlier output was dropped, with no cut first line", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          { request: "terminal/create", params: { command: "seq", args: ["1", "300000"], outputByteLimit: 1000 } },
          { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
        ],
      ],
    });
    const { t } = c;
    await c.ready();
    await c.send("go");
    await c.turns(1);
    await t.nvim.command("AcpChatTerminal");
    await t.waitFor(
      async () => (await t.lua<string>("return vim.bo.filetype")) === "acpchat-terminal",
      "the terminal view",
    );
    const lines = await t.lua<string[]>("return vim.api.nvim_buf_get_lines(0, 0, -1, false)");
    expect(lines[0]).toBe("[earlier output dropped: over terminal.output_limit_bytes]");
    // Whole lines from there on: each the number after the one before, up to the last.
    const nums = lines
      .slice(1, -1)
      .filter((l) => l !== "")
      .map(Number);
    expect(nums.at(-1)).toBe(300000);
    expect(nums[0]).toBe(300000 - nums.length + 1);
  });

  it("a tool call the user rejected reads as rejected, whether the agent then fails it or never says", async () => {
    const call = (id: string) => ({
      update: { sessionUpdate: "tool_call", toolCallId: id, title: `Run ${id}`, kind: "execute", status: "pending" },
    });
    const ask = (id: string, options: unknown[]) => ({
      request: "session/request_permission",
      params: { toolCall: { toolCallId: id }, options },
    });
    const both = [
      { optionId: "ok", name: "Allow", kind: "allow_once" },
      { optionId: "no", name: "Reject", kind: "reject_once" },
    ];
    const c = await startChat(bin, {
      turns: [
        [
          call("a"),
          ask("a", both),
          { update: { sessionUpdate: "tool_call_update", toolCallId: "a", status: "failed" } },
          call("b"),
          ask("b", both),
          // No reject option offered: the editor's own "Reject" choice cancels the question.
          call("c"),
          ask("c", [{ optionId: "ok", name: "Allow", kind: "allow_once" }]),
          call("d"),
          ask("d", both),
          { update: { sessionUpdate: "tool_call_update", toolCallId: "d", status: "completed" } },
        ],
      ],
    });
    await answerKinds(c.t, ["reject_once", "reject_once", "cancel", "allow_once"]);
    await c.ready();
    await c.send("go");
    await c.turns(1);
    const lines = (await c.lines()).filter((l) => l.includes("· execute ·"));
    expect(lines).toEqual([
      "⊘ rejected · execute · Run a",
      "⊘ rejected · execute · Run b",
      "⊘ rejected · execute · Run c",
      "● done · execute · Run d",
    ]);
  });

  it("a command's block shows the command and its cwd, not the agent's bookkeeping", async () => {
    const rawInput = {
      call_id: "call_X1",
      process_id: "4242",
      turn_id: "turn-7",
      started_at_ms: 1764100000000,
      command: ["bash", "-lc", "printf 'peer-%s-%d' ran 42"],
      cwd: "/work/p",
      parsed_cmd: [{ type: "unknown", cmd: "printf" }],
    };
    const c = await startChat(bin, {
      turns: [
        [
          {
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "x",
              title: "Run printf",
              kind: "execute",
              status: "completed",
              rawInput,
            },
          },
        ],
      ],
    });
    await c.ready();
    await c.send("go");
    await c.turns(1);
    const text = await c.text();
    expect(text).toContain("· cwd: /work/p");
    expect(text).toContain("printf");
    for (const hidden of ["call_X1", "process_id", "turn_id", "started_at_ms", "parsed_cmd"])
      expect(text).not.toContain(hidden);
  });

  it("output an agent streams in tool call metadata is kept whole: gt and :AcpChatTerminal show all of it", async () => {
    const lines = Array.from({ length: 500 }, (_, i) => `row ${i + 1}`);
    const meta = (m: Record<string, unknown>) => ({
      update: { sessionUpdate: "tool_call_update", toolCallId: "sh", _meta: m },
    });
    const c = await startChat(bin, {
      turns: [
        [
          {
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "sh",
              title: "seq",
              kind: "execute",
              status: "in_progress",
              content: [{ type: "terminal", terminalId: "m1" }],
              _meta: { terminal_info: { terminal_id: "m1" } },
            },
          },
          meta({ terminal_output: { terminal_id: "m1", data: lines.slice(0, 250).join("\n") + "\n" } }),
          meta({ terminal_output: { terminal_id: "m1", data: lines.slice(250).join("\n") } }),
          meta({ terminal_exit: { terminal_id: "m1", exit_code: 0, signal: null } }),
          { update: { sessionUpdate: "tool_call_update", toolCallId: "sh", status: "completed" } },
        ],
      ],
    });
    const { t } = c;
    await c.ready();
    await c.send("go");
    await c.turns(1);
    // gt on the block.
    await c.focus();
    await t.nvim.input("<Esc>");
    const row = (await c.lines()).findIndex((l) => l.endsWith("· seq")) + 1;
    await t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row]);
    await t.nvim.input("gt");
    await t.waitFor(
      async () => (await t.lua<string>("return vim.bo.filetype")) === "acpchat-terminal",
      "the terminal view",
    );
    expect(await t.lua<string[]>("return vim.api.nvim_buf_get_lines(0, 0, -1, false)")).toEqual([...lines, "[exit 0]"]);
    await t.nvim.command("close");
    await t.nvim.command("AcpChatTerminal");
    await t.waitFor(
      async () => (await t.lua<string>("return vim.bo.filetype")) === "acpchat-terminal",
      "the terminal view again",
    );
    expect(await t.lua<number>("return vim.api.nvim_buf_line_count(0)")).toBe(501);
  });

  it("a resumed session's transcript opens at its last turn", async () => {
    const long = Array.from({ length: 80 }, (_, i) => `line ${i}`).join("\n");
    const a = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
      title: "Long",
      turns: [[{ text: long }], [{ text: "the end" }]],
    });
    const t = a.t;
    await a.ready();
    await a.send("one");
    await a.turns(1);
    await a.send("two");
    await a.turns(2);
    await t.nvim.command("AcpChatClose");
    await answers(t, [""]);
    await t.nvim.command("AcpChatSessions");
    await t.waitFor(
      async () => (await t.lua<number>("return vim.tbl_count(require('acpchat.chat.registry').chats)")) === 1,
      "a chat",
    );
    const b = await chatHandle(t);
    await b.ready();
    await t.waitFor(async () => (await b.text()).includes("the end"), "the local history");
    const win = await b.win();
    const [cursor, count] = await t.lua<number[]>(
      "local w = ...; return { vim.api.nvim_win_get_cursor(w)[1], vim.api.nvim_buf_line_count(vim.api.nvim_win_get_buf(w)) }",
      [win],
    );
    expect(cursor).toBe(count);
  });

  it("started in a project's subfolder, the chat's folder is the project root (root_markers; {} keeps the current directory)", async () => {
    const t = await withAgents(bin, { fake: {} });
    const proj = join(t.dir, "work", "proj");
    mkdirSync(join(proj, ".git"), { recursive: true });
    mkdirSync(join(proj, "src"), { recursive: true });
    await t.nvim.command(`cd ${join(proj, "src")}`);
    await t.nvim.command("AcpChat");
    const c = await chatHandle(t);
    await c.ready();
    expect((await c.status()).cwd).toBe(proj);
    await t.lua("require('acpchat.config').options.root_markers = {}");
    await t.nvim.command("AcpChat!");
    const d = await chatHandle(t);
    await d.ready();
    expect((await d.status()).cwd).toBe(join(proj, "src"));
  });
});
