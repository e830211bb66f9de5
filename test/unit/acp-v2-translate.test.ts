/**
 * The ACP v2 translation's pure parts: git patches split and applied, structured changes as
 * whole-file diffs, upserts by id (omitted = unchanged, null = clears, chunks append), terminals
 * (base64, snapshots replace), `_`-prefixed values tolerated, permissions with their own words.
 */
import { describe, expect, it } from "vitest";
import { applyPatch, parsePatch } from "../../src/protocol/v2/git-patch.js";
import { diffContents } from "../../src/protocol/v2/diffs.js";
import { V2Session } from "../../src/protocol/v2/updates.js";
import {
  initializeParams,
  initializeResult,
  permissionRequest,
  sessionParams,
} from "../../src/protocol/v2/requests.js";
import { SessionState } from "../../src/session/session-state.js";
import { KnownSessionUpdate, type SessionUpdate } from "../../src/protocol/schema.js";
import { blockView } from "../../src/view/view-model.js";

const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");
const files: Record<string, string> = { "/p/a.txt": "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n" };
const read = async (p: string) => files[p];

const patch = [
  "diff --git a/a.txt b/a.txt",
  "--- a/a.txt",
  "+++ b/a.txt",
  "@@ -1,3 +1,3 @@",
  " 1",
  "-2",
  "+two",
  " 3",
  "@@ -8,3 +8,4 @@",
  " 8",
  "-9",
  "--- a removed line that looks like a header",
  "+nine",
  " 10",
  "",
].join("\n");

describe("git patches", () => {
  it("splits by file, counts hunk lines by the header, applies at the line or where the lines are", () => {
    const [f] = parsePatch(
      patch.replace("@@ -8,3 +8,4 @@", "@@ -8,3 +8,2 @@").replace("--- a removed line that looks like a header\n", ""),
    );
    expect(f!.newPath).toBe("a.txt");
    expect(f!.hunks.length).toBe(2);
    expect(applyPatch(files["/p/a.txt"]!, f!)).toBe("1\ntwo\n3\n4\n5\n6\n7\n8\nnine\n10\n");
    // The file moved down a line: the hunk is found by its lines.
    expect(applyPatch(`0\n${files["/p/a.txt"]}`, f!)).toBe("0\n1\ntwo\n3\n4\n5\n6\n7\n8\nnine\n10\n");
    // Not there at all: no guess.
    expect(applyPatch("x\ny\n", f!)).toBeUndefined();
  });

  it("a removed line that starts with -- is not a file header", () => {
    const [f, g] = parsePatch(patch.replace("@@ -8,3 +8,4 @@", "@@ -8,4 +8,3 @@"));
    expect(g).toBeUndefined();
    expect(f!.hunks[1]!.lines).toContain("--- a removed line that looks like a header");
  });
});

describe("structured changes", () => {
  it("modify with a git_patch: the whole file before and after; already applied: taken back", async () => {
    const text = patch
      .replace("@@ -8,3 +8,4 @@", "@@ -8,3 +8,2 @@")
      .replace("--- a removed line that looks like a header\n", "");
    const d = { changes: [{ operation: "modify", path: "/p/a.txt" }], patch: { format: "git_patch", text } };
    const [c] = await diffContents(d, read);
    expect(c).toEqual({
      type: "diff",
      path: "/p/a.txt",
      oldText: files["/p/a.txt"],
      newText: "1\ntwo\n3\n4\n5\n6\n7\n8\nnine\n10\n",
    });
    const after = async () => "1\ntwo\n3\n4\n5\n6\n7\n8\nnine\n10\n";
    const [back] = await diffContents(d, after);
    expect(back).toEqual({
      type: "diff",
      path: "/p/a.txt",
      oldText: files["/p/a.txt"],
      newText: "1\ntwo\n3\n4\n5\n6\n7\n8\nnine\n10\n",
    });
  });

  it("add, delete, move, copy, binary, no patch and an unknown operation", async () => {
    const add = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n";
    const out = await diffContents(
      {
        changes: [
          { operation: "add", path: "/p/new.txt" },
          { operation: "delete", path: "/p/a.txt" },
          { operation: "move", oldPath: "/p/a.txt", path: "/p/b.txt" },
          { operation: "copy", oldPath: "/p/a.txt", path: "/p/c.txt" },
          { operation: "modify", path: "/p/img.png", fileType: "binary" },
          { operation: "modify", path: "/p/other.txt" },
          { operation: "_acme_touch", path: "/p/a.txt" },
        ],
        patch: { format: "git_patch", text: add },
      },
      read,
    );
    expect(out[0]).toEqual({ type: "diff", path: "/p/new.txt", oldText: null, newText: "hello\nworld\n" });
    expect(out[1]).toEqual({ type: "diff", path: "/p/a.txt", oldText: files["/p/a.txt"], newText: "" });
    const texts = out.filter((c) => c.type === "content").map((c) => (c as { content: { text: string } }).content.text);
    expect(texts).toEqual([
      "delete /p/a.txt",
      "move /p/a.txt -> /p/b.txt",
      "copy /p/a.txt -> /p/c.txt",
      "modify binary /p/img.png",
      "modify /p/other.txt (the agent sent no patch text)",
      "_acme_touch /p/a.txt",
    ]);
    expect(out).toContainEqual({
      type: "diff",
      path: "/p/b.txt",
      oldText: files["/p/a.txt"],
      newText: files["/p/a.txt"],
    });
    expect(out).toContainEqual({ type: "diff", path: "/p/c.txt", oldText: null, newText: files["/p/a.txt"] });
  });
});

