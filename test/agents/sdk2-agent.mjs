#!/usr/bin/env node
// An ACP agent built on the official SDK 2.x `agent()` app: its protocol code is none of ours.
// Prompt text is a path inside the session's cwd; the agent reads it, asks permission, writes
// `<path>.out`, runs `echo` in a terminal, and reports each result as a message chunk.
import * as acp from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";

const sessions = new Map();
const say = (client, sessionId, text) =>
  client.notify(acp.methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });

const app = acp
  .agent({ name: "sdk2-test-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: acp.PROTOCOL_VERSION,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "sdk2-test-agent", version: "2.0.0" },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `sdk2-${sessions.size + 1}`;
    sessions.set(sessionId, { cwd: params.cwd, cancelled: false });
    return { sessionId };
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    const s = sessions.get(params.sessionId);
    if (s) s.cancelled = true;
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const { sessionId } = params;
    const s = sessions.get(sessionId);
    s.cancelled = false;
    const path = params.prompt
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join("")
      .trim();
    await say(client, sessionId, "reading ");
    const read = await client.request(acp.methods.client.fs.readTextFile, { sessionId, path, line: 2, limit: 1 });
    await say(client, sessionId, `got [${read.content}]`);
    await client.notify(acp.methods.client.session.update, {
      sessionId,
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "w1",
        title: `Write ${path}.out`,
        kind: "edit",
        status: "pending",
        locations: [{ path: `${path}.out` }],
      },
    });
    await client.notify(acp.methods.client.session.update, {
      sessionId,
      update: { sessionUpdate: "plan", entries: [{ content: "write", priority: "high", status: "in_progress" }] },
    });
    const perm = await client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId: "w1", title: `Write ${path}.out` },
      options: [
        { optionId: "allow", name: "Allow", kind: "allow_once" },
        { optionId: "deny", name: "Deny", kind: "reject_once" },
      ],
    });
    if (s.cancelled || perm.outcome.outcome === "cancelled") return { stopReason: "cancelled" };
    if (perm.outcome.optionId === "allow") {
      await client.request(acp.methods.client.fs.writeTextFile, {
        sessionId,
        path: `${path}.out`,
        content: read.content.toUpperCase(),
      });
      await client.notify(acp.methods.client.session.update, {
        sessionId,
        update: { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "completed" },
      });
    }
    const term = await client.request(acp.methods.client.terminal.create, {
      sessionId,
      command: "echo",
      args: ["from", "terminal"],
    });
    const exit = await client.request(acp.methods.client.terminal.waitForExit, {
      sessionId,
      terminalId: term.terminalId,
    });
    const out = await client.request(acp.methods.client.terminal.output, { sessionId, terminalId: term.terminalId });
    await client.request(acp.methods.client.terminal.release, { sessionId, terminalId: term.terminalId });
    await say(client, sessionId, ` terminal said [${out.output.trim()}] exit ${exit.exitCode}`);
    return { stopReason: "end_turn" };
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
