#!/usr/bin/env node
// Benchmark of turn checkpoints, standalone: `node bench/checkpoints.mjs` (prints a
// markdown table on stdout; `--json` adds the raw figures; `--no-nvim` skips the editor part).
// `npm run bench` runs it and appends its table to bench/RESULTS.md.
//
// A generated project of 10,000 files (100 MB) in a temp folder, and src/checkpoints/ bundled on
// the fly (esbuild), run with the real git:
//   (a) a chat's first snapshot, cold (a fresh state folder), and how long the first prompt, sent
//       at once, waits for it (TurnCheckpoints.beginTurn: at most PROMPT_WAIT_MS);
//   (b) the snapshot before a prompt after a tool call changed 10 files (beginTurn: time added
//       before the prompt is sent);
//   (c) the same with nothing changed;
//   (d) the first snapshot of a second chat of the same project (warm: the first chat's index);
//   (e) TurnCheckpoints.rewind of a turn that changed 100 files (90 modified, 5 created,
//       5 deleted), with a LiveFiles that reports no loaded buffer (no editor in this figure),
//       checked byte for byte afterwards;
//   and Node's own event loop delay while (a) runs (the plugin's host serves every chat).
//   (f) the editor: a real headless Neovim with a UI attached and the plugin, a chat in the
//       project with an agent (bench/checkpoints-agent.mjs) that changes 10 files with a shell
//       command in each turn, and 10 files changed between turns (so the snapshot before each
//       prompt has work to do): a vim.uv timer every 1 ms in Neovim records its longest gap
//       while the first snapshot and the turns run; the time from sending a prompt to the agent
//       receiving session/prompt (the first prompt sent as soon as the chat is ready, while the
//       first snapshot still runs).
// Targets: the first prompt delayed by at most 200 ms; later snapshots under 100 ms; the editor
// never blocked over 16 ms; rewind of a 100-file turn under 1 s.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const FILES = 10_000;
export const BYTES = 100 * 1024 * 1024;

async function loadCheckpoints(dir) {
  const outfile = join(dir, "checkpoints.mjs");
  const contents = `export * from "./src/checkpoints/store.ts"; export * from "./src/checkpoints/turns.ts";`;
  await build({
    stdin: { contents, resolveDir: root, loader: "ts" },
    bundle: true,
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "silent",
    // execa's CommonJS dependencies (cross-spawn) require() Node's own modules.
    banner: { js: `import { createRequire } from "node:module"; const require = createRequire(import.meta.url);` },
  });
  return import(pathToFileURL(outfile).href);
}

/** A deterministic pseudo-random generator (so every run snapshots the same bytes). */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s;
  };
}

const WORDS =
  "const let function return if else for while import export from class extends new this await async value index result error item list map set get push length string number true false null undefined object array config options state buffer line text file path name data node tree hash commit snapshot turn chat agent prompt editor window".split(
    " ",
  );

/** `n` bytes of source-like text (lines of words and numbers): compresses as code does. */
function sourceText(next, n) {
  const parts = [];
  let size = 0;
  while (size < n) {
    let line = "  ".repeat(next() % 4);
    const words = 4 + (next() % 8);
    for (let w = 0; w < words; w++)
      line += (w ? " " : "") + WORDS[next() % WORDS.length] + (next() % 3 === 0 ? String(next() % 1000) : "");
    line += next() % 5 === 0 ? ";\n" : "\n";
    parts.push(line);
    size += line.length;
  }
  return parts.join("").slice(0, n);
}

/** The project: FILES files in 100 folders, BYTES in all (2 to 18 KiB each), plus ignored ones. */
export function generateProject(dir) {
  const next = rng(23);
  const sizes = Array.from({ length: FILES }, () => 2048 + (next() % 16384));
  const scale = BYTES / sizes.reduce((a, b) => a + b, 0);
  let total = 0;
  const paths = [];
  for (let i = 0; i < FILES; i++) {
    const rel = join(
      "src",
      `pkg${String(Math.floor(i / 100)).padStart(2, "0")}`,
      `mod${String(i % 100).padStart(2, "0")}.ts`,
    );
    if (i % 100 === 0) mkdirSync(join(dir, dirname(rel)), { recursive: true });
    const bytes = sourceText(next, Math.round(sizes[i] * scale));
    writeFileSync(join(dir, rel), bytes);
    total += bytes.length;
    paths.push(rel);
  }
  // Ignored output, as a real project has: never snapshotted.
  writeFileSync(join(dir, ".gitignore"), "build/\n*.log\n");
  mkdirSync(join(dir, "build"));
  for (let i = 0; i < 200; i++) writeFileSync(join(dir, "build", `out${i}.js`), sourceText(next, 20000));
  writeFileSync(join(dir, "debug.log"), "ignored\n");
  return { paths, total };
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1], all: xs };
};

