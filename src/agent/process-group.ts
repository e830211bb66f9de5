/** Killing whole process groups: agents and terminals start children of their own. */

/** Signal every process in the group led by `pid`; quiet if it is already gone. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): boolean {
  if (!pid) return false;
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    try {
      process.kill(pid, signal);
      return true;
    } catch {
      return false;
    }
  }
}

export function groupAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM the group, then SIGKILL whatever is left after `graceMs`. Resolves when the group is
 * gone (or after the SIGKILL, which cannot be refused).
 */
export async function killGroup(pid: number | undefined, graceMs = 1500): Promise<void> {
  if (!pid || !groupAlive(pid)) return;
  signalGroup(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    if (!groupAlive(pid)) return;
  }
  signalGroup(pid, "SIGKILL");
}

/** Synchronous last resort for process exit handlers, where nothing async runs. */
export function killGroupNow(pid: number | undefined): void {
  signalGroup(pid, "SIGKILL");
}
