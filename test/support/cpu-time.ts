/**
 * CPU time of this test process, for bounds against runaway work (quadratic loops, patterns
 * that backtrack): on a loaded machine the clock also counts waiting for a core, which is not
 * the code's doing, so a clock bound fails there without a bug.
 */

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
