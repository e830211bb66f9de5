/**
 * CPU time of this test process, for bounds against runaway work (quadratic loops, patterns
 * that backtrack): on a loaded machine the clock also counts waiting for a core, which is not
 * the code's doing, so a clock bound fails there without a bug.
 */
import { readFileSync } from "node:fs";

/** Milliseconds of CPU (user + system) this process spent since `since` (a process.cpuUsage()). */
export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
}

/** Milliseconds of CPU that `f` took. */
export function cpuMs(f: () => unknown): number {
  const t = process.cpuUsage();
  f();
  return cpuMsSince(t);
}

/**
 * Milliseconds of CPU of this process and of its children it has waited for (git, tar, ...),
 * from /proc/self/stat (Linux; 10 ms ticks): for bounds on work that runs in child processes.
 */
export function cpuWithChildrenMs(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // Fields after the command's closing parenthesis: utime is the 14th field, then stime,
  // cutime, cstime (clock ticks; 100 per second on Linux).
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return [11, 12, 13, 14].reduce((n, i) => n + Number(f[i]), 0) * 10;
}
