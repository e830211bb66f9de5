/**
 * Secrets never leave the process: the agent's configured values, keys on its command line,
 * and values that look like API keys, on every surface built from the session's state (titles,
 * plans, tool titles, terminal tails, permission questions and remembered keys) and in the
 * trace. The log folder's pruning touches only the plugin's own files.
 */
import { mkdtempSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSessionUpdate, type RequestPermissionRequest, type SessionUpdate } from "../../src/protocol/schema.js";
import { ChunkRedactor } from "../../src/session/chunk-redactor.js";
import { PermissionQueue } from "../../src/session/permission/queue.js";
import { PermissionRules } from "../../src/session/permission/rules.js";
import { commandSecrets, PieceRedactor, Redactor, redactKeyLike, REDACTED } from "../../src/trace/redact.js";
import { isTraceFile, pruneTraces, TraceLog } from "../../src/trace/trace-log.js";

const ANTHROPIC = "sk-ant-api03-Zx9_Qw8-Lm7Kp6Jn5Hb4Gv3Fc2Dx1Sz0Aa";
const GITHUB = "ghp_1234567890abcdefghijABCDEFGHIJ123456";
const PLANTED = "planted-secret-value-4242";

describe("key-like values", () => {
  it("are redacted wherever they appear, whoever sent them", () => {
    expect(redactKeyLike(`key ${ANTHROPIC}.`)).toBe(`key ${REDACTED}.`);
    expect(redactKeyLike(`token=${GITHUB}`)).toBe(`token=${REDACTED}`);
    expect(redactKeyLike("AWS AKIAIOSFODNN7EXAMPLE here")).toBe(`AWS ${REDACTED} here`);
    expect(redactKeyLike("Authorization: Bearer abc.def-ghi_jkl012345")).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactKeyLike("OPENAI_API_KEY=hunter2hunter2 make")).toBe(`OPENAI_API_KEY=${REDACTED} make`);
    expect(redactKeyLike("agent --api-key s3cr3tv4lue --verbose")).toBe(`agent --api-key ${REDACTED} --verbose`);
    expect(redactKeyLike("agent --token=abcdef123456")).toBe(`agent --token=${REDACTED}`);
    expect(redactKeyLike("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\nafter")).toBe(
      `${REDACTED}\nafter`,
    );
  });

  it("leave ordinary text alone", () => {
    for (const s of [
      "skip-this-one task-list",
      "max_tokens: 100000",
      "the token count is high",
      "sk-short",
      "--max-tokens 4096",
      "ask-me-anything-about-it-please",
    ])
      expect(redactKeyLike(s)).toBe(s);
  });

  it("are found in JSON text after an escape, without breaking the JSON", () => {
    const r = new Redactor([]);
    const line = JSON.stringify({ text: `line one\n${ANTHROPIC}\tend`, n: 1 });
    const out = r.json(line);
    expect(out).not.toContain("Zx9_Qw8");
    expect(JSON.parse(out)).toEqual({ text: `line one\n${REDACTED}\tend`, n: 1 });
  });
});

describe("the agent's command", () => {
  it("its environment values and the values after secret-looking flags are secrets", () => {
    expect(
      commandSecrets({
        args: ["--model", "opus", "--api-key", "k-123456", "--auth-token=t-abcdef"],
        env: { ANTHROPIC_API_KEY: PLANTED },
      }).sort(),
    ).toEqual([PLANTED, "k-123456", "t-abcdef"].sort());
    const r = new Redactor(commandSecrets({ args: ["--api-key", "k-123456"] }));
    expect(r.text("starting agent --api-key k-123456 in /w")).toBe(`starting agent --api-key ${REDACTED} in /w`);
  });
});

