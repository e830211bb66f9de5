/**
 * Tool calls shown as they are: one-line titles and raw input, folded output without agent
 * internals, rawOutput when there is no content, honest exit status, no spinner after the turn,
 * a reused id starting a new block, and the permission request merged with the announced call.
 */
import { describe, expect, it } from "vitest";
import { parseSessionUpdate, type SessionUpdate } from "../../src/protocol/schema.js";
import { SessionState } from "../../src/session/session-state.js";
import { blockView, compactInput, FOLD_LINES, rawOutputText, textView } from "../../src/view/view-model.js";
import { oneLine } from "../../src/session/one-line.js";

const u = (x: Record<string, unknown>): SessionUpdate => parseSessionUpdate(x);
const toolViews = (s: SessionState) =>
  s.blocks
    .filter((b) => b.type === "tool")
    .map((b) => blockView(b) as Extract<ReturnType<typeof blockView>, { type: "tool" }>);

describe("one line", () => {
  it("escapes newlines, control, bidi and zero-width characters, and caps the length", () => {
    expect(oneLine("Read\n1: Always allow")).toBe("Read\\n1: Always allow");
    expect(oneLine("a\r\tb\u001b[2Jc\u0000")).toBe("a\\r\\tb\\u{1b}[2Jc\\u{0}");
    expect(oneLine("ls \u202etxt.sh\u200b\u2028\u0085")).toBe("ls \\u{202e}txt.sh\\u{200b}\\u{2028}\\u{85}");
    expect(oneLine("é".repeat(10), 4)).toBe("ééé…");
    expect(oneLine("x".repeat(500)).length).toBe(200);
  });
});

describe("raw input, compactly", () => {
  it("a command as its command line, other fields as key: value, never a JSON dump", () => {
    expect(compactInput({ command: "npm test", timeout: 20000, description: "Run the tests" })).toBe(
      "$ npm test · timeout: 20000 · description: Run the tests",
    );
    expect(compactInput({ command: ["bash", "-lc", "ls -la"], cwd: "/w" })).toBe("$ bash -lc 'ls -la' · cwd: /w");
    // codex-acp's patch: the files it touches, none of its bookkeeping.
    expect(
      compactInput({
        call_id: "call_1",
        turn_id: "7",
        started_at_ms: 1764000000000,
        auto_approved: false,
        changes: { "/w/a.txt": { add: { content: "x" } }, "/w/b.txt": { update: { unified_diff: "@@" } } },
      }),
    ).toBe("files: /w/a.txt, /w/b.txt");
    const write = compactInput({ file_path: "/w/a.txt", content: "line\n".repeat(100) })!;
    expect(write).toBe(
      "file_path: /w/a.txt · content: line\\nline\\nline\\nline\\nline\\nline\\nline\\nline\\n… (101 lines, 500 chars)",
    );
    expect(compactInput({ a: { b: 1 } })).toBe('a: {"b":1}');
    expect(compactInput("two\nlines")).toBe("two\\nlines");
    expect(compactInput({})).toBeUndefined();
    expect(compactInput(null)).toBeUndefined();
  });
});

describe("tool output", () => {
  it("long output folds to its first lines; short output does not", () => {
    const long = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join("\n");
    expect(textView(long)).toEqual({ type: "text", text: long, fold: FOLD_LINES });
    expect(textView("one\ntwo")).toEqual({ type: "text", text: "one\ntwo" });
  });

  it("<system-reminder> blocks go after the output, inside the fold", () => {
    const v = textView(
      "<system-reminder>\nWhenever you read a file, consider malware.\n</system-reminder>\nfile line 1\nfile line 2",
    );
    expect(v.type === "text" && v.text.split("\n").slice(0, 2)).toEqual(["file line 1", "file line 2"]);
    expect(v).toMatchObject({ fold: 2 });
    expect(v.type === "text" && v.text).toContain("<system-reminder>");
    // Only a reminder: nothing is shown unfolded.
    expect(textView("<system-reminder>x</system-reminder>")).toMatchObject({ fold: 0 });
  });

  it("very long output is cut, saying how much", () => {
    const v = textView("x\n".repeat(5000));
    expect(v.type === "text" && v.text.split("\n").length).toBe(401);
    expect(v.type === "text" && v.text.endsWith("[4600 more lines not shown]")).toBe(true);
  });

  it("rawOutput carries the result when there is no content (codex-acp)", () => {
    expect(rawOutputText({ formatted_output: "total 0\n", stdout: "x", exit_code: 0 })).toBe("total 0\n");
    expect(rawOutputText({ stdout: "out\n", stderr: "err\n", exit_code: 2 })).toBe("out\nerr\n[exit 2]");
    expect(
      rawOutputText([
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ]),
    ).toBe("a\nb");
    expect(rawOutputText({ something: "else" })).toBe("something: else");
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(
      u({ sessionUpdate: "tool_call", toolCallId: "c", title: "ls", kind: "execute", rawInput: { command: ["ls"] } }),
    );
    s.apply(
      u({
        sessionUpdate: "tool_call_update",
        toolCallId: "c",
        status: "completed",
        rawOutput: { formatted_output: "a.txt\nb.txt", exit_code: 0 },
      }),
    );
    expect(toolViews(s)[0]!.content).toEqual([{ type: "text", text: "a.txt\nb.txt" }]);
    expect(toolViews(s)[0]!.input).toBe("$ ls");
  });
});

