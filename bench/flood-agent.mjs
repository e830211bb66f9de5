#!/usr/bin/env node
// A flood agent: answers each prompt by streaming, as fast as the pipe allows, CHUNKS
// agent_message_chunk updates of a few bytes interleaved with TOOL_UPDATES tool call updates.
// `flood N T long` sends a reply that is one long line (no newline in any chunk); `key` at the
// end (`flood N T [long] key`) adds, every 997 chunks, an API key cut into 3-byte chunks. With
// FLOOD_STAMP set, the agent writes the wall-clock time (epoch ms, sub-millisecond) of the
// flood's first byte to that file before writing it, so a reader can time from that byte.
// `--dump` writes the same stream to stdout without any protocol.
import { createInterface } from "node:readline";
import { appendFileSync, writeFileSync } from "node:fs";

const CHUNKS = Number(process.env.FLOOD_CHUNKS ?? 20000);
const TOOL_UPDATES = Number(process.env.FLOOD_TOOL_UPDATES ?? 200);

/** A key-like value (an Anthropic key's form) that `key` floods carry. */
export const FLOOD_KEY = "sk-ant-api03-Zx9_Qw8-Lm7Kp6Jn5Hb4Gv3Fc2Dx1Sz0Aa";

/** The turn's lines for session `sid`, and the text they carry (`key`: FLOOD_KEY every 997 chunks). */
export function floodLines(sid, chunks = CHUNKS, toolUpdates = TOOL_UPDATES, turn = 0, long = false, key = false) {
  const lines = [];
  let text = "";
  const every = toolUpdates > 0 ? Math.floor(chunks / toolUpdates) : Infinity;
  let tool = 0;
  const up = (update) =>
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: sid, update } });
  for (let i = 0; i < chunks; i++) {
    const t = !long && i % 50 === 49 ? "w\n" : `w${i % 10} `;
    const pieces = [t];
    if (key && i % 997 === 500) {
      pieces.push("key ");
      for (let k = 0; k < FLOOD_KEY.length; k += 3) pieces.push(FLOOD_KEY.slice(k, k + 3));
      pieces.push(" ");
    }
    for (const p of pieces) {
      text += p;
      lines.push(up({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: p } }));
    }
    if (i % every === every - 1 && tool < toolUpdates) {
      const id = `tool-${turn}-${tool % 20}`;
      lines.push(
        tool < 20
          ? up({
              sessionUpdate: "tool_call",
              toolCallId: id,
              title: `Tool ${tool}`,
              kind: "read",
              status: "in_progress",
              locations: [{ path: `/tmp/f${tool}.txt` }],
            })
          : up({
              sessionUpdate: "tool_call_update",
              toolCallId: id,
              status: tool >= toolUpdates - 20 ? "completed" : "in_progress",
              title: `Tool ${tool}`,
            }),
      );
      tool++;
    }
  }
  return { lines, text };
}

/**
 * A stored session's replay for session/load: `updates` session/update lines, a transcript of
 * about updates / 2 lines: turns of 1,000 updates (the user's words, then the agent's reply of
 * one line per two chunks), a tool call every 100 updates and its completion 10 later.
 */
export function replayLines(sid, updates) {
  const lines = [];
  const up = (update) =>
    JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: sid, update } });
  for (let i = 0; i < updates; i++) {
    if (i % 1000 === 0)
      lines.push(up({ sessionUpdate: "user_message_chunk", content: { type: "text", text: `question ${i / 1000}` } }));
    else if (i % 100 === 50)
      lines.push(
        up({
          sessionUpdate: "tool_call",
          toolCallId: `r${i}`,
          title: `Read file ${i}`,
          kind: "read",
          status: "in_progress",
        }),
      );
    else if (i % 100 === 60)
      lines.push(up({ sessionUpdate: "tool_call_update", toolCallId: `r${i - 10}`, status: "completed" }));
    else
      lines.push(
        up({
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: i % 2 ? `line ${i} of the reply\n` : `w${i} ` },
        }),
      );
  }
  return lines;
}

if (process.argv.includes("--dump")) {
  const { lines } = floodLines("dump");
  process.stdout.write(lines.join("\n") + "\n");
} else if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const out = (m) => process.stdout.write(JSON.stringify(m) + "\n");
  let n = 0;
  let turns = 0;
  const rl = createInterface({ input: process.stdin });
  // FLOOD_LOG: when this agent started and heard each request (epoch ms), for a timeline.
  const log = (what) =>
    process.env.FLOOD_LOG &&
    appendFileSync(process.env.FLOOD_LOG, `${performance.timeOrigin + performance.now()} ${process.pid} ${what}\n`);
  log(`started (process began ${performance.timeOrigin})`);
  rl.on("line", (line) => {
    const msg = JSON.parse(line);
    const { id, method, params } = msg;
    log(method ?? "answer");
    const stored = Number(process.env.FLOOD_SESSIONS ?? 0);
    if (method === "initialize")
      out({
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: 1,
          agentCapabilities: { loadSession: true, ...(stored ? { sessionCapabilities: { list: {} } } : {}) },
          agentInfo: { name: "flood", version: "1" },
        },
      });
    else if (method === "session/list") {
      // FLOOD_SESSIONS stored sessions (bench/sessions-list.mjs), 500 a page.
      const from = Number(params.cursor ?? 0);
      const sessions = [];
      for (let i = from; i < Math.min(stored, from + 500); i++)
        sessions.push({
          sessionId: `stored-${i}`,
          cwd: params.cwd ?? "/",
          title: `Session ${i}: a question about part ${i % 97} of the code`,
          updatedAt: new Date(Date.UTC(2026, 0, 1) + i * 60000).toISOString(),
        });
      out({
        jsonrpc: "2.0",
        id,
        result: { sessions, ...(from + 500 < stored ? { nextCursor: String(from + 500) } : {}) },
      });
    } else if (method === "session/load") {
      // FLOOD_REPLAY updates replayed (bench/replay.mjs), then the answer.
      const lines = replayLines(params.sessionId, Number(process.env.FLOOD_REPLAY ?? 0));
      log(`load built ${lines.length}`);
      if (lines.length > 0) process.stdout.write(lines.join("\n") + "\n");
      out({ jsonrpc: "2.0", id, result: {} });
      log("load written");
    } else if (method === "session/new") out({ jsonrpc: "2.0", id, result: { sessionId: `flood-${n++}` } });
    else if (method === "session/prompt") {
      // FLOOD_STAMP_RECV: the wall clock at which the prompt arrived (bench/stream-profile.mjs).
      if (process.env.FLOOD_STAMP_RECV)
        writeFileSync(process.env.FLOOD_STAMP_RECV, String(performance.timeOrigin + performance.now()));
      const text = params.prompt.map((b) => b.text ?? "").join("");
      const m = text.match(/^flood (\d+) (\d+)( long)?( key)?$/);
      const { lines } = floodLines(
        params.sessionId,
        m ? Number(m[1]) : CHUNKS,
        m ? Number(m[2]) : TOOL_UPDATES,
        turns++,
        Boolean(m?.[3]),
        Boolean(m?.[4]),
      );
      const data = lines.join("\n") + "\n";
      if (process.env.FLOOD_STAMP)
        writeFileSync(process.env.FLOOD_STAMP, String(performance.timeOrigin + performance.now()));
      process.stdout.write(data);
      out({ jsonrpc: "2.0", id, result: { stopReason: "end_turn" } });
    } else if (id !== undefined && method) out({ jsonrpc: "2.0", id, error: { code: -32601, message: "no" } });
  });
  rl.on("close", () => process.exit(0));
}
