/**
 * One Neovim (and so one Node host) for the tests of a file, per Neovim binary: starting a
 * Neovim with its host costs ~0.7 s of CPU, most of an end-to-end test's. A file opts in with
 * shareNvim(); a test that must not share (it kills the host, quits Neovim, measures the
 * editor's lateness, attaches a UI, needs a fresh start) calls ownNvim() first.
 *
 * Between two tests the harness closes every chat and waits until the editor's process tree is
 * down to Neovim and its host (the agents, language servers and jobs are gone), checks the ACP
 * records as quit() does, then puts the editor back as it started (test/nvim/shared-reset.lua).
 * Each test gets folders of its own (t.dir: cwd and XDG folders). A test that failed, an editor
 * whose host restarted, or a reset that did not come clean: that Neovim is quit, and the next
 * test starts a fresh one, so a failure never cascades into unrelated tests.
 */
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach } from "vitest";
import { ROOT, startNvim, type NvimBin, type TestNvim } from "./nvim.js";

interface Shared {
  key: string;
  base: TestNvim;
  /** The host generation when the current test began (a different one after: it restarted). */
  generation: number;
  /** Handed to a test and not yet reset. */
  busy: boolean;
}

let enabled = false;
let own = false;
/** The shared Neovims, one per binary (a file's describe blocks take turns with them). */
const pool = new Map<string, Shared>();
/**
 * For the record ($ACPCHAT_SHARED_LOG): shared Neovims started, reused, Neovims started apart
 * (own, other init, a second in a test, sharing off), and why shared ones were dropped.
 */
let started = 0;
let reused = 0;
let separate = 0;
const dropped: string[] = [];

/**
 * This file's tests share one Neovim per binary (see the top of this module), when
 * ACPCHAT_SHARE_NVIM=1. Off by default: two whole Neovim-lane runs (own, then shared; loads 3-10
 * and 5-13) took 1484 and 1412 CPU-s, 5 % less, and the shared run was not green (its failures
 * were timing under load and two tests fixed since: seams' late "crashed", windows' 400 ms
 * race). No green whole run with sharing yet; every green landing so far ran without it.
 */
export function shareNvim(): void {
  enabled = process.env.ACPCHAT_SHARE_NVIM === "1";
}

/** This test starts a Neovim of its own, as without shareNvim(). */
export function ownNvim(): void {
  own = true;
}

const RESET = join(ROOT, "test/nvim/shared-reset.lua");
/** Rejects once `t`'s Neovim exits: a call to a Neovim that died (a crash) never answers. */
const exits = new WeakMap<TestNvim["proc"], Promise<never>>();
function exitOf(t: TestNvim): Promise<never> {
  let p = exits.get(t.proc);
  if (!p) {
    p = new Promise<never>((_, reject) => {
      const gone = () => reject(new Error(`Neovim exited (${t.proc.exitCode ?? t.proc.signalCode})`));
      if (t.proc.exitCode !== null || t.proc.signalCode !== null) gone();
      else t.proc.once("exit", gone);
    });
    p.catch(() => undefined);
    exits.set(t.proc, p);
  }
  return p;
}
/**
 * How long one of the harness's calls to a shared Neovim may take. A Neovim that stopped
 * answering (blocked in a prompt) kept the file's next tests waiting out their 60 s each on it
 * (daily-wear, 8 tests): past this it is killed and dropped, and the next test starts a fresh one.
 * A busy machine answers these small calls in well under a second.
 */
let ANSWER_MS = 15_000;
/** The harness's own test (shared-recovery) waits less for a Neovim it made stop answering. */
export function answerWithin(ms: number): void {
  ANSWER_MS = ms;
}
/** t.lua(), failing when Neovim exits first or does not answer within ANSWER_MS. */
function call(t: TestNvim, code: string, args: unknown[] = []): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`Neovim did not answer within ${ANSWER_MS} ms`)), ANSWER_MS);
  });
  return Promise.race([t.lua(code, args), exitOf(t), late]).finally(() => clearTimeout(timer));
}
const reset = (t: TestNvim, fn: string, args: unknown[] = []) =>
  call(t, `return package.loaded.acpchat_test_shared.${fn}(...)`, args);

function freshDir(records: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-e2e-")));
  // As startNvim() makes them, with what Neovim makes at its start (data/nvim, state/nvim).
  for (const d of ["config", "data/nvim", "state/nvim", "cache", "work"]) mkdirSync(join(dir, d), { recursive: true });
  // The host (and so every agent it starts) keeps the records folder of its start.
  symlinkSync(records, join(dir, "records"));
  return dir;
}

/**
 * A Neovim for this test: the shared one, reset, when the file shares and the test may;
 * undefined when the caller should start its own.
 */
