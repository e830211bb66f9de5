// The first :AcpChat of a fresh Neovim, and the editor's responsiveness while the agent starts:
// each run is a new Neovim (node host cold), an agent that takes 1.5 s to answer `initialize`,
// and a second client (a UI would be one) asking Neovim for `1` every 5 ms until the chat is ready.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { startBenchNvim } from "./nvim.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function oneRun(root, bin) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-start-"));
  const scenario = { delays: { initialize: 1500 } };
  const setup = {
    agents: {
      slow: {
        command: process.execPath,
        args: [join(root, "test/agents/fake-agent.mjs")],
        env: { FAKE_AGENT_SCENARIO: JSON.stringify(scenario) },
      },
    },
    default_agent: "slow",
  };
  const { nvim, proc, sock } = startBenchNvim(bin, dir, setup);
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
  while (
    (await nvim.lua(
      "local c = require('acpchat.chat.registry').current(); return c and c.status and c.status.state",
    )) !== "ready"
  ) {
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