const noBuffers = {
  buffer: async () => undefined,
  setBuffer: async () => "done",
  reload: async () => undefined,
};

const hash = (p) => (existsSync(p) ? createHash("sha1").update(readFileSync(p)).digest("hex") : "absent");

/** (a)-(e): the checkpoints module alone, in this process. */
export async function nodePart(work, state, paths, cp) {
  const { CheckpointStore, TurnCheckpoints, PROMPT_WAIT_MS } = cp;
  const r = { cold: [] };
  // (a) Cold first snapshots (each in a fresh state folder), with the first prompt sent at once.
  for (let i = 0; i < 2; i++) {
    const stateDir = join(state, `cold${i}`);
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const t0 = Date.now();
    const p0 = performance.now();
    const store = new CheckpointStore({ stateDir, cwd: work, chat: `cold${i}` });
    const turns = new TurnCheckpoints(store, work);
    const step = await turns.beginTurn(1);
    const waitMs = performance.now() - p0;
    await step.start;
    const doneMs = performance.now() - p0;
    turns.abandonTurn(step); // only its start snapshot is measured: the turn is never sent
    loop.disable();
    const firstMs = store.checkpoints[0].at - t0;
    const stored = Number(
      execFileSync(
        "git",
        [
          "--git-dir",
          join(stateDir, readdirSync(stateDir)[0], "git"),
          "ls-tree",
          "-r",
          "--name-only",
          store.checkpoints[0].tree,
        ],
        { maxBuffer: 64 << 20 },
      )
        .toString()
        .split("\n")
        .filter(Boolean).length,
    );
    r.cold.push({
      firstMs,
      waitMs,
      late: step.late === true,
      doneMs,
      loopMaxMs: loop.max / 1e6,
      loopP99Ms: loop.percentile(99) / 1e6,
      stored,
      repoBytes: await store.size(),
    });
    say(
      `(a) cold first snapshot ${firstMs} ms (${stored} files stored); first prompt waited ${waitMs.toFixed(0)} ms (late: ${step.late === true}); Node loop max ${(loop.max / 1e6).toFixed(1)} ms`,
    );
    if (i === 0) rmSync(stateDir, { recursive: true, force: true });
  }
  // The chat the rest runs in: the second cold one's state folder, a chat of its own.
  const stateDir = join(state, "cold1");
  const store = new CheckpointStore({ stateDir, cwd: work, chat: "main" });
  const turns = new TurnCheckpoints(store, work);
  // (d) Warm first snapshot: the constructor's take, on the index of the chat before.
  const w0 = Date.now();
  const first = await turns.beginTurn(0);
  await first.start;
  turns.abandonTurn(first);
  r.warmMs = store.checkpoints[0].at - w0;
  const warm2 = [];
  for (let i = 0; i < 4; i++) {
    const s = new CheckpointStore({ stateDir, cwd: work, chat: `warm${i}` });
    const t = performance.now();
    await s.take("first");
    warm2.push(performance.now() - t);
  }
  r.warm = stats([r.warmMs, ...warm2]);
  say(`(d) warm first snapshot of a second chat: ${r.warm.all.map((x) => x.toFixed(0)).join(", ")} ms`);
  // (b) 10 files changed by a "tool call", then the snapshot before the next prompt.
  let k = 0;
  const changed = [];
  const unchanged = [];
  let late = 0;
  for (let i = 0; i < 15; i++) {
    for (let j = 0; j < 10; j++)
      writeFileSync(join(work, paths[(k++ * 97) % paths.length]), `// turn ${i} edit ${j}\n`, { flag: "a" });
    // The snapshot's whole time (beginTurn itself stops waiting at PROMPT_WAIT_MS: then "late").
    const t = performance.now();
    const step = await turns.beginTurn(i + 1);
    await step.start;
    changed.push(performance.now() - t);
    turns.abandonTurn(step);
    if (step.late) late++;
    // (c) nothing changed since.
    const t2 = performance.now();
    const again = await turns.beginTurn(i + 1);
    await again.start;
    unchanged.push(performance.now() - t2);
    turns.abandonTurn(again);
    if (again.late) late++;
    await sleep(20);
  }
  r.late = late;
  r.changed = stats(changed);
  r.unchanged = stats(unchanged);
  say(
    `(b) 10 files changed: median ${r.changed.median.toFixed(1)} max ${r.changed.max.toFixed(1)} ms; (c) unchanged: median ${r.unchanged.median.toFixed(1)} max ${r.unchanged.max.toFixed(1)} ms`,
  );
  // (e) Rewind of a turn that changed 100 files.
  const rewinds = [];
  for (let i = 0; i < 5; i++) {
    const base = 5000 + i * 200;
    const modified = paths.slice(base, base + 90);
    const deleted = paths.slice(base + 90, base + 95);
    const created = Array.from({ length: 5 }, (_, j) => join("src", `new-${i}-${j}.ts`));
    const all = [...modified, ...deleted, ...created];
    const before = Object.fromEntries(all.map((p) => [p, hash(join(work, p))]));
    const step = await turns.beginTurn(100 + i);
    for (const p of modified)
      writeFileSync(
        join(work, p),
        readFileSync(join(work, p), "utf8").replace(/\n/, "\n// the agent was here\n") + "more\n",
      );
    for (const p of deleted) unlinkSync(join(work, p));
    for (const p of created) writeFileSync(join(work, p), "export const made = true;\n");
    const changes = await turns.endTurn(step);
    if (changes.length !== 100) throw new Error(`the turn lists ${changes.length} files, not 100`);
    const t = performance.now();
    const out = await turns.rewind(step, noBuffers, () => undefined, `rewind ${i}`);
    rewinds.push(performance.now() - t);
    const bad = all.filter((p) => hash(join(work, p)) !== before[p]);
    if (bad.length || out.length !== 100 || out.some((o) => !o.applied.done))
      throw new Error(`rewind ${i}: ${bad.length} files not as before (${bad.slice(0, 3).join(", ")})`);
  }
  r.rewind = stats(rewinds);
  say(
    `(e) rewind of 100 files: median ${r.rewind.median.toFixed(0)} max ${r.rewind.max.toFixed(0)} ms (every file byte-exact)`,
  );
  r.PROMPT_WAIT_MS = PROMPT_WAIT_MS;
  return r;
}