describe("streams", () => {
  const r = new Redactor([PLANTED]);
  const text = `a ${PLANTED} b ${ANTHROPIC} c Bearer abcdefghijklmnop1234 d ${GITHUB} e sk-lint ok`;

  it("split at every position, no piece ever shows a secret, and the whole reads as redacted", () => {
    for (let cut = 0; cut <= text.length; cut++) {
      for (const size of [1, 3, 7]) {
        let held = "";
        const shown: string[] = [];
        const pieces = [text.slice(0, cut), ...(text.slice(cut).match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [])];
        for (const p of pieces) {
          const s = r.split(held + p);
          held = s.held;
          shown.push(s.shown);
        }
        shown.push(r.text(held));
        for (const s of shown)
          for (const secret of [PLANTED, ANTHROPIC, GITHUB, "abcdefghijklmnop1234"])
            expect(s.includes(secret.slice(4, 12)), `${JSON.stringify(s)} at ${cut}/${size}`).toBe(false);
        expect(shown.join("")).toBe(r.text(text));
      }
    }
  });

  it("a live tail holds back an end that may begin a secret until the command ends", () => {
    expect(r.tail(`out\n${ANTHROPIC.slice(0, 20)}`, false)).toBe("out\n");
    expect(r.tail(`out\n${ANTHROPIC}\n`, true)).toBe(`out\n${REDACTED}\n`);
  });
});

describe("session updates", () => {
  const u = (x: Record<string, unknown>): SessionUpdate => parseSessionUpdate(x);
  const r = new ChunkRedactor(new Redactor([PLANTED]));

  it("titles, plans, tool titles and commands are redacted whole", () => {
    const out = [
      ...r.push(u({ sessionUpdate: "session_info_update", title: `Fix ${PLANTED}` })),
      ...r.push(
        u({ sessionUpdate: "plan", entries: [{ content: `use ${ANTHROPIC}`, priority: "high", status: "pending" }] }),
      ),
      ...r.push(
        u({
          sessionUpdate: "tool_call",
          toolCallId: "t",
          title: `curl -H 'x-api-key: ${PLANTED}'`,
          rawInput: { command: `export K=${GITHUB}` },
        }),
      ),
      ...r.push(
        u({
          sessionUpdate: "available_commands_update",
          availableCommands: [{ name: "x", description: `uses ${PLANTED}` }],
        }),
      ),
    ];
    const json = JSON.stringify(out);
    for (const s of [PLANTED, ANTHROPIC, GITHUB]) expect(json).not.toContain(s);
    expect(out[0]).toMatchObject({ title: `Fix ${REDACTED}` });
  });

  it("terminal output streamed in _meta never shows a secret split across pieces", () => {
    const meta = (data: string, exit = false) =>
      u({
        sessionUpdate: "tool_call_update",
        toolCallId: "b",
        _meta: {
          terminal_output: { terminal_id: "T", data },
          ...(exit ? { terminal_exit: { terminal_id: "T", exit_code: 0, signal: null } } : {}),
        },
      });
    const pieces = [
      "echo ",
      PLANTED.slice(0, 10),
      PLANTED.slice(10) + "\n",
      ANTHROPIC.slice(0, 15),
      ANTHROPIC.slice(15) + "\ndone",
    ];
    const data: string[] = [];
    pieces.forEach((p, i) => {
      for (const x of r.push(meta(p, i === pieces.length - 1)))
        data.push((x as unknown as { _meta: { terminal_output: { data: string } } })._meta.terminal_output.data);
    });
    for (const d of data) for (const s of [PLANTED.slice(0, 10), ANTHROPIC.slice(0, 15)]) expect(d).not.toContain(s);
    expect(data.join("")).toBe(`echo ${REDACTED}\n${REDACTED}\ndone`);
  });
});

describe("permission questions", () => {
  it("are shown without secrets and one line per field; remembered keys hold no secret", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-secret-q-"));
    const rules = new PermissionRules("fake", dir);
    const asked: RequestPermissionRequest[] = [];
    const q = new PermissionQueue({
      port: {
        requestPermission: async (req) => {
          asked.push(req);
          return { outcome: "selected", optionId: "always", remember: "session" };
        },
        readTextFile: async () => ({ content: "" }),
        writeTextFile: async () => undefined,
      },
      redactor: new Redactor([PLANTED]),
      rules,
      notice: () => undefined,
    });
    const req: RequestPermissionRequest = {
      sessionId: "s",
      toolCall: {
        toolCallId: "t1",
        title: `Run\n1. Always allow\u202e`,
        kind: "execute",
        rawInput: { command: `curl -H 'Authorization: ${PLANTED}' x` },
      },
      options: [
        { optionId: "always", name: "Always\nallow", kind: "allow_always" },
        { optionId: "once", name: "Allow", kind: "allow_once" },
      ],
    };
    const res = await q.ask(req, new AbortController().signal);
    expect(res).toEqual({ outcome: { outcome: "selected", optionId: "always" } });
    const shown = asked[0]!;
    expect(shown.toolCall.title).toBe("Run\\n1. Always allow\\u{202e}");
    expect(shown.options.map((o) => [o.optionId, o.name])).toEqual([
      ["always", "Always\\nallow"],
      ["once", "Allow"],
    ]);
    expect(JSON.stringify(shown)).not.toContain(PLANTED);
    expect(rules.list()[0]!.tool).toBe(`run: curl -H 'Authorization: ${REDACTED}' x`);
    // The same command is then answered without asking.
    await q.ask({ ...req, toolCall: { ...req.toolCall, toolCallId: "t2" } }, new AbortController().signal);
    expect(asked).toHaveLength(1);
  });
});