/** v2 updates through the translation into a real SessionState. */
async function run(updates: Record<string, unknown>[]) {
  const s = new V2Session(read);
  const state = new SessionState();
  state.beginTurn([{ type: "text", text: "hi" }]);
  for (const u of updates) for (const v1 of (await s.translate(u)).updates) state.apply(v1 as unknown as SessionUpdate);
  return { s, state };
}

describe("upserts by id", () => {
  it("messages: interleaved by id, a whole message replaces, the prompt's echo is not drawn again", async () => {
    const s = new V2Session(read);
    s.awaitingEcho = true;
    const state = new SessionState();
    state.beginTurn([{ type: "text", text: "hi" }]);
    for (const u of [
      { sessionUpdate: "user_message", messageId: "u1", content: [{ type: "text", text: "hi" }] },
      { sessionUpdate: "agent_message_chunk", messageId: "a", content: { type: "text", text: "A1 " } },
      { sessionUpdate: "agent_message_chunk", messageId: "b", content: { type: "text", text: "B1" } },
      { sessionUpdate: "agent_message_chunk", messageId: "a", content: { type: "text", text: "A2" } },
      { sessionUpdate: "agent_message", messageId: "b", content: [{ type: "text", text: "B whole" }] },
      { sessionUpdate: "agent_message", messageId: "a" },
      { sessionUpdate: "user_message_chunk", messageId: "u1", content: { type: "text", text: "again" } },
    ])
      for (const v1 of (await s.translate(u)).updates) state.apply(v1 as unknown as SessionUpdate);
    const texts = state.blocks
      .filter((b) => b.type === "agent" || b.type === "user")
      .map((b) => (b as { text: string }).text);
    expect(texts).toEqual(["hi", "A1 A2", "B whole"]);
  });

  it("plans: each plan id keeps its own block, replaced whole; cancelled and `_` values pass v1's checks and show as sent", async () => {
    const s = new V2Session(read);
    const state = new SessionState();
    state.beginTurn([{ type: "text", text: "hi" }]);
    const plan = (planId: string, entries: Record<string, unknown>[]) => ({
      sessionUpdate: "plan_update",
      plan: { type: "items", planId, entries },
    });
    for (const u of [
      plan("main", [
        { content: "read", priority: "high", status: "completed" },
        { content: "write", priority: "_urgent", status: "in_progress" },
      ]),
      plan("tests", [{ content: "run the tests", priority: "low", status: "pending" }]),
      plan("main", [
        { content: "read", priority: "high", status: "completed" },
        { content: "write", priority: "_urgent", status: "cancelled" },
        { content: "ask", priority: "medium", status: "_waiting" },
      ]),
      { sessionUpdate: "plan_update", plan: { type: "_mindmap", planId: "m", nodes: [] } },
    ])
      for (const v1 of (await s.translate(u)).updates) {
        // What reaches the session passes v1's schema (the peer validates every update).
        const parsed = KnownSessionUpdate.safeParse(v1);
        expect(parsed.error?.issues).toBeUndefined();
        state.apply(parsed.data as SessionUpdate);
      }
    const plans = state.blocks.filter((b) => b.type === "plan").map((b) => blockView(b));
    expect(plans.map((p) => (p as { entries: unknown }).entries)).toEqual([
      [
        { content: "read", status: "completed", priority: "high" },
        { content: "write", status: "cancelled", priority: "_urgent" },
        { content: "ask", status: "_waiting", priority: "medium" },
      ],
      [{ content: "run the tests", status: "pending", priority: "low" }],
    ]);
  });

  it("tool calls: omitted = unchanged, null = clears, content chunks append, unknown status and kind tolerated", async () => {
    const { state } = await run([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t",
        title: "Read",
        kind: "_acme",
        status: "in_progress",
        locations: [{ path: "/p/a.txt" }],
      },
      {
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t",
        content: { type: "content", content: { type: "text", text: "one" } },
      },
      {
        sessionUpdate: "tool_call_content_chunk",
        toolCallId: "t",
        content: { type: "content", content: { type: "text", text: "two" } },
      },
      { sessionUpdate: "tool_call_update", toolCallId: "t", status: "_acme_state" },
    ]);
    const t = state.toolCalls.get("t")!;
    expect([t.title, t.kind, t.status]).toEqual(["Read", "other", "in_progress"]);
    expect(t.content.map((c) => (c as { content: { text: string } }).content.text)).toEqual(["one", "two"]);
    const { state: cleared } = await run([
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t",
        title: "Read",
        status: "in_progress",
        locations: [{ path: "/p/a.txt" }],
        content: [{ type: "content", content: { type: "text", text: "x" } }],
      },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t",
        title: null,
        locations: null,
        content: null,
        status: "completed",
      },
    ]);
    const c = cleared.toolCalls.get("t")!;
    // A cleared title reads as the tool call's id (nothing else names it).
    expect([c.title, c.locations, c.content, c.status]).toEqual(["t", [], [], "completed"]);
  });

  it("tool calls: name stands in for a missing title and null clears it; rawInput null clears; _meta patches by key", async () => {
    const s = new V2Session(read);
    const state = new SessionState();
    state.beginTurn([{ type: "text", text: "hi" }]);
    const metas: unknown[] = [];
    const apply = async (u: Record<string, unknown>) => {
      for (const v1 of (await s.translate({ sessionUpdate: "tool_call_update", toolCallId: "n", ...u })).updates) {
        if ("_meta" in v1) metas.push(v1._meta);
        state.apply(v1 as unknown as SessionUpdate);
      }
      return state.toolCalls.get("n")!;
    };
    let t = await apply({ name: "grep", rawInput: { pattern: "x" }, _meta: { a: 1, b: { deep: 1 } } });
    expect([t.title, t.toolName, t.rawInput]).toEqual(["grep", "grep", { pattern: "x" }]);
    t = await apply({ name: "ripgrep", _meta: { b: { other: 2 }, c: 3 } });
    expect(t.title).toBe("ripgrep");
    t = await apply({ title: "Search the tree" });
    expect(t.title).toBe("Search the tree");
    t = await apply({ name: null, rawInput: null, _meta: { a: null } });
    expect([t.title, t.rawInput]).toEqual(["Search the tree", null]);
    t = await apply({ title: null });
    expect(t.title).toBe("n");
    await apply({ _meta: null });
    await apply({ status: "completed" });
    // Patches by top-level key (nested objects replaced, not merged); null removes a key or all.
    expect(metas).toEqual([{ a: 1, b: { deep: 1 } }, { a: 1, b: { other: 2 }, c: 3 }, { b: { other: 2 }, c: 3 }, {}]);
  });

  it("terminals: base64 decoded across chunks, a snapshot replaces, output before the tool call shows it is kept", async () => {
    const bytes = Buffer.from("é!\n");
    const { state } = await run([
      { sessionUpdate: "terminal_update", terminalId: "x", command: "ls", output: { data: b64("old\n") } },
      {
        sessionUpdate: "tool_call_update",
        toolCallId: "t",
        title: "Run",
        content: [{ type: "terminal", terminalId: "x" }],
      },
      { sessionUpdate: "terminal_update", terminalId: "x", output: { data: b64("new\n") } },
      { sessionUpdate: "terminal_output_chunk", terminalId: "x", data: b64(bytes.subarray(0, 1)) },
      { sessionUpdate: "terminal_output_chunk", terminalId: "x", data: b64(bytes.subarray(1)) },
      { sessionUpdate: "terminal_update", terminalId: "x", exitStatus: { exitCode: 3 } },
    ]);
    const term = state.toolCalls.get("t")!.terminals.x!;
    expect(term.full).toBe("new\né!\n");
    expect(term.failed).toBe(true);
    const { state: early } = await run([
      { sessionUpdate: "terminal_output_chunk", terminalId: "y", data: b64("before\n") },
      { sessionUpdate: "tool_call_content_chunk", toolCallId: "u", content: { type: "terminal", terminalId: "y" } },
    ]);
    expect(early.toolCalls.get("u")!.terminals.y!.full).toBe("before\n");
  });

  it("state updates and `_`-prefixed kinds", async () => {
    const s = new V2Session(read);
    expect((await s.translate({ sessionUpdate: "state_update", state: "running" })).state).toEqual({
      state: "running",
    });
    expect(
      (await s.translate({ sessionUpdate: "state_update", state: "idle", stopReason: "max_tokens" })).state,
    ).toEqual({ state: "idle", stopReason: "max_tokens", error: undefined });
    expect((await s.translate({ sessionUpdate: "state_update", state: "_acme" })).state).toBeUndefined();
    expect((await s.translate({ sessionUpdate: "_acme/sparkle" })).updates).toEqual([]);
    expect((await s.translate({ sessionUpdate: "future_thing" })).updates).toHaveLength(1);
  });

  it("a terminal no tool call showed gets a block of its own when the agent goes idle, once", async () => {
    const s = new V2Session(read);
    const state = new SessionState();
    state.beginTurn([{ type: "text", text: "hi" }]);
    const apply = async (u: Record<string, unknown>) => {
      for (const v1 of (await s.translate(u)).updates) state.apply(v1 as unknown as SessionUpdate);
    };
    await apply({
      sessionUpdate: "terminal_update",
      terminalId: "x",
      command: "make",
      output: { data: b64("built\n") },
    });
    await apply({ sessionUpdate: "terminal_update", terminalId: "x", exitStatus: { exitCode: 2 } });
    await apply({ sessionUpdate: "terminal_update", terminalId: "shown", command: "ls" });
    await apply({
      sessionUpdate: "tool_call_update",
      toolCallId: "t",
      content: [{ type: "terminal", terminalId: "shown" }],
    });
    expect(state.toolCalls.has("terminal:x")).toBe(false);
    await apply({ sessionUpdate: "state_update", state: "idle" });
    const t = state.toolCalls.get("terminal:x")!;
    expect([t.title, t.kind, t.status]).toEqual(["make", "execute", "failed"]);
    expect(JSON.stringify(t.terminals)).toContain("built");
    expect(state.toolCalls.has("terminal:shown")).toBe(false);
    await apply({ sessionUpdate: "state_update", state: "idle" });
    expect([...state.toolCalls.keys()].filter((k) => k.startsWith("terminal:"))).toEqual(["terminal:x"]);
  });
});

