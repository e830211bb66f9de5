/** The Chat against the scripted fake agent, over real pipes, with real files and processes. */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { groupAlive, pidAlive } from "../../src/agent/process-group.js";
import { validateClientMessages } from "../support/conformance.js";
import { makeFakeChat, type FakeChat } from "../support/fake-chat.js";

const open: FakeChat[] = [];
function chatWith(scenario: Record<string, unknown>, opts = {}, env: Record<string, string> = {}) {
  const c = makeFakeChat(scenario, opts, env);
  open.push(c);
  return c;
}
afterEach(async () => {
  for (const c of open.splice(0)) {
    await c.chat.close();
    // Every message the client sent in every test conforms to the official schema.
    const { received, sent } = c.received();
    const { violations } = validateClientMessages(received, sent);
    expect(violations).toEqual([]);
  }
});

const perm = (toolCallId: string) => ({
  request: "session/request_permission",
  params: {
    toolCall: { toolCallId, title: "Run tests", kind: "execute" },
    options: [
      { optionId: "yes", name: "Allow", kind: "allow_once" },
      { optionId: "no", name: "Reject", kind: "reject_once" },
    ],
  },
  echo: true,
});

describe("Chat over a real pipe", () => {
  it("starts, streams a turn and ends it with the agent's stop reason", async () => {
    const c = chatWith({
      turns: [
        [{ text: "Hello" }, { chunks: 50, text: "." }, { thought: "hmm" }, { text: "done" }, { stop: "max_tokens" }],
      ],
    });
    await c.chat.start();
    expect(c.chat.status).toBe("ready");
    expect(c.chat.client!.init!.agentInfo).toMatchObject({ name: "fake-agent" });
    const stop = await c.chat.prompt([{ type: "text", text: "hi" }]);
    expect(stop).toBe("max_tokens");
    expect(c.transcript()).toBe(`turn\nuser: hi\nreply\nagent: Hello${".".repeat(50)}\nthought: hmm\nagent: done\nend`);
    expect(c.chat.state.turnState).toBe("idle");
    const init = c.received().received.find((m) => m.method === "initialize")!;
    expect(init.params).toMatchObject({
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
  });

  it("asks permission through the port, in order, and tells the agent what was chosen", async () => {
    const c = chatWith({ turns: [[perm("t1"), perm("t2")]] });
    await c.chat.start();
    c.port.answer = (req) => ({ outcome: "selected", optionId: req.toolCall.toolCallId === "t1" ? "yes" : "no" });
    await c.chat.prompt([{ type: "text", text: "go" }]);
    expect(c.port.questions.map((q) => q.toolCall.toolCallId)).toEqual(["t1", "t2"]);
    const agentText = c.chat.state.blocks
      .filter((b) => b.type === "agent")
      .map((b) => (b as { text: string }).text)
      .join("");
    expect(agentText).toContain('"optionId":"yes"');
    expect(agentText).toContain('"optionId":"no"');
  });

  it("queues simultaneous permission requests one at a time", async () => {
    // Three requests sent without waiting: the port must see them strictly one after another.
    const c = chatWith({
      turns: [
        [
          {
            raw: [1, 2, 3]
              .map((i) =>
                JSON.stringify({
                  jsonrpc: "2.0",
                  id: `p${i}`,
                  method: "session/request_permission",
                  params: {
                    sessionId: "$SID",
                    toolCall: { toolCallId: `q${i}` },
                    options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
                  },
                }),
              )
              .join("\n"),
          },
          { sleep: 500 },
        ],
      ],
    });
    await c.chat.start();
    let active = 0;
    let maxActive = 0;
    c.port.requestPermission = async (req) => {
      c.port.questions.push(req);
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 30));
      active--;
      return { outcome: "selected", optionId: "ok" };
    };
    await c.chat.prompt([{ type: "text", text: "go" }]);
    expect(c.port.questions.map((q) => q.toolCall.toolCallId)).toEqual(["q1", "q2", "q3"]);
    expect(maxActive).toBe(1);
    const answers = c.received().received.filter((m) => typeof m.id === "string" && String(m.id).startsWith("p"));
    expect(answers.map((a) => a.result)).toEqual(
      [1, 2, 3].map(() => ({ outcome: { outcome: "selected", optionId: "ok" } })),
    );
  });

  it("cancel: unfinished tool calls cancelled at once, the open question answered cancelled, the prompt's response awaited", async () => {
    const c = chatWith({
      turns: [
        [
          { update: { sessionUpdate: "tool_call", toolCallId: "run", title: "Run", status: "in_progress" } },
          perm("run"),
          { chunks: 5, text: "after" },
        ],
      ],
    });
    await c.chat.start();
    c.port.answer = () => undefined; // leave the question open
    const turn = c.chat.prompt([{ type: "text", text: "go" }]);
    await waitFor(() => c.port.questions.length === 1);
    expect(c.chat.state.turnState).toBe("waiting_permission");
    c.chat.cancel();
    expect(c.chat.state.toolCalls.get("run")!.status).toBe("cancelled");
    expect(c.chat.state.turnState).toBe("cancelling");
    await expect(turn).resolves.toBe("cancelled");
    const { received } = c.received();
    expect(received.some((m) => m.method === "session/cancel")).toBe(true);
    expect(received.find((m) => (m.result as { outcome?: unknown })?.outcome)?.result).toEqual({
      outcome: { outcome: "cancelled" },
    });
  });

  it("ends the turn itself when the agent ignores session/cancel, and says so", async () => {
    const c = chatWith({ ignoreCancel: true, turns: [[{ hang: true }]] }, { timeouts: { cancelMs: 300 } });
    await c.chat.start();
    const turn = c.chat.prompt([{ type: "text", text: "go" }]);
    await waitFor(() => c.chat.state.turnState === "prompting");
    c.chat.cancel();
    await expect(turn).resolves.toBe("cancelled");
    expect(c.transcript()).toMatch(/did not end the turn within 0.3 s/);
    expect(c.chat.state.turnState).toBe("idle");
  });

  it("reads and writes through the port inside the cwd, and denies paths outside", async () => {
    const c = chatWith({});
    const inside = join(c.dir, "a.txt");
    writeFileSync(inside, "disk\n");
    const outsideDir = join(c.dir, "..", `outside-${Date.now()}`);
    mkdirSync(outsideDir);
    writeFileSync(join(outsideDir, "secret.txt"), "secret");
    symlinkSync(outsideDir, join(c.dir, "link"));
    c.chat.opts.command.env!.FAKE_AGENT_SCENARIO = JSON.stringify({
      record: c.record,
      turns: [
        [
          { request: "fs/read_text_file", params: { path: inside }, echo: true },
          {
            request: "fs/write_text_file",
            params: { path: join(c.dir, "new", "b.txt"), content: "written" },
            echo: true,
          },
          { request: "fs/read_text_file", params: { path: join(outsideDir, "secret.txt") }, echo: true },
          { request: "fs/read_text_file", params: { path: join(c.dir, "link", "secret.txt") }, echo: true },
          {
            request: "fs/write_text_file",
            params: { path: join(c.dir, "..", "escape.txt"), content: "x" },
            echo: true,
          },
          { request: "fs/read_text_file", params: { path: join(c.dir, "missing.txt") }, echo: true },
        ],
      ],
    });
    c.port.buffers.set(inside, "unsaved buffer text");
    await c.chat.start();
    await c.chat.prompt([{ type: "text", text: "go" }]);
    const replies = c.chat.state.blocks
      .filter((b) => b.type === "agent")
      .map((b) => (b as { text: string }).text)
      .join("\n");
    expect(replies).toContain('"content":"unsaved buffer text"');
    expect(readFileSync(join(c.dir, "new", "b.txt"), "utf8")).toBe("written");
    expect(replies.match(/Access denied/g)).toHaveLength(3);
    expect(replies).not.toContain('"content":"secret"');
    expect(existsSync(join(c.dir, "..", "escape.txt"))).toBe(false);
    expect(replies).toMatch(/-32002.*Resource not found/);
    expect(c.transcript().match(/note/g)?.length).toBe(3); // each denial is noted in the transcript
  });

  it("runs terminals: output within the byte limit, exit status, release kills, close kills the group", async () => {
    const c = chatWith({
      turns: [
        [
          {
            request: "terminal/create",
            params: {
              command: "sh",
              args: ["-c", "printf 'héllo wörld %s\\n' 1 2 3 4 5; exit 3"],
              outputByteLimit: 20,
            },
          },
          { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" }, echo: true },
        ],
        [
          { request: "terminal/create", params: { command: "sh", args: ["-c", "sleep 300 & sleep 300"] } },
          { request: "terminal/output", params: { terminalId: "$last.terminalId" }, echo: true },
        ],
      ],
    });
    await c.chat.start();
    await c.chat.prompt([{ type: "text", text: "one" }]);
    const [t1] = c.chat.terminals.all();
    expect(t1!.exitStatus).toEqual({ exitCode: 3, signal: null });
    expect(t1!.truncated).toBe(true);
    const out = t1!.output();
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(20);
    expect(out.endsWith("wörld 5\n")).toBe(true);
    expect(out).not.toContain("\uFFFD");
    await c.chat.prompt([{ type: "text", text: "two" }]);
    const t2 = c.chat.terminals.all()[1]!;
    expect(groupAlive(t2.pid)).toBe(true);
    await c.chat.close();
    expect(groupAlive(t2.pid)).toBe(false);
  });

  it("refuses a terminal whose cwd is outside the session", async () => {
    const c = chatWith({
      turns: [[{ request: "terminal/create", params: { command: "true", cwd: "/tmp" }, echo: true }]],
    });
    await c.chat.start();
    await c.chat.prompt([{ type: "text", text: "go" }]);
    expect(c.transcript()).toMatch(/Access denied: terminal cwd of \\"\/tmp\\"/);
    expect(c.chat.terminals.all()).toHaveLength(0);
  });

  it("an agent that dies mid-turn ends the turn visibly, keeps the transcript, and leaves no process", async () => {
    const c = chatWith({ spawnChild: true, turns: [[{ text: "partial" }, { sleep: 50 }, { exit: 7 }]] });
    await c.chat.start();
    const pid = c.chat.agent!.pid;
    const stop = await c.chat.prompt([{ type: "text", text: "go" }]);
    expect(stop).toBe("error");
    expect(c.transcript()).toMatch(/agent: partial/);
    expect(c.transcript()).toMatch(/exited with code 7/);
    expect(c.chat.status).toBe("failed");
    await waitFor(() => !groupAlive(pid));
  });

  it("killed by a signal, and stdout closed while alive, both end the turn", async () => {
    const a = chatWith({ turns: [[{ signal: "SIGKILL" }]] });
    await a.chat.start();
    expect(await a.chat.prompt([{ type: "text", text: "go" }])).toBe("error");
    expect(a.transcript()).toMatch(/killed by SIGKILL/);
    const b = chatWith({ turns: [[{ closeStdout: true }]] });
    await b.chat.start();
    const pid = b.chat.agent!.pid;
    expect(await b.chat.prompt([{ type: "text", text: "go" }])).toBe("error");
    expect(b.transcript()).toMatch(/closed its output/);
    await b.chat.close();
    expect(groupAlive(pid)).toBe(false);
  });

  it("close kills the agent's whole process group, grandchildren included", async () => {
    const c = chatWith({ spawnChild: true });
    await c.chat.start();
    await waitFor(() => /child pid (\d+)/.test(c.chat.agent!.stderr.text()));
    const child = Number(/child pid (\d+)/.exec(c.chat.agent!.stderr.text())![1]);
    expect(pidAlive(child)).toBe(true);
    await c.chat.close();
    expect(pidAlive(child)).toBe(false);
    expect(groupAlive(c.chat.agent!.pid)).toBe(false);
  });

  it("a missing command fails with one clear message naming it", async () => {
    const c = chatWith({}, { command: { command: "definitely-not-an-agent-xyz", args: ["--acp"] } });
    await expect(c.chat.start()).rejects.toThrow(/definitely-not-an-agent-xyz --acp/);
    expect(c.chat.status).toBe("failed");
  });

  it("an agent that exits at once shows its stderr", async () => {
    const c = chatWith({}, { command: { command: "sh", args: ["-c", "echo 'missing API key' >&2; exit 2"] } });
    await expect(c.chat.start()).rejects.toThrow(/exited with code 2[\s\S]*missing API key/);
  });

  it("times out an initialize that never comes", async () => {
    const c = chatWith({ noInitAnswer: true }, { timeouts: { initializeMs: 300 } });
    await expect(c.chat.start()).rejects.toThrow(/initialize got no answer/);
  });

  it("refuses an unsupported protocol version with an actionable message", async () => {
    const c = chatWith({ protocolVersion: 2 });
    await expect(c.chat.start()).rejects.toThrow(/speaks ACP protocol version 2.*update the agent/);
  });

  it("survives noise: banner, garbage, non-messages, unknown variants, updates for other sessions", async () => {
    const c = chatWith({
      banner: "Welcome to FakeAgent 1.0!",
      turns: [
        [
          { raw: "garbage {{{" },
          { raw: "42" },
          { raw: JSON.stringify({ jsonrpc: "2.0", id: 424242, result: {} }) },
          { update: { sessionUpdate: "hologram_update", x: 1 } },
          {
            raw: JSON.stringify({
              jsonrpc: "2.0",
              method: "session/update",
              params: {
                sessionId: "nope",
                update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "ghost" } },
              },
            }),
          },
          { raw: JSON.stringify({ jsonrpc: "2.0", id: 77, method: "fs/read_text_file", params: { path: 3 } }) },
          { raw: JSON.stringify({ jsonrpc: "2.0", id: 78, method: "no/such_method", params: {} }) },
          { text: "still fine" },
        ],
      ],
    });
    await c.chat.start();
    expect(await c.chat.prompt([{ type: "text", text: "go" }])).toBe("end_turn");
    expect(c.transcript()).toMatch(/agent: still fine/);
    expect(c.transcript()).not.toMatch(/ghost/);
    expect(c.transcript()).toMatch(/unknown session\/update variant "hologram_update"/);
    await waitFor(() => [77, 78].every((id) => c.received().received.some((m) => m.id === id)));
    const { received } = c.received();
    const errorFor = (id: unknown) => (received.find((m) => m.id === id)?.error as { code: number } | undefined)?.code;
    expect(errorFor(77)).toBe(-32602);
    expect(errorFor(78)).toBe(-32601);
    const problems = c.chat.trace
      .list()
      .filter((e) => e.kind === "problem")
      .map((e) => String(e.payload));
    expect(problems.some((p) => p.includes("not JSON: Welcome"))).toBe(true);
    expect(problems.some((p) => p.includes("unknown request id 424242"))).toBe(true);
    expect(problems.some((p) => p.includes("unknown session nope"))).toBe(true);
  });

  it("redacts secrets from the trace", async () => {
    const c = chatWith(
      {
        turns: [
          [
            {
              update: {
                sessionUpdate: "agent_message_chunk",
                content: { type: "text", text: "hi" },
                _meta: { apiKey: "sk-live-123456" },
              },
            },
          ],
        ],
      },
      {},
      { MY_TOKEN: "tok-very-secret-value" },
    );
    await c.chat.start();
    await c.chat.prompt([{ type: "text", text: "my token is tok-very-secret-value" }]);
    const dump = JSON.stringify(c.chat.trace.list());
    expect(dump).not.toContain("sk-live-123456");
    expect(dump).not.toContain("tok-very-secret-value");
    expect(dump).toContain("[REDACTED]");
  });
});