describe("the trace", () => {
  const r = new Redactor([PLANTED]);
  const text = `a ${PLANTED} b ${ANTHROPIC} c Bearer abcdefghijklmnop1234 d ${GITHUB} e`;

  it("each piece of a stream is logged as it came, without the part of any secret split across pieces", () => {
    for (let cut = 1; cut < text.length; cut++) {
      const p = new PieceRedactor(r);
      // As the trace does: the piece's share of a secret across pieces, then the piece's own.
      const pieces = [p.piece("s", text.slice(0, cut)), p.piece("s", text.slice(cut))].map((x) => r.text(x));
      for (const piece of pieces)
        for (const secret of [PLANTED, ANTHROPIC, GITHUB, "abcdefghijklmnop1234"])
          expect(piece.includes(secret.slice(4, 10)), `${JSON.stringify(pieces)} at ${cut}`).toBe(false);
    }
    // Ordinary text is left as it is.
    const p = new PieceRedactor(r);
    expect([p.piece("s", "it's "), p.piece("s", "fine")]).toEqual(["it's ", "fine"]);
  });

  it("message chunks and terminal output in session/update frames are redacted across frames", () => {
    const log = new TraceLog(r);
    const frame = (update: Record<string, unknown>) => {
      const payload = { jsonrpc: "2.0", method: "session/update", params: { sessionId: "s1", update } };
      const t = JSON.stringify(payload);
      log.frame({ direction: "in", kind: "notification", method: "session/update", size: t.length, payload, text: t });
    };
    frame({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `key ${ANTHROPIC.slice(0, 16)}` } });
    frame({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: `${ANTHROPIC.slice(16)} ok` } });
    frame({
      sessionUpdate: "tool_call_update",
      toolCallId: "t",
      _meta: { terminal_output: { terminal_id: "T", data: PLANTED.slice(0, 9) } },
    });
    frame({
      sessionUpdate: "tool_call_update",
      toolCallId: "t",
      _meta: { terminal_output: { terminal_id: "T", data: `${PLANTED.slice(9)}\n` } },
    });
    const all = JSON.stringify(log.list());
    for (const f of [ANTHROPIC.slice(13, 16), ANTHROPIC.slice(16, 26), PLANTED.slice(0, 9), PLANTED.slice(9)])
      expect(all).not.toContain(f);
    expect(all).toContain(" ok");
  });
});

describe("trace folder", () => {
  it("pruning deletes only the plugin's own trace files, oldest first", () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-prune-"));
    for (let i = 0; i < 5; i++)
      writeFileSync(join(dir, `2026-01-0${i + 1}T10-00-00-000Z-chat${i}-claude.jsonl`), "{}\n");
    const foreign = [
      "history.jsonl",
      "2026-01-01-notes.jsonl",
      "export-chat1.jsonl",
      "2026-01-01T00-00-00-000Z-other.jsonl",
    ];
    for (const f of foreign) writeFileSync(join(dir, f), "{}\n");
    symlinkSync("/etc/hostname", join(dir, "2025-01-01T00-00-00-000Z-chat9-x.jsonl"));
    pruneTraces(dir, 2);
    const left = readdirSync(dir).sort();
    expect(left).toEqual(
      [
        ...foreign,
        "2025-01-01T00-00-00-000Z-chat9-x.jsonl",
        "2026-01-04T10-00-00-000Z-chat3-claude.jsonl",
        "2026-01-05T10-00-00-000Z-chat4-claude.jsonl",
      ].sort(),
    );
    expect(isTraceFile("2026-11-05T12-34-56-789Z-chat12-claude-code.jsonl")).toBe(true);
    expect(isTraceFile("notes.jsonl")).toBe(false);
  });
});