describe("requests", () => {
  it("initialize: one request for both versions, no fs or terminal in v2; the answer read as v1's", () => {
    const p = initializeParams({
      protocolVersion: 1,
      clientInfo: { name: "c", version: "1" },
      clientCapabilities: { fs: { readTextFile: true }, terminal: true, auth: { terminal: true } },
    });
    expect(p).toMatchObject({
      protocolVersion: 2,
      info: { name: "c" },
      capabilities: { auth: { terminal: {} } },
      clientCapabilities: { terminal: true },
    });
    expect(p.capabilities).not.toHaveProperty("fs");
    const r = initializeResult({
      protocolVersion: 2,
      info: { name: "a", version: "1" },
      capabilities: { session: { prompt: { image: {} }, mcp: { http: {} }, delete: {} } },
      authMethods: [{ id: "x", name: "X" }],
    });
    expect(r).toMatchObject({
      protocolVersion: 1,
      agentInfo: { name: "a" },
      agentCapabilities: {
        // v2's resume (replayed) as v1's load; list and close are v2's for every agent.
        loadSession: true,
        promptCapabilities: { image: true, audio: false },
        mcpCapabilities: { http: true },
        sessionCapabilities: { delete: {}, list: {}, close: {} },
        auth: { logout: {} },
      },
    });
    expect(
      sessionParams({ cwd: "/p", mcpServers: [{ name: "nvim", command: "/bin/x", args: [], env: [] }] }).mcpServers,
    ).toEqual([{ type: "stdio", name: "nvim", command: "/bin/x", args: [], env: [] }]);
  });

  it("permission: its own title and description, a command subject as an execute tool call, unknown option kinds left out", async () => {
    const s = new V2Session(read);
    const r = await permissionRequest(
      {
        sessionId: "s",
        title: "Run it?",
        description: "why",
        subject: { type: "command", command: "make", cwd: "/p" },
        options: [
          { optionId: "y", name: "Yes", kind: "allow_once" },
          { optionId: "z", name: "Z", kind: "_acme" },
        ],
      },
      s,
      1,
    );
    expect(r).toEqual({
      sessionId: "s",
      toolCall: {
        toolCallId: "permission-1",
        title: "make",
        kind: "execute",
        rawInput: { command: "make", cwd: "/p" },
      },
      options: [{ optionId: "y", name: "Yes", kind: "allow_once" }],
      _meta: { "acp-chat.nvim/permission": { title: "Run it?", description: "why" } },
    });
  });
});
