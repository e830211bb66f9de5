/**
 * Containment by cgroup (Linux cgroup v2), where the system lets this process make one: every
 * agent and terminal is spawned into a cgroup of its own, and killing the tree kills the cgroup
 * (`cgroup.kill`, or each of its `cgroup.procs`). A child is in its parent's cgroup from the
 * fork, so the host steps into the new cgroup for the (synchronous) spawn and back out: moving
 * the child after the spawn would miss what it forks in its first instant. A process cannot
 * leave its cgroup by setsid, a double fork or clearing its environment, so this reaches the
 * daemons the process group and the cookie (process-group.ts, child-env.ts) miss.
 *
 * Where: a child of this process's own cgroup (`0::<path>` in /proc/self/cgroup, under the
 * cgroup2 mount), which must be writable: root, or a cgroup delegated to the user (systemd
 * user services and `systemd-run --user --scope` delegate theirs). Not used otherwise (no
 * cgroup v2, a read-only /sys/fs/cgroup in a container, a session scope owned by root); then
 * the group and cookie remain, with their limit. If the host could not step back out, the
 * cgroup is never killed (the host is in it) and cgroups are not used again.
 *
 * Escapes: a process may move itself into any cgroup whose cgroup.procs its user may write
 * (and that of the common ancestor). The host's own cgroup was one (it writes there to step
 * back), so the host first moves itself into a leaf of its own folder, `acpchat-<pid>/host`,
 * and steps back there; the folder's cgroups are all that spawns ever touch. What moves into
 * the folder itself, or into the host's leaf (not a descendant of the host), is killed with
 * any tree and at exit. Beyond reach: a cgroup outside the folder the user can write to
 * (Neovim's own, another service's): only a cgroup namespace or another user closes that.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface Base {
  /** This host's folder of cgroups (one per tree below it); undefined when unavailable. */
  dir?: string;
  /** The host's own cgroup: its leaf in `dir`, where it returns after each spawn. */
  own?: string;
  /** The cgroup the host was started in (where it goes back on exit). */
  start?: string;
  /** What was found: shown by :checkhealth. */
  why: string;
}

let base: Base | undefined;
let next = 0;
/** The tree cgroups this host made in its folder; any other folder there was made by someone else. */
const trees = new Set<string>();

/** The cgroup2 mount point, from /proc/self/mountinfo. */
function cgroup2Mount(): string | undefined {
  try {
    for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
      const sep = line.indexOf(" - ");
      if (sep < 0) continue;
      if (line.slice(sep + 3).split(" ")[0] === "cgroup2") return line.slice(0, sep).split(" ")[4];
    }
  } catch {
    // no /proc
  }
  return undefined;
}

function findBase(): Base {
  if (process.platform !== "linux") return { why: "not Linux: no cgroups" };
  const mount = cgroup2Mount();
  if (!mount) return { why: "no cgroup v2 mounted" };
  let own: string | undefined;
  try {
    own = readFileSync("/proc/self/cgroup", "utf8")
      .split("\n")
      .find((l) => l.startsWith("0::"))
      ?.slice(3);
  } catch {
    // no /proc
  }
  if (own === undefined) return { why: "this process is in no cgroup v2" };
  const parent = join(mount, own);
  const dir = join(parent, `acpchat-${process.pid}`);
  try {
    mkdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== "EEXIST")
      return { why: `cannot make a cgroup in ${parent} (${code ?? String(e)}): not delegated to this user` };
  }
  if (!existsSync(join(dir, "cgroup.procs"))) {
    tryRmdir(dir);
    return { why: `${parent} is not a cgroup v2 folder` };
  }
  // The host in a leaf of its own, before any tree: no cgroup a tree's process can move
  // into is then the host's, nor an ancestor of the trees' outside this folder.
  const leaf = join(dir, "host");
  try {
    mkdirSync(leaf, { recursive: true });
    writeFileSync(join(leaf, "cgroup.procs"), String(process.pid));
  } catch (e) {
    stepBack(parent, leaf);
    tryRmdir(leaf);
    tryRmdir(dir);
    return { why: `cannot move this host into a cgroup of its own under ${dir} (${(e as Error).message})` };
  }
  process.once("exit", () => removeAll(dir, parent));
  removeStale(parent);
  return {
    dir,
    own: leaf,
    start: parent,
    why: `each agent and terminal in its own cgroup under ${dir}${existsSync(join(dir, "cgroup.kill")) ? "" : " (no cgroup.kill: killed pid by pid)"}`,
  };
}

/** Whether processes are put in cgroups here, and why (not). */
export function cgroupSupport(): { available: boolean; why: string } {
  base ??= findBase();
  return { available: base.dir !== undefined, why: base.why };
}

/**
 * `spawn()` (synchronous: child_process.spawn returns after the child's exec) run with the host
 * in a new cgroup, so the child starts in it. `cgroup`: its path, when one was used and the host
 * is out of it again.
 */
export function spawnInCgroup<T>(spawn: () => T): { value: T; cgroup?: string } {
  base ??= findBase();
  const { dir: hostDir, own } = base;
  if (!hostDir || !own) return { value: spawn() };
  const dir = join(hostDir, `t${++next}`);
  try {
    mkdirSync(dir);
    trees.add(dir);
    writeFileSync(join(dir, "cgroup.procs"), String(process.pid));
  } catch {
    if (stepBack(own, dir)) tryRmdir(dir);
    return { value: spawn() };
  }
  let value: T;
  try {
    value = spawn();
  } finally {
    if (!stepBack(own, dir)) {
      // Never kill a cgroup the host is in; use none from now on.
      base = { why: `could not leave the cgroup ${dir} after a spawn: cgroups are not used` };
    }
  }
  return base.dir ? { value, cgroup: dir } : { value };
}

