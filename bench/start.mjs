// The first :AcpChat of a fresh Neovim, and the editor's responsiveness while the agent starts:
// each run is a new Neovim (node host cold), an agent that takes 1.5 s to answer `initialize`,
// and a second client (a UI would be one) asking Neovim for `1` every 5 ms until the chat is ready.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function oneRun(root, bin) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-start-"));
  for (const d of ["config", "data", "state", "cache"]) mkdirSync(join(dir, d), { recursive: true });
  const sock = join(dir, "nvim.sock");
  const scenario = { delays: { initialize: 1500 } };
  const setup = { agents: { slow: { command: process.execPath, args: [join(root, "test/agents/fake-agent.mjs")], env: { FAKE_AGENT_SCENARIO: JSON.stringify(scenario) } } }, default_agent: "slow" };
  const proc = spawn(bin, ["--embed", "--headless", "-i", "NONE", "-n", "--listen", sock, "-u", join(root, "test/nvim/init.lua")], {
    cwd: dir,
    env: { ...process.env, XDG_CONFIG_HOME: join(dir, "config"), XDG_DATA_HOME: join(dir, "data"), XDG_STATE_HOME: join(dir, "state"), XDG_CACHE_HOME: join(dir, "cache"), ACPCHAT_TEST_SETUP: JSON.stringify(setup) },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const nvim = attach({ proc });
  await nvim.eval("1");
  const ui = attach({ socket: sock });
  await ui.eval("1");
  let worst = 0;
  let pinging = true;
  const pinger = (async () => {
    while (pinging) {
      const t0 = performance.now();
      await ui.eval("1");
      worst = Math.max(worst, performance.now() - t0);
      await sleep(5);
    }
  })();
  const t0 = performance.now();
  await nvim.command("AcpChat");
  const openMs = performance.now() - t0;
  const end = Date.now() + 30_000;
  while ((await nvim.lua("local c = require('acpchat.registry').current(); return c and c.status and c.status.state")) !== "ready") {
    if (Date.now() > end) throw new Error("the chat did not become ready");
    await sleep(10);
  }
  const readyMs = performance.now() - t0;
  pinging = false;
  await pinger;
  await ui.close();
  // Quitting never answers; the process exit is what we wait for.
  const exited = new Promise((r) => proc.once("exit", r));
  nvim.command("qa!").catch(() => undefined);
  await Promise.race([exited, sleep(3000)]);
  proc.kill("SIGKILL");
  return { openMs, readyMs, worstMs: worst };
}

/** Median of `runs` fresh starts. */
export async function benchStart(root, bin, runs = 5) {
  const all = [];
  for (let i = 0; i < runs; i++) all.push(await oneRun(root, bin));
  const median = (k) => all.map((r) => r[k]).sort((a, b) => a - b)[Math.floor(all.length / 2)];
  return { runs: all, openMs: median("openMs"), worstMs: median("worstMs"), readyMs: median("readyMs") };
}
