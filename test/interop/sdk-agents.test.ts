/**
 * Interop over real pipes with agents whose protocol code none of us wrote: one built on the
 * official SDK 2.x `agent()` app, and the example agent shipped in SDK 1.9.0.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { Chat } from "../../src/session/chat/chat.js";
import { MemoryPort } from "../support/fake-chat.js";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";

const SDK2_AGENT = fileURLToPath(new URL("../agents/sdk2-agent.mjs", import.meta.url));
const SDK1_EXAMPLE = fileURLToPath(new URL("../../node_modules/acp-sdk-v1/dist/examples/agent.js", import.meta.url));

const chats: Chat[] = [];
afterEach(async () => {
  await Promise.all(chats.splice(0).map((c) => c.close()));
});

function chatFor(args: string[]) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-interop-")));
  const port = new MemoryPort();
  const chat = new Chat({
    agentName: "sdk",
    command: { command: process.execPath, args },
    cwd: dir,
    port,
    onEvents: () => undefined,
  });
  chats.push(chat);
  const agentText = () =>
    chat.state.blocks
      .filter((b) => b.type === "agent")
      .map((b) => (b as { text: string }).text)
      .join("|");
  return { chat, port, dir, agentText };
}

describe("interop with the official SDK", () => {
  it("an SDK 2.x agent reads an unsaved buffer, asks permission, writes, runs a terminal", async () => {
    const { chat, port, dir, agentText } = chatFor([SDK2_AGENT]);
    const file = join(dir, "notes.txt");
    writeFileSync(file, "line one\nline two on disk\nline three\n");
    port.buffers.set(file, "line one\nunsaved second line\nline three\n");
    port.answer = (req) => ({
      outcome: "selected",
      optionId: req.options.find((o) => o.kind === "allow_once")!.optionId,
    });
    await chat.start();
    expect(chat.client!.init!.agentInfo?.name).toBe("sdk2-test-agent");
    const stop = await chat.prompt([{ type: "text", text: file }]);
    expect(stop).toBe("end_turn");
    expect(agentText()).toContain("got [unsaved second line]");
    expect(readFileSync(`${file}.out`, "utf8")).toBe("UNSAVED SECOND LINE");
    expect(agentText()).toContain("terminal said [from terminal] exit 0");
    expect(chat.state.toolCalls.get("w1")?.status).toBe("completed");
    expect(chat.state.plan).toEqual([{ content: "write", priority: "high", status: "in_progress" }]);
  });

  it("an SDK 2.x agent is cancelled while its permission question is open", async () => {
    const { chat, port } = chatFor([SDK2_AGENT]);
    const file = join(chat.boundary.cwd, "a.txt");
    writeFileSync(file, "a\nb\n");
    port.answer = () => undefined;
    await chat.start();
    const turn = chat.prompt([{ type: "text", text: file }]);
    while (port.questions.length === 0) await new Promise((r) => setTimeout(r, 20));
    chat.cancel();
    await expect(turn).resolves.toBe("cancelled");
    expect(chat.state.toolCalls.get("w1")?.status).toBe("cancelled");
  });

  it("the SDK 1.9.0 example agent streams, calls tools and asks permission", async () => {
    const { chat, port, agentText } = chatFor([SDK1_EXAMPLE]);
    port.answer = (req) => ({
      outcome: "selected",
      optionId: req.options.find((o) => o.kind === "allow_once")!.optionId,
    });
    await chat.start();
    const stop = await chat.prompt([{ type: "text", text: "hello" }]);
    expect(stop).toBe("end_turn");
    expect(port.questions).toHaveLength(1);
    expect(chat.state.toolCalls.size).toBe(2);
    expect([...chat.state.toolCalls.values()].every((c) => c.status === "completed")).toBe(true);
    expect(agentText().length).toBeGreaterThan(20);
  }, 30_000);
});
