/**
 * ACP v2 (draft) beside v1 over real pipes, with an agent built on the official SDK's
 * `experimental/v2` app (test/agents/v2-agent.mjs) and, for the fallback, a v1 agent on the
 * same SDK: the option `protocol = "v2-draft"` speaks v2 with the one and v1 with the other.
 */
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Chat } from "../../src/session/chat/chat.js";
import { MemoryPort } from "../support/fake-chat.js";

const V2_AGENT = fileURLToPath(new URL("../agents/v2-agent.mjs", import.meta.url));
const SDK2_AGENT = fileURLToPath(new URL("../agents/sdk2-agent.mjs", import.meta.url));

const chats: Chat[] = [];
afterEach(async () => {
  await Promise.all(chats.splice(0).map((c) => c.close()));
});

function chatFor(agent: string, protocol: "v1" | "v2-draft" | undefined) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-v2-")));
  const log = join(dir, ".agent-log.jsonl");
  const port = new MemoryPort();
  const chat = new Chat({
    agentName: "v2",
    command: { command: process.execPath, args: [agent], env: { V2_AGENT_LOG: log } },
    cwd: dir,
    port,
    protocol,
    onEvents: () => undefined,
  });
  chats.push(chat);
  const sent = () =>
    readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  const texts = (type: string) =>
    chat.state.blocks.filter((b) => b.type === type).map((b) => (b as { text: string }).text);
  return { chat, port, dir, sent, texts };
}

describe("ACP v2 draft", () => {
  it("prompt, messages by id, a terminal, a structured diff and a permission, idle", async () => {
    const { chat, port, dir, sent, texts } = chatFor(V2_AGENT, "v2-draft");
    const file = join(dir, "notes.txt");
    writeFileSync(file, "one\ntwo\nthree\n");
    port.answer = (req) => ({
      outcome: "selected",
      optionId: req.options.find((o) => o.kind === "allow_once")!.optionId,
    });
    await chat.start();
    // v2 initialize: no fs or terminal capabilities; the MCP servers typed.
    const init = sent().find((e) => e.initialize)!.initialize;
    expect(init.protocolVersion).toBe(2);
    expect(init.capabilities.fs).toBeUndefined();
    expect(init.capabilities.terminal).toBeUndefined();
    const stop = await chat.prompt([{ type: "text", text: file }]);
    expect(stop).toBe("end_turn");
    // The prompt is shown once (the echo is not drawn again); messages by id.
    expect(texts("user")).toEqual([file]);
    expect(texts("agent")).toEqual(["First message.", "Second message, replaced.", "Edited."]);
    expect(texts("thought")).toEqual(["thinking by id"]);
    // The terminal: the snapshot replaced the stale output, the split character joined.
    const run = chat.state.toolCalls.get("run1")!;
    expect(run.status).toBe("completed");
    expect(run.terminals.term1!.full).toBe("line one\nline two é\n");
    expect(run.terminals.term1!.exit).toBeDefined();
    // The structured diff as a whole-file diff; the permission's own title and description.
    const edit = chat.state.toolCalls.get("edit1")!;
    expect(edit.content).toEqual([
      { type: "diff", path: file, oldText: "one\ntwo\nthree\n", newText: "one\nTWO\nthree\n" },
    ]);
    expect(edit.status).toBe("completed");
    const q = port.questions[0]!;
    expect(q._meta?.["acp-chat.nvim/permission"]).toEqual({
      title: "Allow the change to notes.txt?",
      description: "It upper-cases the second line.",
    });
    // The `_`-prefixed option kind is left out; the others stay.
    expect(q.options.map((o) => o.optionId)).toEqual(["yes", "no"]);
    expect(readFileSync(file, "utf8")).toBe("one\nTWO\nthree\n");
    // Extensions tolerated: no unknown-update note for `_acme/sparkle`.
    expect(texts("note").filter((t) => t.includes("sparkle"))).toEqual([]);
    // Commands from session/new.
    expect(chat.state.commands.map((c) => c.name)).toContain("sparkle");
  });

  it("falls back to v1 when the agent answers 1", async () => {
    const { chat, port, dir } = chatFor(SDK2_AGENT, "v2-draft");
    const file = join(dir, "notes.txt");
    writeFileSync(file, "line one\nline two\nline three\n");
    port.answer = (req) => ({
      outcome: "selected",
      optionId: req.options.find((o) => o.kind === "allow_once")!.optionId,
    });
    await chat.start();
    expect(chat.client!.init!.protocolVersion).toBe(1);
    expect(await chat.prompt([{ type: "text", text: file }])).toBe("end_turn");
    expect(readFileSync(`${file}.out`, "utf8")).toBe("LINE TWO");
  });
});
