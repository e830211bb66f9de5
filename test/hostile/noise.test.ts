/** Noise: whatever garbage the agent writes, the chat stays usable and each problem is logged once. */
import { describe, expect, it } from "vitest";
import { start, stillUsable } from "./harness.js";

const u = (update: Record<string, unknown>) => ({ update });
const raw = (obj: unknown) => ({ raw: typeof obj === "string" ? obj : JSON.stringify(obj) });

describe("noise from the agent", () => {
  it("banner, garbage, invalid JSON, non-messages, stray and duplicate ids, split lines", async () => {
    const h = await start({
      banner: "FakeAgent v1.0 starting up... (not JSON)",
      turns: [
        [
          raw("garbage !!! {{{"),
          raw('{"jsonrpc":"2.0","method":"session/update","params":'),
          raw("[1, 2, 3]"),
          raw("null"),
          raw({ jsonrpc: "2.0", id: 999999, result: { ghost: true } }),
          raw({
            jsonrpc: "2.0",
            id: "dup",
            method: "fs/read_text_file",
            params: { sessionId: "x", path: "/nonexistent-dir/none" },
          }),
          raw({
            jsonrpc: "2.0",
            id: "dup",
            method: "fs/read_text_file",
            params: { sessionId: "x", path: "/nonexistent-dir/none" },
          }),
          {
            split: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "split-in-pieces" } },
            pieces: 5,
            pause: 20,
          },
          { text: " done" },
        ],
      ],
    });
    await h.ready();
    await h.send("go");
    await h.turns(1);
    expect(await h.text()).toContain("split-in-pieces done");
    const problems = await h.problems();
    const count = (re: RegExp) => problems.filter((p) => re.test(p)).length;
    expect(count(/not JSON: FakeAgent v1.0/)).toBe(1);
    expect(count(/not JSON: garbage/)).toBe(1);
    expect(count(/not JSON: \{"jsonrpc":"2.0","method":"session\/update","params":$/)).toBe(1);
    expect(count(/not a JSON-RPC 2.0 message: \[1, 2, 3\]/)).toBe(1);
    expect(count(/not a JSON-RPC 2.0 message: null/)).toBe(1);
    expect(count(/unknown request id 999999/)).toBe(1);
    expect(await stillUsable(h, 2)).toBe(true);
  });

  it("a 50 MB line is dropped with one note; the editor and the chat carry on", async () => {
    const h = await start({ turns: [[{ text: "before " }, { bigLine: 50 * 1024 * 1024 }, { text: "after" }]] });
    await h.ready();
    await h.send("go");
    await h.turns(1, 60_000);
    const text = await h.text();
    // The dropped line is said in the transcript (it may have been an image or audio clip), between the texts.
    expect(text).toMatch(
      /before \n+! The agent sent a message over the limit of 16\.0 MB for one message: it was dropped \(an image or audio clip this large cannot be shown\)\.\n+after/,
    );
    expect(text.length).toBeLessThan(10_000);
    expect((await h.problems()).filter((p) => /dropped a line longer than 16777216 bytes/.test(p))).toHaveLength(1);
    expect(await stillUsable(h, 2)).toBe(true);
  }, 90_000);

  it("wrong params on every request and notification get -32602 (or are logged), never a dead session", async () => {
    const bad = { sessionId: 42, path: ["x"], content: 7, command: null, terminalId: {}, options: "no", toolCall: 3 };
    const methods = [
      "fs/read_text_file",
      "fs/write_text_file",
      "terminal/create",
      "terminal/output",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/release",
      "session/request_permission",
      "elicitation/create",
    ];
    const h = await start({
      record: "$DIR/record.jsonl",
      turns: [
        [
          ...methods.map((m, i) => raw({ jsonrpc: "2.0", id: `bad${i}`, method: m, params: bad })),
          raw({ jsonrpc: "2.0", method: "session/update", params: bad }),
          raw({
            jsonrpc: "2.0",
            method: "session/update",
            params: { sessionId: "s", update: { sessionUpdate: "tool_call" } },
          }),
          raw({
            jsonrpc: "2.0",
            method: "session/update",
            params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: 5 } },
          }),
          raw({ jsonrpc: "2.0", method: "elicitation/complete", params: 3 }),
          raw({ jsonrpc: "2.0", method: "$/cancel_request", params: { requestId: { no: 1 } } }),
          { sleep: 300 },
          { text: "survived" },
        ],
      ],
    });
    await h.ready();
    await h.send("go");
    await h.turns(1);
    expect(await h.text()).toContain("survived");
    const { readRecord } = await import("../support/conformance.js");
    const replies = readRecord(`${h.t.dir}/record.jsonl`).received.filter((m) => String(m.id).startsWith("bad"));
    expect(replies).toHaveLength(methods.length);
    for (const r of replies) expect((r.error as { code: number }).code, JSON.stringify(r)).toBe(-32602);
    const problems = await h.problems();
    expect(problems.filter((p) => p.startsWith("session/update: Invalid params"))).toHaveLength(1);
    expect(problems.filter((p) => p.includes("$/cancel_request without a valid requestId"))).toHaveLength(1);
    expect(await stillUsable(h, 2)).toBe(true);
  });

  it("unknown update variants and updates for unknown sessions are shown or logged, never fatal", async () => {
    const h = await start({
      turns: [
        [
          u({ sessionUpdate: "hologram_update", intensity: 9 }),
          u({ sessionUpdate: "teleport_update", teleportId: "c1", status: "started" }),
          raw({
            jsonrpc: "2.0",
            method: "session/update",
            params: {
              sessionId: "not-this-one",
              update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "GHOST" } },
            },
          }),
          { text: "real text" },
        ],
      ],
    });
    await h.ready();
    await h.send("go");
    await h.turns(1);
    const text = await h.text();
    expect(text).toContain('! unknown session/update variant "hologram_update"');
    expect(text).toContain('! unknown session/update variant "teleport_update"');
    expect(text).not.toContain("GHOST");
    expect(text).toContain("real text");
    expect((await h.problems()).filter((p) => p.includes("unknown session not-this-one"))).toHaveLength(1);
    expect(await stillUsable(h, 2)).toBe(true);
  });

  it("an error the agent sends with details shows its message and details, redacted", async () => {
    // Agents answer -32603 "Internal error" and put the reason in data.details; a bare
    // "Internal error" told the user nothing.
    const details =
      "Cannot enable privileged approval modes in an untrusted folder (key sk-ant-api03-Qz8xW7vU6tS5rR4pP3oO2nN1)";
    const h = await start({
      failMethods: { "session/prompt": { code: -32603, message: "Internal error", data: { details } } },
    });
    await h.ready();
    await h.send("go");
    await h.t.waitFor(async () => (await h.text()).includes("The turn failed"), "the failed turn");
    const text = await h.text();
    expect(text).toContain(
      "The turn failed: Internal error: Cannot enable privileged approval modes in an untrusted folder (key [REDACTED])",
    );
    expect(text).not.toContain("Qz8xW7vU");
  });
});
