// The benchmarks' Neovim: which binary, and a fresh headless instance with isolated folders,
// the plugin loaded as the tests load it, listening on a socket for a second client.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
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

/** A Neovim in `dir` (config, data, state, cache and work folders made there) with setup(`setup`); the plugin of `pluginRoot` (default: this checkout). */
export function startBenchNvim(bin, dir, setup, cwd = dir, pluginRoot = root) {
  for (const d of ["config", "data", "state", "cache"]) mkdirSync(join(dir, d), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const sock = join(dir, "nvim.sock");
  const proc = spawn(
    bin,
    ["--embed", "--headless", "-i", "NONE", "-n", "--listen", sock, "-u", join(pluginRoot, "test/nvim/init.lua")],
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
