/**
 * The JSON-RPC trace of one chat: every frame in and out as a JSON line
 * `{time, dir, kind, id, method, size, payload}` with secrets redacted, appended to a file and
 * kept (bounded) in memory for `:AcpChatLog`.
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Frame } from "../protocol/jsonrpc.js";
import type { Redactor } from "./redact.js";

export interface TraceEntry {
  time: string;
  dir: "in" | "out" | "note";
  kind: string;
  id?: number | string | null;
  method?: string;
  size: number;
  payload: unknown;
}

/** Payloads above this are cut in the trace (a 50 MB line must not become a 50 MB log entry). */
const MAX_PAYLOAD_CHARS = 16 * 1024;

export class TraceLog {
  private readonly entries: TraceEntry[] = [];
  private pendingLines: string[] = [];
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redactor: Redactor,
    private readonly file?: string,
    private readonly maxEntries = 5000,
  ) {
    if (file) mkdirSync(dirname(file), { recursive: true });
  }

  frame(f: Frame): void {
    this.add({ time: new Date().toISOString(), dir: f.direction, kind: f.kind, id: f.id, method: f.method, size: f.size, payload: f.payload });
  }

  /** A line of the client's own (a problem with what the agent sent, stderr, a lifecycle event). */
  note(kind: string, message: string): void {
    this.add({ time: new Date().toISOString(), dir: "note", kind, size: message.length, payload: message });
  }

  list(filter?: string): TraceEntry[] {
    if (!filter) return [...this.entries];
    return this.entries.filter((e) => (e.method ?? e.kind).includes(filter));
  }

  /** Write what is buffered now (called on close). */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (!this.file || this.pendingLines.length === 0) return;
    const text = this.pendingLines.join("");
    this.pendingLines = [];
    try {
      appendFileSync(this.file, text);
    } catch {
      // The log is a diagnostic aid; failing to write it must not break the chat.
    }
  }

  private add(e: TraceEntry): void {
    const safe = this.redactor.value(e);
    safe.payload = clip(safe.payload);
    this.entries.push(safe);
    if (this.entries.length > this.maxEntries) this.entries.splice(0, this.entries.length - this.maxEntries);
    if (this.file) {
      this.pendingLines.push(JSON.stringify(safe) + "\n");
      // Batched: a flood of chunks must not mean a flood of syscalls.
      this.flushTimer ??= setTimeout(() => this.flush(), 200);
    }
  }
}

function clip(payload: unknown): unknown {
  const s = typeof payload === "string" ? payload : JSON.stringify(payload);
  if (s === undefined || s.length <= MAX_PAYLOAD_CHARS) return payload;
  return `${s.slice(0, MAX_PAYLOAD_CHARS)}… (${s.length} chars, cut)`;
}