/** (f): the editor while snapshots run, and prompts from send to the agent. */
export async function nvimPart(bin, dir, work, paths, checkpoints = true) {
  const { startBenchNvim, waitLua: waitNvimLua } = await import("./nvim.mjs");
  const setup = {
    agents: { bench: { command: process.execPath, args: [join(root, "bench/checkpoints-agent.mjs")] } },
    default_agent: "bench",
    checkpoints: { enabled: checkpoints },
  };
  const home = join(dir, checkpoints ? "nvim" : "nvim-off");
  const { nvim, proc } = startBenchNvim(bin, home, setup, work);
  const tag = checkpoints ? "(f)" : "(f, checkpoints off)";
  const version = (await nvim.commandOutput("version")).split("\n")[0];
  await nvim.uiAttach(160, 50, { ext_linegrid: true, rgb: true });
  const waitLua = (expr, ms) => waitNvimLua(nvim, expr, ms);
  // The editor's loop: a timer every 1 ms; its longest gap (less the 1 ms) is the longest block.
  await nvim.lua(`
    _G.gap = { max = 0, n = 0, over = 0 }
    local last = vim.uv.hrtime()
    _G.gap.timer = vim.uv.new_timer()
    _G.gap.timer:start(1, 1, function()
      local now = vim.uv.hrtime()
      local g = (now - last) / 1e6 - 1
      if g > _G.gap.max then _G.gap.max = g end
      if g > 16 then _G.gap.over = _G.gap.over + 1 end
      _G.gap.n = _G.gap.n + 1
      last = now
    end)
    vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function() _G.turn_end = vim.uv.hrtime() end })
    -- The plugin's own time on the loop: every event from Node goes through bridge.receive.
    local bridge = require("acpchat.host.bridge")
    local receive = bridge.receive
    _G.recv = { max = 0, event = "" }
    bridge.receive = function(event, payload)
      local t = vim.uv.hrtime()
      local a, b = receive(event, payload)
      local d = (vim.uv.hrtime() - t) / 1e6
      if d > _G.recv.max then _G.recv.max = d; _G.recv.event = event end
      return a, b
    end`);
  const gapReset = () => nvim.lua("_G.gap.max = 0; _G.gap.n = 0; _G.gap.over = 0; _G.recv.max = 0; _G.recv.event = ''");
  const gapRead = () => nvim.lua("return { _G.gap.max, _G.gap.n, _G.gap.over, _G.recv.max, _G.recv.event }");
  // The noise floor: the same timer with nothing running.
  await gapReset();
  await sleep(3000);
  const [idleMax, idleN] = await gapRead();
  say(`${tag} idle: longest gap ${idleMax.toFixed(1)} ms (${idleN} ticks)`);
  // The chat opens: its first snapshot starts in Node; the first prompt goes as soon as it is ready.
  await gapReset();
  const t0 = Date.now();
  await nvim.command("AcpChat");
  await waitLua("(require('acpchat.chat.registry').current().status or {}).state == 'ready'");
  const chatId = await nvim.lua("return require('acpchat.chat.registry').current().id");
  const stamp = join(dir, "stamp");
  let k = 0;
  const agentEdit = () => {
    const files = Array.from({ length: 10 }, () => paths[(k++ * 131 + 7) % paths.length]);
    return files.map((p) => `printf '// agent\\n' >> ${p}`).join(" && ");
  };
  const turn = async () => {
    rmSync(stamp, { force: true });
    await nvim.lua(
      "local id, text = ...; _G.turn_end = nil; _G.sent = vim.uv.hrtime(); require('acpchat.app.chats').send(require('acpchat.chat.registry').get(id), text)",
      [chatId, `bench ${stamp} ${agentEdit()}`],
    );
    await waitLua("_G.turn_end");
    const sent = await nvim.lua("return _G.sent");
    return (Number(readFileSync(stamp, "utf8")) - sent) / 1e6;
  };
  const firstPromptMs = await turn();
  // The first snapshot's end: its ref is written in the private repository.
  const refsDir = () => {
    const cps = join(home, "state", "nvim", "acpchat", "checkpoints");
    const project = readdirSync(cps)[0];
    return join(cps, project, "git", "refs", "acpchat");
  };
  if (checkpoints)
    await (async () => {
      for (const end = Date.now() + 300_000; Date.now() < end; ) {
        const d = existsSync(refsDir()) ? readdirSync(refsDir()) : [];
        if (d.length && existsSync(join(refsDir(), d[0], "0"))) return;
        await sleep(10);
      }
      throw new Error("the first snapshot never ended");
    })();
  const firstSnapshotMs = checkpoints
    ? statSync(join(refsDir(), readdirSync(refsDir())[0], "0")).mtimeMs - t0
    : undefined;
  await sleep(500);
  const [firstGap, firstN, firstOver, firstLua, firstLuaEvent] = await gapRead();
  say(
    `${tag} ${checkpoints ? `first snapshot ~${firstSnapshotMs.toFixed(0)} ms after :AcpChat; ` : ""}first prompt reached the agent ${firstPromptMs.toFixed(0)} ms after send; longest editor gap meanwhile ${firstGap.toFixed(1)} ms (${firstN} ticks, ${firstOver} over 16 ms); longest plugin handler ${firstLua.toFixed(1)} ms (${firstLuaEvent})`,
  );
  // Later turns: 10 files changed between turns (before the prompt's snapshot) and 10 by the agent.
  await gapReset();
  const prompts = [];
  for (let i = 0; i < 10; i++) {
    for (let j = 0; j < 10; j++)
      writeFileSync(join(work, paths[(k++ * 131 + 7) % paths.length]), `// between turns ${i}\n`, { flag: "a" });
    prompts.push(await turn());
    await sleep(100);
  }
  await sleep(300);
  const [turnsGap, turnsN, turnsOver, turnsLua, turnsLuaEvent] = await gapRead();
  const text = (
    await nvim.lua(
      "return table.concat(vim.api.nvim_buf_get_lines(require('acpchat.chat.registry').get(...).buf, 0, -1, false), '\\n')",
      [chatId],
    )
  ).toString();
  const blocks = (text.match(/Turn \d+ changed 10 files/g) ?? []).length;
  say(
    `${tag} later prompts reached the agent in median ${stats(prompts).median.toFixed(0)} ms, max ${stats(prompts).max.toFixed(0)} ms; longest editor gap during 10 turns ${turnsGap.toFixed(1)} ms (${turnsN} ticks, ${turnsOver} over 16 ms); longest plugin handler ${turnsLua.toFixed(1)} ms (${turnsLuaEvent}); ${blocks} change blocks of 10 files`,
  );
  await nvim.lua("_G.gap.timer:stop()");
  nvim.quit();
  proc.kill();
  return {
    version,
    idleMax,
    firstGap,
    firstN,
    firstOver,
    firstLua,
    firstLuaEvent,
    firstSnapshotMs,
    firstPromptMs,
    prompts: stats(prompts),
    turnsGap,
    turnsN,
    turnsOver,
    turnsLua,
    turnsLuaEvent,
    blocks,
  };
}

