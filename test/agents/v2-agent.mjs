#!/usr/bin/env node
// An ACP v2 (draft) agent built on the official SDK's `experimental/v2` app: its protocol code is
// none of ours. It answers `session/prompt` at once (the acknowledgment) and works afterwards,
// ending with an idle state. The prompt's text is a path inside the session's cwd (a file whose
// second line the agent upper-cases); a prompt "plain <words>" only streams a reply.
// A turn: the user message echoed, two agent messages interleaved by id and one replaced, a
// thought, two plans by id (one entry cancelled), an agent-owned terminal (a stale snapshot, a replacing snapshot, base64 chunks split
// inside a UTF-8 character, an exit), an unknown `_`-prefixed update, a structured diff (modify
// with a git_patch) asked about in a permission request with its own title and description,
// written by the agent itself when allowed, and idle.
// A prompt "cancellable": a tool call the client may cancel (tool_call/cancel) and a command
// left running in the background after its tool call returned, which the client may stop
// (terminal/cancel); every state update lists the background work; the turn ends once the tool
// call was cancelled, and the command prints on after idle until it is stopped.
// V2_AGENT_LOG=<file>: every notification and request the agent sends, and the permission
// outcome, as JSON lines (the tests read it).
import * as acp from "@agentclientprotocol/sdk/experimental/v2";
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import { Readable, Writable } from "node:stream";

// V2_AGENT_STORE=<file>: the sessions (cwd, title, conversation) kept across processes, for
// session/list and session/resume (a replay from the start when asked).
const storePath = process.env.V2_AGENT_STORE;
const stored = () => (storePath && existsSync(storePath) ? JSON.parse(readFileSync(storePath, "utf8")) : {});
const keep = (id, s) => {
  if (!storePath) return;
  const all = stored();
  all[id] = { cwd: s.cwd, title: s.title, history: s.history };
  writeFileSync(storePath, JSON.stringify(all));
};
const log = (entry) => {
  if (process.env.V2_AGENT_LOG) appendFileSync(process.env.V2_AGENT_LOG, `${JSON.stringify(entry)}\n`);
};
const b64 = (x) => Buffer.from(x).toString("base64");
const sessions = new Map();
let messages = 0;

const app = acp
  .agent({ name: "v2-test-agent" })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    log({ initialize: params });
    return {
      protocolVersion: 2,
      info: { name: "v2-test-agent", version: "2.0.0" },
      capabilities: { session: { prompt: {}, mcp: { http: {} } } },
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    log({ sessionNew: params });
    const sessionId = `v2-${process.pid}-${sessions.size + 1}`;
    sessions.set(sessionId, { cwd: params.cwd, cancelled: false, history: [] });
    return {
      sessionId,
      availableCommands: [{ name: "sparkle", description: "a v2 command from session/new" }],
    };
  })
  .onRequest(acp.methods.agent.session.list, ({ params }) => {
    log({ sessionList: params });
    const sessions = Object.entries(stored())
      .filter(([, s]) => !params.cwd || s.cwd === params.cwd)
      .map(([sessionId, s]) => ({ sessionId, cwd: s.cwd, title: s.title ?? null }));
    return { sessions };
  })
  .onRequest(acp.methods.agent.session.resume, async ({ params, client }) => {
    log({ sessionResume: params });
    const s = stored()[params.sessionId];
    if (!s) throw acp.RequestError.invalidParams(undefined, `no session ${params.sessionId}`);
    const live = { cwd: s.cwd, title: s.title, history: s.history, cancelled: false };
    sessions.set(params.sessionId, live);
    if (params.replayFrom?.type === "start")
      for (const m of s.history)
        await update(client, params.sessionId, {
          sessionUpdate: m.role === "user" ? "user_message" : "agent_message",
          messageId: m.id,
          content: [{ type: "text", text: m.text }],
        });
    return { availableCommands: [{ name: "resumed", description: "a command from session/resume" }] };
  })
  .onRequest(acp.methods.agent.session.close, ({ params }) => {
    log({ sessionClose: params });
    sessions.delete(params.sessionId);
    return {};
  })
  .onRequest(acp.methods.agent.toolCall.cancel, ({ params }) => {
    log({ toolCallCancel: params });
    const done = sessions.get(params.sessionId)?.cancels?.get(params.toolCallId);
    if (!done) throw acp.RequestError.invalidParams(undefined, `tool call ${params.toolCallId} is not cancellable`);
    done();
    return {};
  })
  .onRequest(acp.methods.agent.terminal.cancel, ({ params }) => {
    log({ terminalCancel: params });
    const done = sessions.get(params.sessionId)?.cancels?.get(`terminal:${params.terminalId}`);
    if (!done) throw acp.RequestError.invalidParams(undefined, `terminal ${params.terminalId} is not cancellable`);
    done();
    return {};
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (s) s.cancelled = true;
  })
  .onRequest(acp.methods.agent.session.prompt, ({ params, client }) => {
    const { sessionId } = params;
    const s = sessions.get(sessionId);
    s.cancelled = false;
    const text = params.prompt
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("")
      .trim();
    const messageId = `user-${++messages}`;
    // The work goes on after the answer: the answer only says the prompt was inserted.
    setTimeout(() => {
      turn(client, sessionId, s, messageId, params.prompt, text).catch((e) => {
        log({ error: String(e) });
        update(client, sessionId, {
          sessionUpdate: "state_update",
          state: "idle",
          stopReason: "error",
          error: { code: -32603, message: String(e) },
        });
      });
    }, 20);
    return { messageId };
  });

