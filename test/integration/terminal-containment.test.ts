/**
 * Nothing a terminal or an agent started outlives it: real daemons (setsid, setsid -f, a double
 * fork, setsid + double fork, nohup) are gone after kill, release, closeAll, closeAllNow, the
 * synchronous kills for an exiting host, and the host's exit itself.
 */
import { afterAll, describe, expect, it } from "vitest";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { TerminalManager } from "../../src/terminals/terminal-manager.js";
import { AgentProcess } from "../../src/agent/agent-process.js";
import { killAllNow, killGroupNow, pidAlive, signalGroup } from "../../src/agent/process-group.js";
import { cgroupSupport } from "../../src/agent/cgroup.js";
import { pidsWithCookie } from "../../src/agent/proc-cookie.js";

const root = join(import.meta.dirname, "..", "..");
const base = mkdtempSync(join(tmpdir(), "acpchat-contain-"));
const script = join(base, "daemons.sh");
const NAMES = ["leader", "setsid", "setsid-f", "double", "daemon", "nohup"] as const;
/** The ones that left the terminal's process group (a group kill cannot reach them). */
const ESCAPED = ["setsid", "setsid-f", "daemon"] as const;

// Processes that escape a process group the way real daemons do; each records its pid in $1.
// $2 is what the leader does next: wait (sleep), exit (leave them behind), cat (stay an agent).
writeFileSync(
  script,
  String.raw`D="$1"
mkdir -p "$D"
setsid sh -c 'echo $$ > "$0/setsid"; exec sleep 300' "$D" &
setsid -f sh -c 'echo $$ > "$0/setsid-f"; exec sleep 300' "$D" </dev/null >/dev/null 2>&1
sh -c '(sh -c "echo \$\$ > \"\$0/double\"; exec sleep 300" "$0" &) &' "$D"
setsid sh -c '(sh -c "echo \$\$ > \"\$0/daemon\"; exec sleep 300" "$0" </dev/null >/dev/null 2>&1 &) &' "$D" </dev/null >/dev/null 2>&1
nohup sh -c 'echo $$ > "$0/nohup"; exec sleep 300' "$D" >/dev/null 2>&1 &
for n in setsid setsid-f double daemon nohup; do while [ ! -s "$D/$n" ]; do sleep 0.02; done; done
echo $$ > "$D/leader"
echo started
case "$2" in
  exit) exit 0 ;;
  cat) exec cat ;;
  *) exec sleep 300 ;;
esac
`,
);

let runs = 0;
const everyPid: number[] = [];
afterAll(() => {
  killAllNow(); // whatever a failed test left behind
  for (const pid of everyPid) if (pidAlive(pid)) process.kill(pid, "SIGKILL");
  rmSync(base, { recursive: true, force: true });
});

