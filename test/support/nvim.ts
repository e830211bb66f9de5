/**
 * A real headless Neovim per test, with isolated XDG folders and the plugin loaded from this
 * checkout the way a user loads it (plugin/acpchat.lua registers the remote plugin).
 * Binaries: $NVIM_BINS (colon-separated), else every .cache/nvim/<version>/usr/bin/nvim, else
 * `nvim` on PATH.
 */
import { spawn, execFileSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { attach, type NeovimClient } from "neovim";
import { readRecord, validateClientMessages } from "./conformance.js";

/** Everything the client sent to fake agents during a test conforms to the official schema. */
function assertConformant(recordDir: string): void {
  if (!existsSync(recordDir)) return;
  for (const f of readdirSync(recordDir)) {
    const { received, sent } = readRecord(join(recordDir, f));
    const { violations } = validateClientMessages(received, sent);
    if (violations.length > 0)
      throw new Error(
        `messages the client sent do not match the ACP schema (${f}):\n${JSON.stringify(violations.slice(0, 3), null, 1)}`,
      );
  }
}

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const FAKE_AGENT = join(ROOT, "test/agents/fake-agent.mjs");

export interface NvimBin {
  version: string;
  path: string;
}

export function nvimBins(): NvimBin[] {
  const version = (p: string) => {
    try {
      return execFileSync(p, ["--version"], { encoding: "utf8" }).split("\n")[0]!.replace("NVIM ", "");
    } catch {
      // One line that says what was looked for and how to get it, instead of a stack at import.
      throw new Error(
        `no Neovim at ${p} (looked in $NVIM_BINS, then .cache/nvim/*/usr/bin/nvim, then PATH): install one with \`bash scripts/install-nvim.sh\``,
      );
    }
  };
  if (process.env.NVIM_BINS)
    return process.env.NVIM_BINS.split(":")
      .filter(Boolean)
      .map((p) => ({ path: p, version: version(p) }));
  const cache = join(ROOT, ".cache/nvim");
  const found = existsSync(cache)
    ? readdirSync(cache)
        .map((v) => join(cache, v, "usr/bin/nvim"))
        .filter((p) => existsSync(p))
    : [];
  if (found.length > 0) return found.map((p) => ({ path: p, version: version(p) }));
  return [{ path: "nvim", version: version("nvim") }];
}

export interface TestNvim {
  nvim: NeovimClient;
  proc: ChildProcess;
  dir: string;
  /** Run Lua in the child and return its value. */
  lua<T = unknown>(code: string, args?: unknown[]): Promise<T>;
  lines(buf: number): Promise<string[]>;
  waitFor<T>(fn: () => Promise<T | undefined | false | null>, what: string, ms?: number): Promise<T>;
  quit(): Promise<void>;
  /** Everything the client sent the fake agents so far conforms to the ACP schema (quit() checks it too). */
  checkRecords(): void;
}

export async function startNvim(
  bin: NvimBin,
  setup: Record<string, unknown>,
  env: Record<string, string> = {},
  init = join(ROOT, "test/nvim/init.lua"),
): Promise<TestNvim> {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-e2e-")));
  for (const d of ["config", "data", "state", "cache", "work", "records"]) mkdirSync(join(dir, d), { recursive: true });
  const proc = spawn(bin.path, ["--embed", "--headless", "-i", "NONE", "-n", "-u", init], {
    cwd: join(dir, "work"),
    env: {
      ...process.env,
      // npm puts node_modules/.bin first on PATH, where test dependencies (claude-code-acp) would
      // pass for the user's agents.
      PATH: (process.env.PATH ?? "")
        .split(":")
        .filter((p) => !p.includes("node_modules/.bin"))
        .join(":"),
      XDG_CONFIG_HOME: join(dir, "config"),
      XDG_DATA_HOME: join(dir, "data"),
      XDG_STATE_HOME: join(dir, "state"),
      XDG_CACHE_HOME: join(dir, "cache"),
      ACPCHAT_TEST_SETUP: JSON.stringify(setup),
      NVIM_NODE_LOG_FILE: join(dir, "node-host.log"),
      FAKE_AGENT_RECORD_DIR: join(dir, "records"),
      ...env,
    },
    stdio: ["pipe", "pipe", "pipe"],
  });
  // A test may kill Neovim: writes to its closed pipe must not become unhandled errors.
  proc.stdin.on("error", () => undefined);
  const nvim = attach({ proc });
  const t: TestNvim = {
    nvim,
    proc,
    dir,
    lua: (code, args = []) => nvim.lua(code, args as never[]) as Promise<never>,
    lines: (buf) => nvim.lua("return vim.api.nvim_buf_get_lines(...)", [buf, 0, -1, false]) as Promise<string[]>,
    async waitFor(fn, what, ms = 15_000) {
      const end = Date.now() + ms;
      let last: unknown;
      for (;;) {
        try {
          const v = await fn();
          if (v) return v as never;
          last = v;
        } catch (e) {
          last = e;
        }
        if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${String(last)})`);
        await new Promise((r) => setTimeout(r, 30));
      }
    },
    async quit() {
      if (proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((r) => proc.once("exit", r));
        nvim.command("qa!").catch(() => undefined);
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (proc.exitCode === null) proc.kill("SIGKILL");
      }
      assertConformant(join(dir, "records"));
    },
    checkRecords: () => assertConformant(join(dir, "records")),
  };
  return t;
}

/** A setup() table with fake agents, each running its own scenario. */
export function fakeAgents(
  scenarios: Record<string, Record<string, unknown>>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  const agents: Record<string, unknown> = {};
  for (const [name, scenario] of Object.entries(scenarios)) {
    agents[name] = {
      command: process.execPath,
      args: [FAKE_AGENT],
      env: { FAKE_AGENT_SCENARIO: JSON.stringify(scenario) },
    };
  }
  return { agents, default_agent: Object.keys(scenarios)[0], ...extra };
}

/**
 * Starts a timer inside Neovim that ticks every 5 ms. Between two ticks the editor's loop ran
 * whatever else was due; resolves, once stopped, with the worst of: `busyMs`, the CPU time
 * Neovim used between two ticks (the longest piece of work that held its loop: it counts no time
 * the process spent waiting for a core on a loaded machine), and `lateMs`, how late a tick fired
 * by the clock (which does).
 */
export async function editorLateness(t: TestNvim): Promise<() => Promise<{ busyMs: number; lateMs: number }>> {
  const key = `_acpchat_lateness_${Math.random().toString(36).slice(2)}`;
  await t.lua(`
    local function cpu()
      local r = vim.uv.getrusage()
      return (r.utime.sec + r.stime.sec) * 1e3 + (r.utime.usec + r.stime.usec) / 1e3
    end
    local s = { busy = 0, late = 0, last = vim.uv.hrtime(), cpu = cpu(), timer = vim.uv.new_timer() }
    _G["${key}"] = s
    s.timer:start(5, 5, function()
      local now, c = vim.uv.hrtime(), cpu()
      s.late = math.max(s.late, (now - s.last) / 1e6 - 5)
      s.busy = math.max(s.busy, c - s.cpu)
      s.last, s.cpu = now, c
    end)`);
  return () =>
    t.lua<{ busyMs: number; lateMs: number }>(
      `local s = _G["${key}"]; s.timer:stop(); s.timer:close(); _G["${key}"] = nil; return { busyMs = s.busy, lateMs = s.late }`,
    );
}
