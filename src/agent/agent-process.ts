/**
 * The agent as an operating-system process: spawned with execa as the leader of its own process
 * group, talking newline-delimited JSON on stdin/stdout. Its stderr is kept in a ring buffer and
 * handed to the log; it is never parsed as protocol. Stopping it kills its whole tree (group and
 * cookie carriers), so the shells, servers and daemons an agent starts go with it. It never
 * sees the editor's address (child-env.ts).
 */
import { execa, type ResultPromise } from "execa";
import type { Readable, Writable } from "node:stream";
import { TextRing } from "./ring-buffer.js";
import { killTrees, killTreesNow, trackTree, type ProcessTree } from "./process-group.js";
import { childEnv, loopbackUnproxied, cookieIn } from "./child-env.js";
import { spawnInCgroup } from "./cgroup.js";

export interface AgentCommand {
  command: string;
  args?: string[];
  /** Added on top of the editor's environment. */
  env?: Record<string, string>;
  cwd?: string;
}

export interface AgentExit {
  code: number | null;
  signal: string | null;
  /** Set when the process could not be started at all (for example ENOENT). */
  spawnError?: string;
}

export class AgentProcess {
  readonly stderr = new TextRing(64 * 1024);
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly exited: Promise<AgentExit>;
  private readonly child: ResultPromise;
  /** Tracked from the spawn on: the host's exit hook kills it (process-group.ts). */
  private readonly tree: ProcessTree;
  private exitInfo: AgentExit | undefined;

  constructor(
    readonly spec: AgentCommand,
    onStderr?: (text: string) => void,
  ) {
    const env = loopbackUnproxied(childEnv(spec.env));
    const { value: child, cgroup } = spawnInCgroup(() =>
      execa(spec.command, spec.args ?? [], {
        cwd: spec.cwd,
        env,
        extendEnv: false,
        detached: true, // own process group: killing -pid reaches every descendant
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
        buffer: false,
        reject: false,
        stripFinalNewline: false,
        cleanup: true,
        encoding: "buffer",
      }),
    );
    this.child = child;
    this.stdin = this.child.stdin!;
    this.stdout = this.child.stdout!;
    // A write to a dead agent must not crash the host; the peer sees the close instead.
    this.stdin.on("error", () => undefined);
    this.child.stderr!.on("data", (b: Buffer) => {
      const text = b.toString("utf8");
      this.stderr.push(text);
      onStderr?.(text);
    });
    this.tree = { pid: this.child.pid, cookie: cookieIn(env), cgroup };
    trackTree(this.tree);
    // The agent is gone, but what it started may not be, and a daemon holding its stdout would
    // keep the streams (and so `exited`) open forever: take the stragglers down at once.
    this.child.once("exit", () => void killTrees([this.tree], 500));
    this.exited = this.child.then(
      (r) => {
        const failed = r as unknown as {
          failed?: boolean;
          code?: string;
          exitCode?: number;
          signal?: string;
          originalMessage?: string;
        };
        const info: AgentExit = { code: r.exitCode ?? null, signal: r.signal ?? null };
        if (failed.failed && r.exitCode === undefined && !r.signal)
          info.spawnError = failed.originalMessage ?? failed.code ?? "could not start";
        return this.finish(info);
      },
      (e: unknown) => this.finish({ code: null, signal: null, spawnError: e instanceof Error ? e.message : String(e) }),
    );
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get exit(): AgentExit | undefined {
    return this.exitInfo;
  }

  /** Stop the agent and everything it started. */
  async kill(graceMs = 1500): Promise<void> {
    try {
      this.stdin.end();
    } catch {
      // already closed
    }
    await killTrees([this.tree], graceMs);
    await Promise.race([this.exited, new Promise((r) => setTimeout(r, graceMs))]);
  }

  /** SIGKILL the agent and everything it started, synchronously (for a host that is exiting). */
  killNow(): void {
    killTreesNow([this.tree]);
  }

  private finish(info: AgentExit): AgentExit {
    this.exitInfo = info;
    return info;
  }
}

/** Human summary of how an agent ended, with the tail of its stderr. */
export function describeExit(cmd: AgentCommand, exit: AgentExit, stderrTail: string[]): string {
  const name = [cmd.command, ...(cmd.args ?? [])].join(" ");
  const how = exit.spawnError
    ? `could not start \`${name}\`: ${exit.spawnError}`
    : exit.signal
      ? `\`${name}\` was killed by ${exit.signal}`
      : `\`${name}\` exited with code ${exit.code}`;
  return stderrTail.length > 0 ? `${how}\nlast stderr lines:\n${stderrTail.join("\n")}` : how;
}
