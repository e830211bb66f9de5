/**
 * `terminal/*` on the client side: real processes, each the leader of its own process group.
 * Output is retained up to `outputByteLimit` bytes, cut from the start at a character boundary
 * (ACP: truncated from the beginning, `truncated: true`). Release kills the command if it still
 * runs but keeps its output visible; closing the manager kills every group.
 */
import { execa, type ResultPromise } from "execa";
import { randomUUID } from "node:crypto";
import { RpcError, ErrorCodes } from "../protocol/errors.js";
import { killGroup, killGroupNow } from "../agent/process-group.js";

export interface TerminalExitStatus {
  exitCode: number | null;
  signal: string | null;
}

/** How a terminal ended, in a word or two ("exit 3", "signal SIGTERM"); undefined while running. */
export function describeTerminalExit(s: TerminalExitStatus | undefined): string | undefined {
  if (!s) return undefined;
  return s.signal ? `signal ${s.signal}` : `exit ${s.exitCode ?? "?"}`;
}

export interface TerminalSpec {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd: string;
  outputByteLimit?: number;
}

const DEFAULT_LIMIT = 1024 * 1024;
/** Released terminals whose output is kept for viewing; older ones are forgotten. */
const KEEP_RELEASED = 20;

export class Terminal {
  readonly id = `term-${randomUUID()}`;
  private chunks: Buffer[] = [];
  private bytes = 0;
  truncated = false;
  exitStatus: TerminalExitStatus | undefined;
  released = false;
  readonly exited: Promise<TerminalExitStatus>;
  /** Dropped once the command has exited: only its output and status are worth keeping. */
  private child: ResultPromise | undefined;
  readonly pid: number | undefined;
  private readonly limit: number;

  constructor(
    readonly spec: TerminalSpec,
    private readonly onOutput: (t: Terminal) => void,
  ) {
    this.limit = spec.outputByteLimit ?? DEFAULT_LIMIT;
    this.child = execa(spec.command, spec.args ?? [], {
      cwd: spec.cwd,
      env: spec.env,
      extendEnv: true,
      detached: true,
      stdin: "ignore",
      all: true,
      buffer: false,
      reject: false,
      encoding: "buffer",
    });
    this.pid = this.child.pid;
    this.child.all!.on("data", (b: Buffer) => this.append(b));
    this.exited = this.child.then(
      (r) => this.finish({ exitCode: r.exitCode ?? null, signal: r.signal ?? null }, (r as { failed?: boolean; originalMessage?: string }).originalMessage, r.exitCode === undefined && !r.signal),
      (e: unknown) => this.finish({ exitCode: null, signal: null }, e instanceof Error ? e.message : String(e), true),
    );
  }

  /** The retained output: the last `outputByteLimit` bytes, starting on a character boundary. */
  output(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }

  /** About the last `chars` characters, joining only the chunks needed (called on every output). */
  tail(chars: number): string {
    const parts: Buffer[] = [];
    let bytes = 0;
    for (let i = this.chunks.length - 1; i >= 0 && bytes < chars * 4; i--) {
      parts.unshift(this.chunks[i]!);
      bytes += this.chunks[i]!.length;
    }
    const text = Buffer.concat(parts).toString("utf8");
    return text.length > chars ? text.slice(text.length - chars) : text;
  }

  async kill(): Promise<void> {
    await killGroup(this.pid, 1000);
  }

  killNow(): void {
    killGroupNow(this.pid);
  }

  private append(b: Buffer): void {
    this.chunks.push(b);
    this.bytes += b.length;
    if (this.bytes > this.limit) this.trim();
    this.onOutput(this);
  }

  private trim(): void {
    let all = Buffer.concat(this.chunks);
    let start = all.length - this.limit;
    // Never start inside a UTF-8 sequence: skip continuation bytes (10xxxxxx).
    while (start < all.length && (all[start]! & 0xc0) === 0x80) start++;
    all = all.subarray(start);
    this.chunks = [Buffer.from(all)];
    this.bytes = all.length;
    this.truncated = true;
  }

  private finish(status: TerminalExitStatus, message: string | undefined, spawnFailed: boolean): TerminalExitStatus {
    if (spawnFailed && message) this.append(Buffer.from(`${message}\n`));
    this.exitStatus = spawnFailed ? { exitCode: 127, signal: null } : status;
    this.child = undefined;
    void killGroup(this.pid, 300); // stragglers the command left in its group
    this.onOutput(this);
    return this.exitStatus;
  }
}

export class TerminalManager {
  private readonly terminals = new Map<string, Terminal>();

  constructor(private readonly onChange: (t: Terminal) => void = () => undefined) {}

  create(spec: TerminalSpec): Terminal {
    const t = new Terminal(spec, (x) => this.onChange(x));
    this.terminals.set(t.id, t);
    return t;
  }

  /** Lookup for agent requests: an unknown id is the agent's mistake, answered -32602. */
  get(id: string): Terminal {
    const t = this.terminals.get(id);
    if (!t) throw new RpcError(ErrorCodes.InvalidParams, `unknown terminal ${id}`);
    return t;
  }

  find(id: string): Terminal | undefined {
    return this.terminals.get(id);
  }

  async release(id: string): Promise<void> {
    const t = this.get(id);
    t.released = true;
    await t.kill();
    // Released output stays viewable (gt), but only for the most recent ones.
    const released = [...this.terminals.values()].filter((x) => x.released);
    for (const old of released.slice(0, Math.max(0, released.length - KEEP_RELEASED))) this.terminals.delete(old.id);
  }

  all(): Terminal[] {
    return [...this.terminals.values()];
  }

  /** Kill every terminal's process group (chat closed or editor quitting). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.terminals.values()].map((t) => t.kill()));
  }

  closeAllNow(): void {
    for (const t of this.terminals.values()) t.killNow();
  }
}