export function table(r, f, off) {
  const x = (v, d = 0) => (typeof v === "number" ? v.toFixed(d) : "–");
  const list = (s, d = 0) => `[${s.all.map((v) => v.toFixed(d)).join(", ")}]`;
  const goal = (ok) => (ok ? "met" : "**missed**");
  const rows = [
    `| a | first snapshot of a chat, cold (new state folder; ${r.cold[0].stored.toLocaleString("en")} files stored; the files were just written, so in the page cache) | ${r.cold.map((c) => `${x(c.firstMs)} ms`).join(", ")} (repository ${x(r.cold[0].repoBytes / 2 ** 20)} MiB) | in the background: see a2 |`,
    `| a2 | the first prompt, sent as the chat opens: beginTurn's wait | ${r.cold.map((c) => `${x(c.waitMs)} ms${c.late ? " (late: the turn notes it)" : ""}`).join(", ")} | ≤ ${r.PROMPT_WAIT_MS} ms (+ timer slack): ${goal(r.cold.every((c) => c.waitMs <= r.PROMPT_WAIT_MS + 50))} |`,
    `| a3 | Node's event loop during (a) (monitorEventLoopDelay, 1 ms resolution): max / p99 | ${r.cold.map((c) => `${x(c.loopMaxMs, 1)} / ${x(c.loopP99Ms, 1)} ms`).join(", ")} | (report) |`,
    `| b | snapshot before a prompt after 10 files changed (beginTurn), 15 runs: min / median / max | ${x(r.changed.min, 1)} / **${x(r.changed.median, 1)}** / **${x(r.changed.max, 1)}** ms | < 100 ms: ${goal(r.changed.max < 100)} (median ${goal(r.changed.median < 100)})${r.late ? `; ${r.late} of 30 in (b) and (c) past 200 ms (late)` : ""} |`,
    `| c | snapshot with nothing changed, 15 runs: min / median / max | ${x(r.unchanged.min, 1)} / ${x(r.unchanged.median, 1)} / ${x(r.unchanged.max, 1)} ms | < 100 ms: ${goal(r.unchanged.max < 100)} |`,
    `| d | first snapshot of a second chat of the project (warm: the index of the chat before), ${r.warm.n} chats | ${x(r.warm.min)} / ${x(r.warm.median)} / ${x(r.warm.max)} ms ${list(r.warm)} | < 200 ms: ${goal(r.warm.max < 200)} |`,
    `| e | rewind of a 100-file turn (90 modified, 5 created, 5 deleted; snapshots before and after included; no editor: no buffer loaded), 5 runs, checked byte for byte | ${x(r.rewind.min)} / **${x(r.rewind.median)}** / **${x(r.rewind.max)}** ms ${list(r.rewind)} | < 1 s: ${goal(r.rewind.max < 1000)} |`,
  ];
  if (f) {
    const o = off ?? {};
    const over = (g) => (g ? ` (${g.over} of ${g.n} ticks over 16 ms)` : "");
    rows.push(
      `| f0 | the editor idle, noise floor: longest gap of a 1 ms vim.uv timer over 3 s (checkpoints on / off) | ${x(f.idleMax, 1)} / ${x(o.idleMax, 1)} ms | (reference) |`,
      `| f1 | the editor from \`:AcpChat\` until the first snapshot ended (~${x(f.firstSnapshotMs)} ms after it), the first prompt sent as soon as the chat was ready and its turn run: longest timer gap (checkpoints on / off) | **${x(f.firstGap, 1)} ms**${over({ over: f.firstOver, n: f.firstN })} / ${x(o.firstGap, 1)} ms${over(o.firstN ? { over: o.firstOver, n: o.firstN } : undefined)} | < 16 ms: ${goal(f.firstGap < 16)} |`,
      `| f1b | the plugin's own longest handler on Neovim's loop (bridge.receive, any event from Node) in f1 and f4 (checkpoints on / off) | f1 ${x(f.firstLua, 1)} ms (${f.firstLuaEvent}), f4 ${x(f.turnsLua, 1)} ms (${f.turnsLuaEvent}) / f1 ${x(o.firstLua, 1)} ms (${o.firstLuaEvent ?? "–"}), f4 ${x(o.turnsLua, 1)} ms (${o.turnsLuaEvent ?? "–"}) | < 16 ms: ${goal(f.firstLua < 16 && f.turnsLua < 16)} |`,
      `| f2 | the first prompt: send to the agent receiving session/prompt (checkpoints on / off) | **${x(f.firstPromptMs)} ms** / ${x(o.firstPromptMs)} ms | ≤ 200 ms more than off: ${goal(f.firstPromptMs - (o.firstPromptMs ?? 0) <= 200)} |`,
      `| f3 | later prompts (10 files changed before each), send to the agent receiving it, 10 turns: min / median / max (checkpoints on / off) | ${x(f.prompts.min)} / **${x(f.prompts.median)}** / **${x(f.prompts.max)}** ms ${list(f.prompts)} / ${o.prompts ? `${x(o.prompts.min)} / ${x(o.prompts.median)} / ${x(o.prompts.max)} ms` : "–"} | < 100 ms more than off: ${goal(!o.prompts || f.prompts.max - o.prompts.median < 100)} |`,
      `| f4 | the editor during those 10 turns (each: the snapshot before the prompt, the agent's shell command changing 10 files, snapshots after the tool call and at the end, the changes block drawn): longest timer gap (checkpoints on / off) | **${x(f.turnsGap, 1)} ms**${over({ over: f.turnsOver, n: f.turnsN })} (${f.blocks} of 10 change blocks listed 10 files) / ${x(o.turnsGap, 1)} ms${over(o.turnsN ? { over: o.turnsOver, n: o.turnsN } : undefined)} | < 16 ms: ${goal(f.turnsGap < 16)} |`,
    );
  }
  return [
    `Checkpoints benchmark, ${new Date().toISOString()}: ${r.files.toLocaleString("en")} files, ${x(r.bytes / 2 ** 20)} MiB (plus 200 ignored files), git ${r.git}, Node ${process.version}${f ? `, ${f.version}` : ""}. ${r.machine}`,
    "",
    "| # | what | figure | target |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    'Targets: the first snapshot in the background, never delaying the first prompt by more than 200 ms; later snapshots under 100 ms; the editor never blocked over 16 ms; rewind of a 100-file turn under 1 s. (a)-(e) run src/checkpoints/ bundled into this process with the real git; (f) is the plugin in a headless Neovim with a 160x50 UI attached, and "off" the same Neovim, project and turns with `checkpoints = { enabled = false }`: what the turns cost without any snapshot. A gap of the 1 ms timer also counts the machine\'s own scheduling (f0 is its floor).',
  ].join("\n");
}

