// The benchmarks' Neovim: which binary, and a fresh headless instance with isolated folders,
// the plugin loaded as the tests load it, listening on a socket for a second client.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { attach } from "neovim";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** $NVIM, else the newest Neovim the install script put in .cache/nvim, else `nvim`. */
export function nvimBin() {
  if (process.env.NVIM) return process.env.NVIM;
  const cache = join(root, ".cache/nvim");
  if (existsSync(cache)) {
    const found = readdirSync(cache)
      .sort()
      .reverse()
      .map((v) => join(cache, v, "usr/bin/nvim"))
      .find((p) => existsSync(p));
    if (found) return found;
  }
  return "nvim";
}

/** Every Neovim the install script put in .cache/nvim (oldest first); NVIM alone when it is set. */
export function nvimBins() {
  if (process.env.NVIM) return [process.env.NVIM];
  const cache = join(root, ".cache/nvim");
  if (!existsSync(cache)) return [nvimBin()];
  const found = readdirSync(cache)
    .sort()
    .map((v) => join(cache, v, "usr/bin/nvim"))
    .filter((p) => existsSync(p));
  return found.length > 0 ? found : [nvimBin()];
}

/** The version a Neovim binary of .cache/nvim is (its folder's name), else "nvim". */
export const nvimLabel = (bin) => bin.match(/\/nvim\/(\d+\.\d+)\//)?.[1] ?? "nvim";

/** A Neovim in `dir` (config, data, state, cache and work folders made there) with setup(`setup`); the plugin of `pluginRoot` (default: this checkout). */
export function startBenchNvim(bin, dir, setup, cwd = dir, pluginRoot = root) {
  for (const d of ["config", "data", "state", "cache"]) mkdirSync(join(dir, d), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const sock = join(dir, "nvim.sock");
  const proc = spawn(
    bin,
    // (resolved: Neovim starts in `cwd`, where a relative root would find no init.lua)
    [
      "--embed",
      "--headless",
      "-i",
      "NONE",
      "-n",
      "--listen",
      sock,
      "-u",
      join(resolve(pluginRoot), "test/nvim/init.lua"),
    ],
    {
      cwd,
      env: {
        ...process.env,
        XDG_CONFIG_HOME: join(dir, "config"),
        XDG_DATA_HOME: join(dir, "data"),
        XDG_STATE_HOME: join(dir, "state"),
        XDG_CACHE_HOME: join(dir, "cache"),
        ACPCHAT_TEST_SETUP: JSON.stringify(setup),
      },
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  return { nvim: attach({ proc }), proc, sock };
}

/** A second client attached to `sock` as a 160x50 UI (its redraws read and dropped). */
export async function attachUi(sock, onRedraw = () => undefined) {
  const ui = attach({ socket: sock });
  ui.on("notification", onRedraw);
  await ui.uiAttach(160, 50, { ext_linegrid: true, rgb: true });
  return ui;
}

/**
 * A Neovim whose one agent is bench/flood-agent.mjs (`env`: its FLOOD_* settings), checkpoints
 * off, with a 160x50 UI attached. Only that agent: `npm run` puts node_modules/.bin on PATH,
 * where the claude-code-acp of the interop tests would become a preset agent whose sessions the
 * picker also asks for (a cold start of that agent: 450 ms instead of 60 ms).
 */
export async function startFloodNvim({ bin, dir, env = {}, work = join(dir, "work"), pluginRoot = root }) {
  const setup = {
    agents: { flood: { command: process.execPath, args: [join(root, "bench/flood-agent.mjs")], env } },
    default_agent: "flood",
    checkpoints: { enabled: false },
  };
  const path = process.env.PATH;
  process.env.PATH = (path ?? "")
    .split(":")
    .filter((d) => !d.includes("node_modules/.bin"))
    .join(":");
  const { nvim, proc, sock } = startBenchNvim(bin, dir, setup, work, pluginRoot);
  process.env.PATH = path;
  await nvim.eval("1");
  const ui = await attachUi(sock);
  return { nvim, proc, sock, ui };
}

/** 50 sessions of the flood agent in this Neovim's index (the picker lists them at once), ids from `stored-<from>`. */
export async function storeSessions(nvim, dir, { from = 0, month = 0 } = {}) {
  const cwd = await nvim.call("getcwd");
  mkdirSync(join(dir, "state/nvim/acpchat"), { recursive: true });
  writeFileSync(
    join(dir, "state/nvim/acpchat/sessions.json"),
    JSON.stringify(
      Array.from({ length: 50 }, (_, i) => ({
        agent: "flood",
        sessionId: `stored-${from + i}`,
        cwd,
        title: `session ${i}`,
        updatedAt: new Date(Date.UTC(2026, month, 1, 0, i)).toISOString(),
      })),
    ),
  );
}

/** Wait until the current chat is ready (its agent initialized, the session made). */
export function waitChatReady(nvim, ms = 60_000, pollMs = 20) {
  return waitLua(
    nvim,
    "(function() local c = require('acpchat.chat.registry').current(); return c and c.status and c.status.state == 'ready' end)()",
    ms,
    pollMs,
  );
}

/**
 * The Node host under a profiler: `node` as `g:acpchat_node`, through a wrapper that adds
 * `args` (e.g. --cpu-prof flags), for the host this Neovim starts next.
 */
export async function profiledNode(nvim, dir, args) {
  const wrap = join(dir, "node-prof.sh");
  writeFileSync(wrap, `#!/bin/sh\nexec ${process.execPath} ${args} "$@"\n`);
  chmodSync(wrap, 0o755);
  await nvim.setVar("acpchat_node", wrap);
}

/** Wait until a Lua expression is truthy in `nvim` (polled every `pollMs`); its value. */
export async function waitLua(nvim, expr, ms = 120_000, pollMs = 5) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await nvim.lua(`return ${expr}`);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${expr}`);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** Ping `c` (a second client) every 2 ms until stopped: the longest and the 99th percentile round trip (`each(start, ms)`: every answer, when asked and how long it took). */
export function pinger(c, each) {
  let running = true;
  const samples = [];
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await c.eval("1");
      samples.push(performance.now() - t0);
      each?.(performance.timeOrigin + t0, samples.at(-1));
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return async () => {
    running = false;
    await loop;
    const s = samples.sort((a, b) => a - b);
    return {
      max: s[s.length - 1] ?? 0,
      p99: s[Math.min(s.length - 1, Math.floor(0.99 * s.length))] ?? 0,
      count: s.length,
    };
  };
}