/** Move the host back into its own cgroup `own`; whether it is out of `dir`. */
function stepBack(own: string, dir: string): boolean {
  try {
    writeFileSync(join(own, "cgroup.procs"), String(process.pid));
  } catch {
    // checked below
  }
  return !cgroupPids(dir).includes(process.pid);
}

/** The pids in cgroup `dir` (none when it is gone). */
export function cgroupPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, "cgroup.procs"), "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map(Number);
  } catch {
    return [];
  }
}

/** Whether any process is left in cgroup `dir` (`populated` of cgroup.events). */
export function cgroupPopulated(dir: string): boolean {
  try {
    return /^populated 1$/m.test(readFileSync(join(dir, "cgroup.events"), "utf8"));
  } catch {
    return false;
  }
}

/**
 * Send `signal` to every process in cgroup `dir`; SIGKILL through cgroup.kill where there is one.
 * Processes that moved out of their tree into this host's folder or its leaf are killed too.
 */
export function signalCgroup(dir: string, signal: NodeJS.Signals): void {
  killEscaped();
  if (signal === "SIGKILL") {
    try {
      writeFileSync(join(dir, "cgroup.kill"), "1");
      return;
    } catch {
      // no cgroup.kill (Linux < 5.14): pid by pid below
    }
  }
  for (const pid of cgroupPids(dir)) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone meanwhile
    }
  }
}

/**
 * SIGKILL what moved out of a tree into this host's folder (no process of the host's lives
 * there) or into the host's leaf while not a descendant of the host (its own children, git or
 * npm say, are; a daemon that left a tree is not). Done now and again shortly after: a
 * daemon's parent chain still reaches the host until the tree it left has died.
 */
export function killEscaped(again = true): void {
  const { dir, own } = base ?? {};
  if (!dir || !own) return;
  for (const pid of cgroupPids(dir)) kill(pid);
  for (const pid of cgroupPids(own)) if (pid !== process.pid && !descendsFromHost(pid)) kill(pid);
  // A cgroup a process made itself, in the folder or under the host's leaf, is no tree's: all
  // of it is killed and removed (cgroup.kill there would be the escape's own way out).
  for (const f of [...subfolders(dir).filter((d) => d !== own && !trees.has(d)), ...subfolders(own)]) killTree(f);
  if (again) setTimeout(() => killEscaped(false), 300).unref();
}

/** The cgroup folders directly in `dir`. */
function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => join(dir, e.name));
  } catch {
    return [];
  }
}

/** SIGKILL everything in cgroup `dir` and below it, then remove the folders that emptied (deepest first). */
function killTree(dir: string): void {
  for (const sub of subfolders(dir)) killTree(sub);
  for (const pid of cgroupPids(dir)) if (pid !== process.pid) kill(pid);
  tryRmdir(dir);
}

/** Whether `pid`'s chain of parents reaches this process. */
function descendsFromHost(pid: number): boolean {
  for (let p = pid, n = 0; p > 1 && n < 64; n++) {
    if (p === process.pid) return true;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      p = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    } catch {
      return false;
    }
  }
  return false;
}

function kill(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // gone meanwhile
  }
}

/** Remove cgroup `dir` when it is empty (it cannot be removed before); whether it is gone. */
export function removeCgroup(dir: string): boolean {
  for (const sub of subfolders(dir)) killTree(sub);
  const gone = tryRmdir(dir) || !existsSync(dir);
  if (gone) trees.delete(dir);
  return gone;
}

function tryRmdir(dir: string): boolean {
  try {
    rmdirSync(dir);
    return true;
  } catch {
    return false;
  }
}

/**
 * On the host's exit (after process-group.ts killed every tree): the cgroups left, whatever
 * moved into the folder or the host's leaf (the host's own children end with it), then the
 * host goes back to the cgroup it started in and the folder is removed. A killed cgroup
 * empties a moment after cgroup.kill: waited for, briefly.
 */
function removeAll(dir: string, start: string): void {
  const deadline = Date.now() + 300;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const leaf = join(dir, "host");
  for (;;) {
    let left = false;
    for (const pid of [...cgroupPids(dir), ...cgroupPids(leaf)]) if (pid !== process.pid) kill(pid);
    for (const f of subfolders(leaf)) killTree(f);
    // Every folder but the host's leaf: the trees, and any cgroup a process made there itself.
    for (const t of subfolders(dir).filter((d) => d !== leaf)) {
      if (cgroupPopulated(t)) signalCgroup(t, "SIGKILL");
      if (!removeCgroup(t)) left = true;
    }
    if (!left || Date.now() > deadline) break;
    Atomics.wait(cell, 0, 0, 5);
  }
  stepBack(start, leaf);
  tryRmdir(leaf);
  tryRmdir(dir);
}

/**
 * The folders of hosts that died without their exit hook (SIGKILL): what is left in them is
 * killed and they are removed. A folder whose pid runs again (reused) is left alone.
 */
function removeStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent).filter((n) => /^acpchat-\d+$/.test(n) && n !== `acpchat-${process.pid}`);
  } catch {
    return;
  }
  for (const name of names) {
    try {
      process.kill(Number(name.slice("acpchat-".length)), 0);
      continue;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ESRCH") continue; // alive, another user's
    }
    const dir = join(parent, name);
    for (const pid of cgroupPids(dir)) kill(pid);
    // Every folder in it, the trees, the leaf and any a process made itself, with all below.
    const all = subfolders(dir);
    for (const t of all) if (cgroupPopulated(t)) signalCgroup(t, "SIGKILL");
    for (const t of all) killTree(t);
    for (const t of all) setTimeout(() => removeCgroup(t) && tryRmdir(dir), 100).unref();
    tryRmdir(dir);
  }
}
