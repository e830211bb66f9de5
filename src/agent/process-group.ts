/**
 * Killing what a spawned process started. Agents and terminals start children of their own; a
 * process group holds most of them, but not daemons that call setsid or are double-forked. So a
 * "tree" is a group leader plus a cookie (child-env.ts): killing it signals the group and every
 * process that carries the cookie. A daemon that also clears the cookie from its environment is
 * reached only through the tree's cgroup, where the system allows one (cgroup.ts).
 */
import { readdirSync, readFileSync } from "node:fs";
import { cgroupPopulated, removeCgroup, signalCgroup } from "./cgroup.js";
import { pidsWithCookie } from "./proc-cookie.js";

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

export interface ProcessTree {
  /** Leader of the process group (undefined when the spawn failed). */
  readonly pid: number | undefined;
  readonly cookie: string;
  /** Its own cgroup, when the system allows one (cgroup.ts contain()). */
  readonly cgroup?: string;
}

/** Trees this host started and has not yet seen empty: what the exit hook must reach. */
const trees = new Set<ProcessTree>();
/**
 * Trees seen empty. Nothing can bring one back (only its members carry the cookie), so they are
 * neither scanned nor signalled again: their leader's pid may belong to someone else by then.
 */
const emptied = new WeakSet<ProcessTree>();
let exitHookInstalled = false;

/** Remember a tree until it is killed, and take it down if the host exits first. */
export function trackTree(tree: ProcessTree): void {
  trees.add(tree);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", killAllNow);
}

const tick = () => new Promise((r) => setTimeout(r, 25));

/**
 * SIGTERM every group and cookie carrier, then SIGKILL whatever is left after `graceMs`.
 * Resolves when the trees are empty (or after the SIGKILL passes, which cannot be refused).
 */
export async function killTrees(all: readonly ProcessTree[], graceMs = 1500): Promise<void> {
  const list = all.filter((t) => !emptied.has(t));
  if (list.length === 0) return;
  const cookies = cookieSet(list);
  const groups = () => list.filter((t) => groupAlive(t.pid) || (t.cgroup !== undefined && cgroupPopulated(t.cgroup)));
  const carriers = () => pidsWithCookie(cookies);
  if (groups().length === 0 && carriers().length === 0) return forget(list);
  // Group first: a shell that dies of the SIGTERM reports that signal as its end.
  for (const t of list) signalGroup(t.pid, "SIGTERM");
  for (const pid of carriers()) signal(pid, "SIGTERM");
  for (const t of list) if (t.cgroup) signalCgroup(t.cgroup, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await tick();
    if (groups().length === 0 && carriers().length === 0) return forget(list);
  }
  killTreesNow(list);
  await tick();
}

/**
 * SIGKILL the groups and every cookie carrier, scanning again until none is found (a process may
 * fork between a scan and its kill). Synchronous, for exit handlers where nothing async runs.
 */
export function killTreesNow(all: readonly ProcessTree[]): void {
  const list = all.filter((t) => !emptied.has(t));
  if (list.length === 0) return;
  const cookies = cookieSet(list);
  for (const t of list) signalGroup(t.pid, "SIGKILL");
  // The cgroup at once: none of its processes can fork out of it meanwhile.
  for (const t of list) if (t.cgroup) signalCgroup(t.cgroup, "SIGKILL");
  for (let pass = 0; pass < 20; pass++) {
    const pids = pidsWithCookie(cookies);
    if (pids.length === 0) return forget(list);
    for (const pid of pids) signal(pid, "SIGKILL");
  }
}

/** Kill every tree this host started, at once (host exit, editor gone). */
export function killAllNow(): void {
  killTreesNow([...trees]);
}

/**
 * The live trees whose group leader is `pid` (leaders die, pids get reused: there may be
 * several). A tree is tracked from its spawn until seen empty, so one not found is gone.
 */
function treesLedBy(pid: number | undefined): ProcessTree[] {
  return pid ? [...trees].filter((t) => t.pid === pid) : [];
}

/** `killTreesNow` for the tree led by `pid`, if this host started it and it may still run. */
export function killGroupNow(pid: number | undefined): void {
  killTreesNow(treesLedBy(pid));
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone meanwhile
  }
}

function cookieSet(list: readonly ProcessTree[]): Set<string> {
  return new Set(list.map((t) => t.cookie).filter((c) => c !== ""));
}

function forget(list: readonly ProcessTree[]): void {
  for (const t of list) {
    trees.delete(t);
    emptied.add(t);
    if (t.cgroup) removeWhenEmpty(t.cgroup, 20);
  }
}

/** A killed cgroup empties a moment later; only then can it be removed (tried for about a second). */
function removeWhenEmpty(dir: string, tries: number): void {
  if (removeCgroup(dir) || tries <= 0) return;
  setTimeout(() => removeWhenEmpty(dir, tries - 1), 50).unref();
}