async function until(ok: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Gone without a turn of the event loop, as after an exiting host's synchronous kill. */
function allGoneSync(pids: number[], ms = 1000): void {
  const deadline = Date.now() + ms;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (pids.some((p) => pidAlive(p))) {
    if (Date.now() > deadline) throw new Error(`pids ${pids.filter((p) => pidAlive(p)).join(" ")} still alive`);
    Atomics.wait(cell, 0, 0, 10);
  }
}

function readPids(dir: string): Record<(typeof NAMES)[number], number> | undefined {
  const out: Partial<Record<(typeof NAMES)[number], number>> = {};
  for (const n of NAMES) {
    const f = join(dir, n);
    const pid = existsSync(f) ? Number(readFileSync(f, "utf8").trim()) : NaN;
    if (!Number.isInteger(pid) || pid <= 0) return undefined;
    out[n] = pid;
  }
  return out as Record<(typeof NAMES)[number], number>;
}

function pgrp(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

/** A fresh pid directory; `how` is the script's second argument. */
function run(how: "wait" | "exit" | "cat"): { dir: string; line: string; args: string[] } {
  const dir = join(base, `run${++runs}`);
  return { dir, line: `sh '${script}' '${dir}' ${how}`, args: [script, dir, how] };
}

/** Waits until every daemon of `dir` runs, checks that some escaped the group, returns pids. */
async function daemonsOf(dir: string): Promise<number[]> {
  await until(() => readPids(dir) !== undefined, `the daemons of ${dir}`);
  const pids = readPids(dir)!;
  everyPid.push(...Object.values(pids));
  const daemons = NAMES.filter((n) => n !== "leader").map((n) => pids[n]);
  expect(daemons.every((p) => pidAlive(p))).toBe(true);
  for (const n of ESCAPED) expect(pgrp(pids[n])).not.toBe(pids.leader);
  return [pids.leader, ...daemons];
}

async function allGone(pids: number[], ms = 3000): Promise<void> {
  await until(
    () => pids.every((p) => !pidAlive(p)),
    `pids ${pids.filter((p) => pidAlive(p)).join(" ")} to be gone`,
    ms,
  );
}

describe("the daemons escape a process group", () => {
  it("a group kill alone leaves the setsid ones running (so the tests below mean something)", async () => {
    const m = new TerminalManager();
    const r = run("wait");
    const t = m.create({ command: r.line, cwd: base });
    const pids = await daemonsOf(r.dir);
    signalGroup(t.pid, "SIGKILL");
    await t.exited;
    await new Promise((res) => setTimeout(res, 200));
    const left = readPids(r.dir)!;
    for (const n of ESCAPED) expect(pidAlive(left[n])).toBe(true);
    await m.closeAll();
    await allGone(pids);
  });
});

describe("terminals take everything they started with them", () => {
  it("terminal/kill", async () => {
    const m = new TerminalManager();
    const r = run("wait");
    const t = m.create({ command: r.line, cwd: base });
    const pids = await daemonsOf(r.dir);
    await t.kill();
    await allGone(pids);
    expect(await t.exited).toEqual({ exitCode: null, signal: "SIGTERM" });
  });

  it("terminal/release, after the command itself has exited", async () => {
    const m = new TerminalManager();
    const r = run("exit");
    const t = m.create({ command: r.line, cwd: base });
    const pids = await daemonsOf(r.dir);
    expect(await t.exited).toEqual({ exitCode: 0, signal: null });
    expect(pids.slice(1).every((p) => pidAlive(p))).toBe(true);
    await m.release(t.id);
    await allGone(pids);
    await t.outputEnded; // the setsid daemon held the pipe; killed, it lets go
    expect(m.find(t.id)?.output()).toBe("started\n");
  });

  it("closeAll (the chat closed)", async () => {
    const m = new TerminalManager();
    const r1 = run("wait");
    const r2 = run("exit");
    m.create({ command: r1.line, cwd: base });
    m.create({ command: r2.line, cwd: base });
    const pids = [...(await daemonsOf(r1.dir)), ...(await daemonsOf(r2.dir))];
    await m.closeAll();
    await allGone(pids);
  });

  it("closeAllNow (synchronous, for a host that is exiting)", async () => {
    const m = new TerminalManager();
    const r1 = run("wait");
    const r2 = run("exit");
    m.create({ command: r1.line, cwd: base });
    m.create({ command: "sh", args: r2.args, cwd: base });
    const pids = [...(await daemonsOf(r1.dir)), ...(await daemonsOf(r2.dir))];
    m.closeAllNow();
    allGoneSync(pids);
  });
});

describe("the agent takes everything it started with it", () => {
  it("AgentProcess.kill", async () => {
    const r = run("cat");
    const a = new AgentProcess({ command: "sh", args: r.args, cwd: base });
    const pids = await daemonsOf(r.dir);
    await a.kill();
    await allGone(pids);
  });

  it("AgentProcess.killNow, and killGroupNow(pid) as Chat.killNow calls it", async () => {
    const r1 = run("cat");
    const r2 = run("cat");
    const a1 = new AgentProcess({ command: "sh", args: r1.args, cwd: base });
    const a2 = new AgentProcess({ command: "sh", args: r2.args, cwd: base });
    const pids1 = await daemonsOf(r1.dir);
    const pids2 = await daemonsOf(r2.dir);
    a1.killNow();
    allGoneSync(pids1);
    expect(pids2.every((p) => pidAlive(p))).toBe(true); // another tree is not touched
    killGroupNow(a2.pid);
    allGoneSync(pids2);
  });

  it("an agent that exits by itself: its daemons go, and `exited` does not wait for the one holding stdout", async () => {
    const r = run("exit");
    const a = new AgentProcess({ command: "sh", args: r.args, cwd: base });
    const exit = await Promise.race([a.exited, new Promise<"hung">((res) => setTimeout(() => res("hung"), 3000))]);
    expect(exit).toEqual({ code: 0, signal: null });
    // The leader wrote its pid after every daemon had written theirs: they all ran.
    const pids = Object.values(readPids(r.dir)!);
    everyPid.push(...pids);
    await allGone(pids);
  });

  it("killAllNow reaches every tree this host started, terminals and agents", async () => {
    const m = new TerminalManager();
    const r1 = run("wait");
    const r2 = run("cat");
    m.create({ command: r1.line, cwd: base });
    new AgentProcess({ command: "sh", args: r2.args, cwd: base });
    const pids = [...(await daemonsOf(r1.dir)), ...(await daemonsOf(r2.dir))];
    killAllNow();
    allGoneSync(pids);
  });
});

describe("the host's exit", () => {
  it("takes every tree with it, though nobody killed anything", { timeout: 30_000 }, async () => {
    const dir = join(base, "host");
    mkdirSync(dir);
    const bundle = join(dir, "bundle.cjs");
    await build({
      stdin: {
        contents: `export { TerminalManager } from "./src/terminals/terminal-manager.ts";\nexport { AgentProcess } from "./src/agent/agent-process.ts";\n`,
        resolveDir: root,
        sourcefile: "host-entry.ts",
        loader: "ts",
      },
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      outfile: bundle,
      logLevel: "warning",
    });
    // The helper exits once every daemon has written its pid: they all ran.
    execFileSync(process.execPath, [join(root, "test/agents/terminal-host.mjs"), bundle, script, dir], {
      timeout: 20_000,
      stdio: "ignore",
    });
    const pids = [join(dir, "term"), join(dir, "agent")].flatMap((d) => Object.values(readPids(d)!));
    everyPid.push(...pids);
    expect(pids).toHaveLength(2 * NAMES.length);
    await allGone(pids, 1000);
  });
});

/**
 * A daemon that leaves the process group (setsid) and clears ACPCHAT_PROC_COOKIE from its
 * environment: neither the group kill nor the cookie scan finds it. Only a cgroup holds it, so
 * these run where this host can make cgroups (cgroupSupport(); see :checkhealth acpchat).
 */
const cgroups = cgroupSupport();
describe.skipIf(!cgroups.available)(`a daemon that clears the cookie too (${cgroups.why})`, () => {
  /** A command line that starts such a daemon (its pid in `dir`/cleared), then `then`. */
  const line = (dir: string, then: string) =>
    `mkdir -p '${dir}'; setsid sh -c 'echo $$ > "$0/cleared.tmp"; mv "$0/cleared.tmp" "$0/cleared"; exec env -u ACPCHAT_PROC_COOKIE sleep 300' '${dir}' </dev/null >/dev/null 2>&1 & ${then}`;
  async function daemon(dir: string): Promise<number> {
    await until(() => existsSync(join(dir, "cleared")), "the daemon");
    const pid = Number(readFileSync(join(dir, "cleared"), "utf8").trim());
    everyPid.push(pid);
    // It escaped both: another group, no cookie.
    await until(
      () => !readFileSync(`/proc/${pid}/environ`, "latin1").includes("ACPCHAT_PROC_COOKIE="),
      "the exec without the cookie",
    );
    expect(pgrp(pid)).toBe(pid);
    expect(pidsWithCookie(new Set([readFileSync(`/proc/${pid}/environ`, "latin1")])).includes(pid)).toBe(false);
    return pid;
  }

  it("terminal/kill and closeAll reach it through the terminal's cgroup", async () => {
    const m = new TerminalManager();
    const d1 = join(base, `cleared${++runs}`);
    const d2 = join(base, `cleared${++runs}`);
    const t = m.create({ command: line(d1, "sleep 300"), cwd: base });
    m.create({ command: line(d2, "exit 0"), cwd: base });
    const p1 = await daemon(d1);
    const p2 = await daemon(d2);
    await t.kill();
    await allGone([p1]);
    expect(pidAlive(p2)).toBe(true);
    await m.closeAll();
    await allGone([p2]);
  });

  it("AgentProcess.killNow and killAllNow reach it through the agent's cgroup", async () => {
    const d1 = join(base, `cleared${++runs}`);
    const d2 = join(base, `cleared${++runs}`);
    const a = new AgentProcess({ command: "sh", args: ["-c", line(d1, "exec cat")], cwd: base });
    new AgentProcess({ command: "sh", args: ["-c", line(d2, "exec cat")], cwd: base });
    const p1 = await daemon(d1);
    const p2 = await daemon(d2);
    a.killNow();
    allGoneSync([p1]);
    expect(pidAlive(p2)).toBe(true);
    killAllNow();
    allGoneSync([p2]);
  });
});
