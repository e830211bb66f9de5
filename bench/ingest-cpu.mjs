#!/usr/bin/env node
// The host's ingest of a streamed reply in CPU time, this tree against a revision, in one
// process, alternating turns: a real Chat (src/session/chat) on the flood agent over a real pipe,
// the trace on, its events through the RenderQueue and every batch msgpack-encoded as the
// host's notify does (the ops to Lua); no Neovim. A turn's CPU (process.cpuUsage: this process's
// threads, GC included; the agent is another process) runs from the prompt sent to the turn's
// end flushed. Figures: medians and minimums over the measured turns (the minimum is the least
// disturbed by a busy machine).
//   node bench/ingest-cpu.mjs [chunks=2000] [tools=20] [long=1] [turns=15] [revision=HEAD]
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { encode } from "@msgpack/msgpack";
import { build } from "esbuild";
import { root } from "./nvim.mjs";

const [chunks = "2000", tools = "20", long = "1", turns = "15", rev = "HEAD"] = process.argv.slice(2);
const say = (s) => process.stderr.write(`${s}\n`);
const work = join(root, ".cache", "bench-ingest");
rmSync(work, { recursive: true, force: true });
mkdirSync(join(work, "old"), { recursive: true });
execFileSync("sh", ["-c", `git archive "$1" src | tar -x -C "$2"`, "sh", rev, join(work, "old")], { cwd: root });
const entry = join(work, "entry.ts");
writeFileSync(
  entry,
  [
    'import { Chat as OC } from "./old/src/session/chat/chat.js";',
    'import { RenderQueue as OQ } from "./old/src/view/render-queue.js";',
    'import { Chat as NC } from "../../src/session/chat/chat.js";',
    'import { RenderQueue as NQ } from "../../src/view/render-queue.js";',
    "export const OLD = { Chat: OC, RenderQueue: OQ };",
    "export const NEW = { Chat: NC, RenderQueue: NQ };",
  ].join("\n"),
);
await build({
  entryPoints: [entry],
  bundle: true,
  format: "esm",
  platform: "node",
  outfile: join(work, "out.mjs"),
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: "error",
});
const { OLD, NEW } = await import(join(work, "out.mjs"));

const port = {
  requestPermission: async (req) => ({ outcome: "selected", optionId: req.options[0].optionId }),
  readTextFile: async () => ({ content: "" }),
  writeTextFile: async () => undefined,
};

let turnStart = 0;
async function side(name, mod) {
  const dir = mkdtempSync(join(tmpdir(), `acpchat-ingest-${name}-`));
  let sent = 0;
  let done;
  const queue = new mod.RenderQueue({
    send: (ops) => {
      // What the host's notify does with a batch: msgpack it (Neovim's side is not measured).
      sent += encode(["notification", "acpchat_render", [{ chat: 1, ops }]]).length;
      if (process.env.INGEST_DEBUG)
        say(`${name} batch +${(performance.now() - turnStart).toFixed(1)} ms: ${ops.map((o) => o.op).join(",")}`);
      if (ops.some((o) => o.op === "turn_end")) done?.();
    },
    status: () => ({ state: "ready" }),
  });
  const chat = new mod.Chat({
    agentName: "flood",
    command: { command: process.execPath, args: [join(root, "bench/flood-agent.mjs")], env: {} },
    cwd: dir,
    port,
    onEvents: (events) => queue.push(events),
    onTurnEnd: (stop) => queue.endTurn(stop),
    traceFile: join(dir, "trace.jsonl"),
    timeouts: { initializeMs: 20000, newSessionMs: 20000, cancelMs: 2000 },
  });
  await chat.start();
  if (process.env.INGEST_DEBUG) say(`${name}: started`);
  const turn = async () => {
    const ended = new Promise((res) => {
      done = res;
    });
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    turnStart = t0;
    chat.submit(`flood ${chunks} ${tools}${long === "1" ? " long" : ""}`, []);
    const timer = setTimeout(() => {
      say(`${name}: the turn did not end in 30 s`);
      process.exit(1);
    }, 30_000);
    await ended;
    clearTimeout(timer);
    const c = process.cpuUsage(c0);
    const wall = performance.now() - t0;
    // What the turn cost in all, work left for later included (the trace's), 40 ms on.
    await new Promise((res) => setTimeout(res, 40));
    const all = process.cpuUsage(c0);
    return { cpu: (c.user + c.system) / 1000, all: (all.user + all.system) / 1000, wall };
  };
  return { name, chat, turn, bytes: () => sent };
}

const sides = [await side("old", OLD), await side("new", NEW)];
const figs = { old: [], new: [] };
const n = Number(turns);
for (let i = 0; i < n + 3; i++) {
  for (const s of i % 2 ? [...sides].reverse() : sides) {
    const r = await s.turn();
    if (i >= 3) figs[s.name].push(r);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const line = (k) => {
  const cpu = figs[k].map((r) => r.cpu);
  const wall = figs[k].map((r) => r.wall);
  const all = figs[k].map((r) => r.all);
  return {
    cpu: median(cpu),
    cpuMin: Math.min(...cpu),
    wall: median(wall),
    wallMin: Math.min(...wall),
    all: median(all),
    allMin: Math.min(...all),
  };
};
const o = line("old");
const w = line("new");
say(
  `ingest of ${chunks} chunks${long === "1" ? " (one line)" : ""}, ${tools} tool updates; ${n} turns each, load ${loadavg()[0].toFixed(1)}`,
);
say(
  `  ${rev}: cpu median ${o.cpu.toFixed(1)} ms (min ${o.cpuMin.toFixed(1)}), wall median ${o.wall.toFixed(1)} ms (min ${o.wallMin.toFixed(1)})`,
);
say(
  `  this tree: cpu median ${w.cpu.toFixed(1)} ms (min ${w.cpuMin.toFixed(1)}), wall median ${w.wall.toFixed(1)} ms (min ${w.wallMin.toFixed(1)})`,
);
say(
  `  all the turn's CPU (40 ms after its end): ${rev} median ${o.all.toFixed(1)} (min ${o.allMin.toFixed(1)}), this tree ${w.all.toFixed(1)} (min ${w.allMin.toFixed(1)})`,
);
say(
  `  this / ${rev}: cpu to the turn's end x${(w.cpu / o.cpu).toFixed(2)} (min x${(w.cpuMin / o.cpuMin).toFixed(2)}); all x${(w.all / o.all).toFixed(2)} (min x${(w.allMin / o.allMin).toFixed(2)})`,
);
for (const s of sides) await s.chat.close?.();
process.exit(0);