export async function checkpointsBench({ bin, nvim = true } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-cp-"));
  try {
    const cp = await loadCheckpoints(dir);
    const work = join(dir, "work");
    mkdirSync(work);
    const g0 = performance.now();
    const { paths, total } = generateProject(work);
    say(
      `project: ${paths.length} files, ${(total / 2 ** 20).toFixed(1)} MiB in ${((performance.now() - g0) / 1000).toFixed(1)} s`,
    );
    const load = loadavg();
    const r = await nodePart(work, join(dir, "state"), paths, cp);
    r.files = paths.length;
    r.bytes = total;
    r.git = execFileSync("git", ["--version"], { encoding: "utf8" })
      .trim()
      .replace(/^git version /, "");
    r.machine = `Machine: ${cpus().length} × ${cpus()[0]?.model ?? "?"}, load average ${load.map((l) => l.toFixed(1)).join(" ")} at the start (shared with other work: figures are noisy).`;
    let f;
    let off;
    if (nvim) {
      f = await nvimPart(bin, dir, work, paths, true);
      // The same with checkpoints off: what the turns cost the editor without any snapshot.
      off = await nvimPart(bin, dir, work, paths, false);
    }
    return { md: table(r, f, off), r, f, off };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { nvimBin } = await import("./nvim.mjs");
  checkpointsBench({ bin: nvimBin(), nvim: !process.argv.includes("--no-nvim") }).then(
    ({ md, r, f, off }) => {
      process.stdout.write(md + "\n");
      if (process.argv.includes("--json")) process.stdout.write(JSON.stringify({ r, f, off }) + "\n");
      process.exit(0);
    },
    (e) => {
      say(e.stack ?? String(e));
      process.exit(1);
    },
  );
}
