/** A Chat wired to the scripted fake agent over a real pipe, with an in-memory editor port. */
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { EditorPort } from "../../src/client/editor-port.js";
import type { PermissionOutcome, RequestPermissionRequest } from "../../src/protocol/schema.js";
import { Chat, type ChatOptions } from "../../src/session/chat/chat.js";
import type { TranscriptEvent } from "../../src/session/blocks.js";
import { RpcError, ErrorCodes } from "../../src/protocol/errors.js";
import { readRecord } from "./conformance.js";

export const FAKE_AGENT = fileURLToPath(new URL("../agents/fake-agent.mjs", import.meta.url));

/** An editor in memory: "buffers" shadow the disk, permission answers are scripted. */
export class MemoryPort implements EditorPort {
  buffers = new Map<string, string>();
  writes: { path: string; content: string }[] = [];
  questions: RequestPermissionRequest[] = [];
  /** Pick an option by kind, or return undefined to leave the question open until aborted. */
  answer: (req: RequestPermissionRequest) => PermissionOutcome | undefined = (req) => ({
    outcome: "selected",
    optionId: req.options[0]!.optionId,
  });

  async requestPermission(req: RequestPermissionRequest, signal: AbortSignal): Promise<PermissionOutcome> {
    this.questions.push(req);
    const a = this.answer(req);
    if (a) return a;
    return new Promise((resolve) => signal.addEventListener("abort", () => resolve({ outcome: "cancelled" })));
  }

  async readTextFile(req: { path: string; line?: number | null; limit?: number | null }): Promise<{ content: string }> {
    let text = this.buffers.get(req.path);
    if (text === undefined) {
      try {
        text = readFileSync(req.path, "utf8");
      } catch {
        throw new RpcError(ErrorCodes.ResourceNotFound, `Resource not found: ${req.path}`);
      }
    }
    if (req.line || req.limit) {
      const lines = text.split("\n");
      const start = Math.max(0, (req.line ?? 1) - 1);
      text = lines.slice(start, req.limit ? start + req.limit : undefined).join("\n");
    }
    return { content: text };
  }

  async writeTextFile(req: { path: string; content: string }): Promise<void> {
    this.writes.push({ path: req.path, content: req.content });
    mkdirSync(dirname(req.path), { recursive: true });
    writeFileSync(req.path, req.content);
  }
}

export interface FakeChat {
  chat: Chat;
  port: MemoryPort;
  events: TranscriptEvent[];
  dir: string;
  record: string;
  received: () => ReturnType<typeof readRecord>;
  transcript: () => string;
}

export function makeFakeChat(
  scenario: Record<string, unknown>,
  opts: Partial<ChatOptions> = {},
  env: Record<string, string> = {},
): FakeChat {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-test-")));
  const record = join(dir, ".record.jsonl");
  const port = new MemoryPort();
  const events: TranscriptEvent[] = [];
  const chat = new Chat({
    agentName: "fake",
    command: {
      command: process.execPath,
      args: [FAKE_AGENT],
      env: { ...env, FAKE_AGENT_SCENARIO: JSON.stringify({ record, ...scenario }) },
    },
    cwd: dir,
    port,
    onEvents: (e) => events.push(...e),
    timeouts: { initializeMs: 5000, newSessionMs: 5000, cancelMs: 2000 },
    ...opts,
  });
  return {
    chat,
    port,
    events,
    dir,
    record,
    received: () => readRecord(record),
    transcript: () =>
      chat.state.blocks
        .map((b) =>
          "text" in b
            ? `${b.type}: ${b.text}`
            : b.type === "tool"
              ? `tool ${b.call.toolCallId} ${b.call.status}`
              : b.type,
        )
        .join("\n"),
  };
}