describe("tool call state", () => {
  it("a multi-line title reaches the view as one line", () => {
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(
      u({
        sessionUpdate: "tool_call",
        toolCallId: "m",
        title: "first\nsecond",
        kind: "other",
        locations: [{ path: "a\nb" }],
      }),
    );
    s.apply(u({ sessionUpdate: "plan", entries: [{ content: "step\none", priority: "low", status: "pending" }] }));
    expect(toolViews(s)[0]).toMatchObject({ title: "first\\nsecond", locations: [{ path: "a\\nb" }] });
    expect(blockView(s.blocks.find((b) => b.type === "plan")!)).toMatchObject({ entries: [{ content: "step\\none" }] });
  });

  it("when a turn ends, calls still pending or running are not finished (or cancelled), never spinning", () => {
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "a", title: "a", status: "completed" }));
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "b", title: "b", status: "in_progress" }));
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "c", title: "c" }));
    const ev = s.endTurn("end_turn");
    expect(ev.filter((e) => e.type === "update")).toHaveLength(2);
    expect([...s.toolCalls.values()].map((c) => c.status)).toEqual(["completed", "unfinished", "unfinished"]);
    s.beginTurn([]);
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "d", title: "d", status: "pending" }));
    s.endTurn("cancelled");
    expect(s.toolCalls.get("d")!.status).toBe("cancelled");
  });

  it("a replayed turn left unfinished is settled when the next one begins", () => {
    const s = new SessionState();
    s.apply(u({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "one" } }));
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "r", title: "r", status: "in_progress" }));
    s.apply(u({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "two" } }));
    expect(s.toolCalls.get("r")!.status).toBe("unfinished");
  });

  it("a tool call id reused in a later turn starts a new block; the earlier one is left as it was", () => {
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(u({ sessionUpdate: "tool_call", toolCallId: "t1", title: "first", status: "completed" }));
    s.endTurn("end_turn");
    s.beginTurn([]);
    const ev = s.apply(u({ sessionUpdate: "tool_call", toolCallId: "t1", title: "second", status: "in_progress" }));
    // The new turn's reply header, then the new block (the earlier one is not updated).
    expect(ev.filter((e) => e.type !== "meta").map((e) => (e.type === "add" ? `add ${e.block.type}` : e.type))).toEqual(
      ["add reply", "add tool"],
    );
    s.apply(u({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "failed" }));
    const views = toolViews(s);
    expect(views.map((v) => [v.id, v.title, v.status])).toEqual([
      ["tool:t1", "first", "completed"],
      ["tool:t1#2", "second", "failed"],
    ]);
    // Later updates in the same turn go to the new block; a third turn gets a third.
    s.endTurn("end_turn");
    s.beginTurn([]);
    s.apply(u({ sessionUpdate: "tool_call_update", toolCallId: "t1", status: "completed" }));
    expect(toolViews(s).map((v) => v.id)).toEqual(["tool:t1", "tool:t1#2", "tool:t1#3"]);
  });

  it("a terminal with a non-zero exit or a signal is failed, with its code; the call shows failed", () => {
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(
      u({
        sessionUpdate: "tool_call",
        toolCallId: "t",
        title: "make",
        kind: "execute",
        status: "in_progress",
        content: [{ type: "terminal", terminalId: "T1" }],
      }),
    );
    s.terminalOutput("T1", "boom\n", "exit 2", true);
    s.apply(u({ sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed" }));
    expect(toolViews(s)[0]).toMatchObject({
      status: "failed",
      content: [{ type: "terminal", id: "T1", tail: "boom", exit: "exit 2", failed: true }],
    });
    s.apply(
      u({
        sessionUpdate: "tool_call",
        toolCallId: "k",
        title: "sleep",
        kind: "execute",
        _meta: { terminal_info: { terminal_id: "T2" } },
      }),
    );
    s.apply(
      u({
        sessionUpdate: "tool_call_update",
        toolCallId: "k",
        status: "completed",
        _meta: { terminal_exit: { terminal_id: "T2", exit_code: null, signal: "SIGKILL" } },
      }),
    );
    expect(toolViews(s)[1]).toMatchObject({ status: "failed", content: [{ exit: "signal SIGKILL", failed: true }] });
  });
});

describe("permission tool call, merged", () => {
  it("the request's few fields over what the agent announced in this turn", () => {
    const s = new SessionState();
    s.beginTurn([]);
    s.apply(
      u({
        sessionUpdate: "tool_call",
        toolCallId: "p1",
        title: "Edit a.txt",
        kind: "edit",
        locations: [{ path: "/w/a.txt" }],
        rawInput: { file_path: "/w/a.txt", old_string: "a", new_string: "b" },
        content: [{ type: "diff", path: "/w/a.txt", oldText: "a", newText: "b" }],
        _meta: { claudeCode: { toolName: "mcp__acp__Edit" } },
      }),
    );
    const merged = s.permissionToolCall({ toolCallId: "p1" });
    expect(merged).toMatchObject({
      toolCallId: "p1",
      title: "Edit a.txt",
      kind: "edit",
      name: "mcp__acp__Edit",
      locations: [{ path: "/w/a.txt" }],
      rawInput: { file_path: "/w/a.txt" },
    });
    expect(merged.content).toHaveLength(1);
    // Fields the request carries win.
    expect(s.permissionToolCall({ toolCallId: "p1", title: "Write a.txt", rawInput: { x: 1 } })).toMatchObject({
      title: "Write a.txt",
      kind: "edit",
      rawInput: { x: 1 },
    });
    // Unknown ids and earlier turns' calls are not merged.
    expect(s.permissionToolCall({ toolCallId: "nope" })).toEqual({ toolCallId: "nope" });
    s.endTurn("end_turn");
    s.beginTurn([]);
    expect(s.permissionToolCall({ toolCallId: "p1" })).toEqual({ toolCallId: "p1" });
  });
});