describe("the rest of the client API", () => {
  it("terminal/kill stops a running command (exit by signal); release after that is fine", async () => {
    const c = chatWith({
      turns: [
        [
          { request: "terminal/create", params: { command: "sh", args: ["-c", "echo started; sleep 300"] } },
          { sleep: 200 },
          { request: "terminal/kill", params: { terminalId: "$last.terminalId" } },
          { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" }, echo: true },
          { request: "terminal/output", params: { terminalId: "$last.terminalId" }, echo: true },
          { request: "terminal/release", params: { terminalId: "$last.terminalId" }, echo: true },
        ],
      ],
    });
    await c.chat.start();
    await c.chat.prompt([{ type: "text", text: "go" }]);
    const text = c.transcript();
    expect(text).toMatch(/"result":\{"exitCode":null,"signal":"SIGTERM"\}/);
    expect(text).toMatch(/"output":"started\\n","truncated":false,"exitStatus":\{"exitCode":null,"signal":"SIGTERM"\}/);
    expect(text).toMatch(/"id":\d+,"result":\{\}\}$/m);
  });

  it("session/close on close when advertised; optional calls refused locally when not", async () => {
    const c = chatWith({ agentCapabilities: { sessionCapabilities: { close: {} } } });
    await c.chat.start();
    const client = c.chat.client!;
    await expect(client.listSessions()).rejects.toThrow(
      /session\/list is not supported by this agent \(it did not advertise sessionCapabilities.list\)/,
    );
    await expect(client.loadSession("x", c.dir)).rejects.toThrow(/session\/load is not supported/);
    await expect(client.logout()).rejects.toThrow(
      /logout is not supported by this agent \(it did not advertise auth.logout\)/,
    );
    await expect(client.setModel(c.chat.sessionId!, "m", false)).rejects.toThrow(/session\/set_model is not supported/);
    const sid = c.chat.sessionId;
    await c.chat.close();
    const closes = c.received().received.filter((m) => m.method === "session/close");
    expect(closes.map((m) => m.params)).toEqual([{ sessionId: sid }]);
    // Nothing optional was sent for the refused calls.
    expect(
      c
        .received()
        .received.map((m) => m.method)
        .filter(Boolean),
    ).toEqual(["initialize", "session/new", "session/close"]);
  });
});

async function waitFor(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}
