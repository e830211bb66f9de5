/**
 * `terminal/*` on the client side: real processes, each the leader of its own process group and
 * marked with a cookie of its own, so that killing a terminal reaches everything it started,
 * daemons included (agent/process-group.ts). A command line without `args` runs through the
 * user's shell (shell-command.ts). Output is retained up to the agent's `outputByteLimit`, and
 * never beyond the client's own cap (output-buffer.ts). Release kills the command if it still
 * runs but keeps its output visible; closing the manager kills every tree.
 */
import { execa, type ResultPromise } from "execa";
import { randomUUID } from "node:crypto";
import { finished } from "node:stream";
import { RpcError, ErrorCodes } from "../protocol/errors.js";
import { killTrees, killTreesNow, trackTree, type ProcessTree } from "../agent/process-group.js";
import { childEnv, cookieIn } from "../agent/child-env.js";
import { spawnInCgroup } from "../agent/cgroup.js";
import { OutputBuffer } from "./output-buffer.js";
import { executableFor } from "./shell-command.js";
import type { TerminalExitStatus } from "./exit-status.js";

export { describeTerminalExit, terminalFailed, type TerminalExitStatus } from "./exit-status.js";

export interface TerminalSpec {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd: string;
  outputByteLimit?: number;
}

export interface TerminalOptions {
  /** Most output bytes kept per terminal, whatever the agent asks for (default 4 MiB). */
  outputCapBytes?: number;
}

const DEFAULT_CAP = 4 * 1024 * 1024;
/** Released terminals whose output is kept for viewing; older ones are forgotten. */
const KEEP_RELEASED = 20;

export class Terminal {
  readonly id = `term-${randomUUID()}`;
  exitStatus: TerminalExitStatus | undefined;
  released = false;
  /** Resolves when the command itself exits, even if a child it left behind still writes. */
  readonly exited: Promise<TerminalExitStatus>;
  /** Resolves when the output pipe closes: every writer has exited or was killed. */
  readonly outputEnded: Promise<void>;
  readonly pid: number | undefined;
  readonly tree: ProcessTree;
  private readonly out: OutputBuffer;

  constructor(
    readonly spec: TerminalSpec,
    private readonly onOutput: (t: Terminal) => void,
    capBytes = DEFAULT_CAP,
  ) {
    this.out = new OutputBuffer(Math.max(0, Math.min(spec.outputByteLimit ?? Infinity, capBytes)));
    const env = childEnv(spec.env);
    const { file, args } = executableFor(spec.command, spec.args, process.env.SHELL);
    let child: ResultPromise | undefined;
    let spawnError: string | undefined;
    let cgroup: string | undefined;
    try {
      ({ value: child, cgroup } = spawnInCgroup(() =>
        execa(file, args, {
          cwd: spec.cwd,
          env,
          extendEnv: false,
          detached: true, // own process group
          stdin: "ignore",
          all: true,
          buffer: false,
          reject: false,
          encoding: "buffer",
        }),
      ));
    } catch (e) {
      spawnError = e instanceof Error ? e.message : String(e);
    }
    this.pid = child?.pid;
    this.tree = { pid: this.pid, cookie: cookieIn(env), cgroup };
    trackTree(this.tree);
    if (!child) {
      const message = spawnError ?? "could not start";
      this.exited = Promise.resolve().then(() => this.spawnFailed(message));
      this.outputEnded = this.exited.then(() => undefined);
      return;
    }
    const proc = child; // narrowed, for the closures below
    // Output keeps flowing after the exit, until the pipe closes or the tree is killed.
    const all = proc.all!;
    all.on("data", (b: Buffer) => this.append(b));
    this.outputEnded = new Promise((resolve) => finished(all, () => resolve()));
    // execa's own promise waits for the streams, which a background child may hold for ever:
    // the process's `exit` event is what `terminal/wait_for_exit` is about. What the command
    // wrote before it exited may still sit in the pipe, though, and an agent reads the output
    // right after the exit: wait until the pipe closes or goes quiet.
    this.exited = new Promise((resolve) => {
      proc.once("exit", (code, signal) => {
        void drained(all, this.outputEnded).then(() => resolve(this.finish({ exitCode: code, signal })));
      });
      proc.once("error", (e) => {
        if (proc.pid === undefined) resolve(this.spawnFailed(e.message));
      });
    });
    proc.catch(() => undefined);
  }

  get truncated(): boolean {
    return this.out.truncated;
  }

  /** The retained output: the last `outputByteLimit` bytes, starting on a character boundary. */
  output(): string {
    return this.out.text();
  }

  /** About the last `chars` characters (called on every output, so it copies only those). */
  tail(chars: number): string {
    return this.out.tail(chars);
  }

  /** SIGTERM the command and everything it started, SIGKILL after a grace period. */
  async kill(): Promise<void> {
    await killTrees([this.tree], 1000);
  }

  killNow(): void {
    killTreesNow([this.tree]);
  }

  private append(b: Buffer): void {
    this.out.append(b);
    this.onOutput(this);
  }

  private spawnFailed(message: string): TerminalExitStatus {
    this.out.append(Buffer.from(`${message}\n`));
    return this.finish({ exitCode: 127, signal: null });
  }

  private finish(status: TerminalExitStatus): TerminalExitStatus {
    this.exitStatus ??= status;
    this.onOutput(this);
    return this.exitStatus;
  }
}

/** After an exit: the stream ended, or no data for QUIET_MS, or MAX_DRAIN_MS passed (a busy child). */
const QUIET_MS = 50;
const MAX_DRAIN_MS = 1000;

function drained(stream: NodeJS.EventEmitter, ended: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let chunks = 0;
    let armedAt = 0;
    let over = false;
    let quiet: NodeJS.Timeout | undefined;
    const onData = () => chunks++;
    const cap = setTimeout(done, MAX_DRAIN_MS);
    stream.on("data", onData);
    void ended.then(done);
    arm();
    function arm() {
      armedAt = chunks;
      quiet = setTimeout(check, QUIET_MS);
    }
    // Timers run before I/O in a loop turn: after a stall one could fire with data still unread.
    // setImmediate runs after the I/O phase, so the pipe gets one more read before we decide.
    function check() {
      if (chunks !== armedAt) return arm();
      setImmediate(() => (over ? undefined : chunks === armedAt ? done() : arm()));
    }
    function done() {
      over = true;
      clearTimeout(quiet);
      clearTimeout(cap);
      stream.off("data", onData);
      resolve();
    }
  });
}

export class TerminalManager {
  private readonly terminals = new Map<string, Terminal>();

  constructor(
    private readonly onChange: (t: Terminal) => void = () => undefined,
    private readonly options: TerminalOptions = {},
  ) {}

  create(spec: TerminalSpec): Terminal {
    const t = new Terminal(spec, (x) => this.onChange(x), this.options.outputCapBytes ?? DEFAULT_CAP);
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

  /** Kill every terminal's tree (chat closed or editor quitting), with one /proc scan per round. */
  async closeAll(): Promise<void> {
    await killTrees(
      this.all().map((t) => t.tree),
      1000,
    );
  }

  /** `closeAll`, synchronously (host exiting). */
  closeAllNow(): void {
    killTreesNow(this.all().map((t) => t.tree));
  }
}