export async function acquire(
  bin: NvimBin,
  setup: Record<string, unknown>,
  env: Record<string, string>,
  init: string | undefined,
): Promise<TestNvim | undefined> {
  const key = `${bin.path}\0${JSON.stringify(env)}`;
  // A second Neovim in the same test is its own too.
  let s = pool.get(bin.path);
  if (!enabled || own || init !== undefined || s?.busy) return (separate++, undefined);
  if (s && s.key !== key) await drop(s, "another environment");
  else if (s && !alive(s.base)) await drop(s, "Neovim exited");
  s = pool.get(bin.path);
  if (!s) {
    s = { key, base: await startNvim(bin, {}, env), generation: 0, busy: false };
    pool.set(bin.path, s);
    started++;
  } else reused++;
  const dir = freshDir(join(s.base.dir, "records"));
  try {
    if (!(await call(s.base, "return package.loaded.acpchat_test_shared ~= nil")))
      await call(
        s.base,
        "package.loaded.acpchat_test_shared = dofile(...); package.loaded.acpchat_test_shared.snapshot()",
        [RESET],
      );
    if (!(await reset(s.base, "begin", [dir, setup]))) {
      await drop(s, "a local directory (:lcd) survived the reset");
      return undefined;
    }
    s.generation = ((await reset(s.base, "host")) as { generation: number }).generation;
  } catch (e) {
    // This test starts a Neovim of its own instead: one that stopped answering fails no test.
    await drop(s, `it could not be set up for the test: ${(e as Error).message.split("\n")[0]}`).catch(() => undefined);
    separate++;
    return undefined;
  }
  s.busy = true;
  return { ...s.base, dir };
}

function alive(t: TestNvim): boolean {
  return t.proc.exitCode === null && t.proc.signalCode === null;
}

async function drop(s: Shared, why?: string): Promise<void> {
  for (const [k, v] of pool) if (v === s) pool.delete(k);
  if (why) dropped.push(why);
  // quit() asks Neovim first: one that does not answer would only cost its 5 s wait.
  if (why && / did not answer /.test(why)) s.base.proc.kill("SIGKILL");
  await s.base.quit();
}

/** Every process below `pid` (read from /proc). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${p}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses.
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(p));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c);
      walk(c);
    }
  };
  walk(pid);
  return out;
}

/** The editor's process tree is down to Neovim and its host (its `env` wrapper execs node). */
async function settled(t: TestNvim, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    const host = ((await reset(t, "host")) as { channel: number }).channel;
    let hostPid = -1;
    let chats = 0;
    if (host) {
      hostPid = (await call(t, "local ok, p = pcall(vim.fn.jobpid, ...); return ok and p or -1", [host])) as number;
      chats = (await call(t, "return #require('acpchat.host.bridge').call_sync('chats', {}, 5000)")) as number;
    }
    const rest = descendants(t.proc.pid!).filter((p) => p !== hostPid);
    if (chats === 0 && rest.length === 0) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * After each test (chat.ts's afterEach): `t` is the shared Neovim or one of the test's own.
 * Returns true when `t` was the shared one (then it is reset or dropped, not quit by the caller).
 */
export async function release(t: TestNvim, failed: boolean): Promise<boolean> {
  const s = [...pool.values()].find((v) => v.base.proc === t.proc);
  if (!s) return false;
  s.busy = false;
  try {
    if (!alive(s.base)) return (await drop(s, "Neovim exited"), true);
    // State an earlier test left: Node still drawing into a chat it closed. Fails this test.
    const strays = (await reset(s.base, "strays")) as string[];
    if (strays.length > 0)
      throw new Error(`the shared Neovim got events for chats of earlier tests:\n${strays.join("\n")}`);
    if (failed) return (await drop(s, "the test failed"), true);
    const host = (await reset(s.base, "host")) as { channel: number; generation: number };
    if (host.generation > Math.max(s.generation, 1)) return (await drop(s, "the host restarted"), true);
    if (host.generation > 0 && !host.channel) return (await drop(s, "the host exited"), true);
    const cannot = (await reset(s.base, "close")) as string | null;
    if (cannot) return (await drop(s, cannot), true);
    if (!(await settled(s.base, 10_000))) return (await drop(s, "processes outlived the test's chats"), true);
    // quit()'s check of the ACP records, then an empty folder for the next test.
    checkRecords(s.base);
    const left = (await reset(s.base, "restore")) as string | null;
    if (left) return (await drop(s, left), true);
  } catch (e) {
    await drop(s, `the reset failed: ${(e as Error).message.split("\n")[0]}`).catch(() => undefined);
    throw e;
  }
  return true;
}

function checkRecords(t: TestNvim): void {
  const records = join(t.dir, "records");
  try {
    t.checkRecords();
  } finally {
    for (const f of readdirSync(records)) rmSync(join(records, f), { force: true });
  }
}

// Registered before chat.ts's afterEach, so they run after it (hooks run as a stack).
let file = "?";
afterEach((ctx) => {
  own = false;
  file = ctx.task.file.filepath;
});
afterAll(async () => {
  for (const s of [...pool.values()]) await drop(s);
  const log = process.env.ACPCHAT_SHARED_LOG;
  const name = file;
  if (log && started + reused + separate > 0)
    appendFileSync(log, `${JSON.stringify({ file: name.replace(ROOT, ""), started, reused, separate, dropped })}\n`);
});
