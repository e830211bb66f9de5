/** Killing whole process groups: agents and terminals start children of their own. */
import { readdirSync, readFileSync } from "node:fs";

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

/** `state` and `pgrp` of a process from /proc (undefined when it does not exist). */
function procStat(pid: number): { state: string; pgrp: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { state: fields[0]!, pgrp: Number(fields[2]) };
  } catch {
    return undefined;
  }
}

const hasProc = (() => {
  try {
    readdirSync("/proc/self");
    return true;
  } catch {
    return false;
  }
})();

/** Whether a process is running (a zombie counts as gone: it has exited and holds nothing). */
export function pidAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  if (hasProc) {
    const s = procStat(pid);
    return s !== undefined && s.state !== "Z" && s.state !== "X";
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether any living process is left in the group. Zombies do not count: where PID 1 does not
 * reap orphans (some containers), killed members linger as zombies forever.
 */
export function groupAlive(pgid: number | undefined): boolean {
  if (!pgid) return false;
  try {
    process.kill(-pgid, 0);
  } catch {
    return false;
  }
  if (!hasProc) return true;
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const s = procStat(pid);
    if (s && s.pgrp === pgid && s.state !== "Z" && s.state !== "X") return true;
  }
  return false;
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
  await new Promise((r) => setTimeout(r, 25));
}

/** Synchronous last resort for process exit handlers, where nothing async runs. */
export function killGroupNow(pid: number | undefined): void {
  signalGroup(pid, "SIGKILL");
}