function update(client, sessionId, u) {
  log({ update: u });
  return client.notify(acp.methods.client.session.update, { sessionId, update: u });
}

async function turn(client, sessionId, s, userId, prompt, text) {
  const up = (u) => update(client, sessionId, u);
  await up({ sessionUpdate: "state_update", state: "running" });
  await up({ sessionUpdate: "user_message", messageId: userId, content: prompt });
  if (text.startsWith("plain")) {
    await up({ sessionUpdate: "agent_message_chunk", messageId: "a1", content: { type: "text", text: "plain reply" } });
    s.title = text;
    s.history.push({ role: "user", id: userId, text }, { role: "agent", id: `r-${userId}`, text: "plain reply" });
    keep(sessionId, s);
    await up({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    return;
  }
  if (text.startsWith("cancellable")) return cancellable(up, s, userId);
  if (text.startsWith("background")) {
    await up({
      sessionUpdate: "agent_message_chunk",
      messageId: `a-${userId}`,
      content: { type: "text", text: "I will go on." },
    });
    await up({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    // Agent-initiated work, with no prompt: running, a tool call patched by name and _meta, a
    // terminal no tool call shows, a message; idle only after a quiet spell longer than the
    // chat's 2 s for late work.
    setTimeout(async () => {
      await up({ sessionUpdate: "state_update", state: "running" });
      await up({
        sessionUpdate: "tool_call_update",
        toolCallId: "bg1",
        name: "scan_tree",
        kind: "search",
        status: "in_progress",
        rawInput: { depth: 2 },
        _meta: { acme: { a: 1 } },
      });
      await up({ sessionUpdate: "tool_call_update", toolCallId: "bg1", name: "scan_tree_v2", _meta: { zeta: 1 } });
      await up({
        sessionUpdate: "tool_call_update",
        toolCallId: "bg1",
        rawInput: null,
        _meta: { acme: null },
        status: "completed",
      });
      await up({
        sessionUpdate: "terminal_update",
        terminalId: "bgterm",
        command: "make watch",
        output: { data: b64("watching 3 files\n") },
      });
      await up({ sessionUpdate: "terminal_update", terminalId: "bgterm", exitStatus: { exitCode: 0 } });
      await up({
        sessionUpdate: "agent_message_chunk",
        messageId: `bg-${userId}`,
        content: { type: "text", text: "Background work done." },
      });
      await new Promise((r) => setTimeout(r, Number(process.env.V2_AGENT_QUIET_MS ?? 3000)));
      await up({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    }, 300);
    return;
  }
  const a = `a-${userId}`;
  const b = `b-${userId}`;
  await up({ sessionUpdate: "agent_message_chunk", messageId: a, content: { type: "text", text: "First " } });
  await up({ sessionUpdate: "agent_message_chunk", messageId: b, content: { type: "text", text: "Second draft" } });
  await up({ sessionUpdate: "agent_message_chunk", messageId: a, content: { type: "text", text: "message." } });
  await up({
    sessionUpdate: "agent_message",
    messageId: b,
    content: [{ type: "text", text: "Second message, replaced." }],
  });
  await up({
    sessionUpdate: "agent_thought_chunk",
    messageId: `t-${userId}`,
    content: { type: "text", text: "thinking by id" },
  });
  // Two plans by id, each a whole list; one entry cancelled (v2's own word), one priority an extension.
  const plan = (planId, entries) => up({ sessionUpdate: "plan_update", plan: { type: "items", planId, entries } });
  await plan("edit", [
    { content: "read the file", priority: "high", status: "in_progress" },
    { content: "rewrite it all", priority: "_acme_urgent", status: "pending" },
  ]);
  await plan("check", [{ content: "run the checks", priority: "low", status: "pending" }]);
  await plan("edit", [
    { content: "read the file", priority: "high", status: "completed" },
    { content: "rewrite it all", priority: "_acme_urgent", status: "cancelled" },
    { content: "upper-case line two", priority: "medium", status: "in_progress" },
  ]);
  // An agent-owned terminal, shown in a tool call.
  await terminalCall(
    up,
    { toolCallId: "run1", title: "Run printf", terminalId: "term1", command: "printf" },
    "stale output\n",
  );
  await up({ sessionUpdate: "terminal_update", terminalId: "term1", output: { data: b64("line one\n") } });
  const bytes = Buffer.from("line two é\n");
  const cut = bytes.indexOf(0xc3) + 1; // inside the two bytes of "é"
  await up({
    sessionUpdate: "terminal_output_chunk",
    terminalId: "term1",
    data: bytes.subarray(0, cut).toString("base64"),
  });
  await up({
    sessionUpdate: "terminal_output_chunk",
    terminalId: "term1",
    data: bytes.subarray(cut).toString("base64"),
  });
  await up({ sessionUpdate: "terminal_update", terminalId: "term1", exitStatus: { exitCode: 0 } });
  await up({ sessionUpdate: "tool_call_update", toolCallId: "run1", status: "completed" });
  // Extensions a client must tolerate.
  await up({ sessionUpdate: "_acme/sparkle", sparkle: true });
  await up({ sessionUpdate: "tool_call_update", toolCallId: "run1", status: "_acme_status" });
  // A structured diff, asked about.
  const path = isAbsolute(text) ? text : join(s.cwd, text);
  const old = readFileSync(path, "utf8");
  const lines = old.split("\n");
  const rel = relative(s.cwd, path);
  const patch = [
    `diff --git a/${rel} b/${rel}`,
    `--- a/${rel}`,
    `+++ b/${rel}`,
    "@@ -1,3 +1,3 @@",
    ` ${lines[0]}`,
    `-${lines[1]}`,
    `+${lines[1].toUpperCase()}`,
    ` ${lines[2]}`,
    "",
  ].join("\n");
  const diff = {
    type: "diff",
    changes: [{ operation: "modify", path, fileType: "text" }],
    patch: { format: "git_patch", text: patch },
  };
  await up({
    sessionUpdate: "tool_call_update",
    toolCallId: "edit1",
    title: `Edit ${rel}`,
    kind: "edit",
    status: "pending",
    locations: [{ path }],
    content: [diff],
  });
  log({ request: "session/request_permission" });
  const perm = await client.request(acp.methods.client.session.requestPermission, {
    sessionId,
    title: `Allow the change to ${rel}?`,
    description: "It upper-cases the second line.",
    subject: { type: "tool_call", toolCall: { toolCallId: "edit1" } },
    options: [
      { optionId: "yes", name: "Allow", kind: "allow_once" },
      { optionId: "no", name: "Reject", kind: "reject_once" },
      { optionId: "sparkle", name: "Sparkle", kind: "_acme_sparkle" },
    ],
  });
  log({ permission: perm });
  const allowed = perm.outcome.outcome === "selected" && perm.outcome.optionId === "yes";
  if (allowed) {
    lines[1] = lines[1].toUpperCase();
    writeFileSync(path, lines.join("\n"));
  }
  await up({ sessionUpdate: "tool_call_update", toolCallId: "edit1", status: allowed ? "completed" : "failed" });
  await up({
    sessionUpdate: "agent_message_chunk",
    messageId: `c-${userId}`,
    content: { type: "text", text: allowed ? "Edited." : "Not edited." },
  });
  await up({ sessionUpdate: "state_update", state: "idle", stopReason: s.cancelled ? "cancelled" : "end_turn" });
}

/** A running execute tool call that shows an agent-owned terminal, then the terminal's command and output. */
async function terminalCall(up, { toolCallId, title, terminalId, command }, output, terminal = {}) {
  await up({
    sessionUpdate: "tool_call_update",
    toolCallId,
    title,
    kind: "execute",
    status: "in_progress",
    content: [{ type: "terminal", terminalId }],
  });
  await up({ sessionUpdate: "terminal_update", terminalId, command, output: { data: b64(output) }, ...terminal });
}

/** Resolves when the client cancels `key` (a tool call id, or `terminal:<id>`); it stops being cancellable. */
function cancelled(s, key) {
  s.cancels ??= new Map();
  return new Promise((resolve) =>
    s.cancels.set(key, () => {
      s.cancels.delete(key);
      resolve();
    }),
  );
}

async function cancellable(up, s, userId) {
  const background = [
    { type: "terminal", terminalId: "srv" },
    { type: "tool_call", toolCallId: "watch1" },
  ];
  await up({
    sessionUpdate: "agent_message_chunk",
    messageId: `a-${userId}`,
    content: { type: "text", text: "Working." },
  });
  const search = cancelled(s, "slow1");
  await up({
    sessionUpdate: "tool_call_update",
    toolCallId: "slow1",
    title: "Slow search",
    kind: "search",
    status: "in_progress",
    capabilities: { cancel: {} },
  });
  // The dev server: its tool call returns, its command goes on in the background.
  const server = cancelled(s, "terminal:srv");
  const dev = { toolCallId: "serve1", title: "Start the dev server", terminalId: "srv", command: "npm run dev" };
  await terminalCall(up, dev, "listening on 3000\n", { capabilities: { cancel: {} } });
  await up({ sessionUpdate: "tool_call_update", toolCallId: "serve1", status: "completed" });
  // A watcher with no process of its own: its tool call stays in progress, in the background.
  await up({
    sessionUpdate: "tool_call_update",
    toolCallId: "watch1",
    title: "Watch the tests",
    kind: "other",
    status: "in_progress",
  });
  await up({ sessionUpdate: "state_update", state: "running", background });
  await search;
  await up({ sessionUpdate: "tool_call_update", toolCallId: "slow1", status: "cancelled", capabilities: null });
  await up({
    sessionUpdate: "agent_message_chunk",
    messageId: `b-${userId}`,
    content: { type: "text", text: "Search cancelled; the server runs on." },
  });
  await up({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", background });
  // After idle the command goes on printing (no foreground work) until it is stopped.
  let stopped = false;
  server.then(() => {
    stopped = true;
  });
  for (let i = 1; !stopped; i++) {
    await new Promise((r) => setTimeout(r, 250));
    if (!stopped) await up({ sessionUpdate: "terminal_output_chunk", terminalId: "srv", data: b64(`request ${i}\n`) });
  }
  await up({
    sessionUpdate: "terminal_update",
    terminalId: "srv",
    exitStatus: { exitCode: null, signal: "SIGTERM" },
    capabilities: null,
  });
  await up({ sessionUpdate: "tool_call_update", toolCallId: "watch1", status: "completed" });
  await up({ sessionUpdate: "state_update", state: "idle", background: [] });
}

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
