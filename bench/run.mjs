#!/usr/bin/env node
// Benchmarks (`npm run bench`): a real headless Neovim with the plugin loaded as a user loads it,
// against a flood agent. Every figure is a ratio or a distribution measured in this one run, so
// it holds on a noisy machine. Writes bench/RESULTS.md.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem, tmpdir, platform, release } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { attach } from "neovim";
import { floodLines } from "./flood-agent.mjs";
import { streamBench } from "./flood-stream.mjs";
import { bigChunkBench, BIG_BEFORE } from "./big-chunk.mjs";
import { replayBench, REPLAY_BEFORE } from "./replay.mjs";
import { sessionsListBench } from "./sessions-list.mjs";
import { BEFORE, FIRST } from "./flood-before.mjs";
import { benchStart } from "./start.mjs";
import { nvimBin, nvimBins, nvimLabel, startBenchNvim } from "./nvim.mjs";
import { readFrames } from "./flood-baseline.mjs";
import { heapParts } from "./heap-snapshot.mjs";
import { userClockChecked } from "./user-clock.mjs";
import { hostStart, hostStartSection } from "./host-start.mjs";
import { pinnedBuild } from "./pinned.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const FLOOD = join(root, "bench/flood-agent.mjs");
const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const ms = (ns) => Number(ns) / 1e6;

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function rssKiB(pid) {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+)/);
  return m ? Number(m[1]) : NaN;
}

async function startNvim(bin, dir) {
  const setup = { agents: { flood: { command: process.execPath, args: [FLOOD] } }, default_agent: "flood" };
  const { nvim, proc, sock } = startBenchNvim(bin, dir, setup);
  await nvim.eval("1");
  return { nvim, proc, sock };
}

async function waitLua(nvim, expr, timeoutMs = 120000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await nvim.lua(`return ${expr}`);
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${expr}`);
    await sleep(10);
  }
}

/**
 * Bare Node: the same agent, the same prompt, read from a pipe as plainly as Node allows (no
 * readline: each buffer split on \n, a cut line joined to the next buffer, JSON.parse each line),
 * nothing drawn. Timed from the prompt sent to its response parsed, as the plugin is.
 */
async function bareNode(chunks, tools) {
  const child = spawn(process.execPath, [FLOOD], { stdio: ["pipe", "pipe", "inherit"] });
  const send = (m) => child.stdin.write(JSON.stringify(m) + "\n");
  let t0 = 0n;
  let parsed = 0;
  const done = new Promise((resolve) => {
    const onMessage = (m) => {
      parsed++;
      if (m.id === 1) {
        send({
          jsonrpc: "2.0",
          id: 2,
          method: "session/prompt",
          params: { sessionId: m.result.sessionId, prompt: [{ type: "text", text: `flood ${chunks} ${tools}` }] },
        });
        t0 = process.hrtime.bigint();
        parsed = 0;
      } else if (m.id === 2) resolve(process.hrtime.bigint());
    };
    readFrames(child.stdout, onMessage);
  });
  send({ jsonrpc: "2.0", id: 0, method: "initialize", params: { protocolVersion: 1 } });
  send({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } });
  const t1 = await done;
  child.kill();
  return { ms: ms(t1 - t0), parsed };
}

/** The naive baseline: one Neovim request per chunk. */
async function naive(nvim, texts) {
  const buf = await nvim.createBuffer(false, true);
  const id = buf.id;
  const t0 = process.hrtime.bigint();
  let row = 0;
  let col = 0;
  for (const t of texts) {
    const parts = t.split("\n");
    await nvim.request("nvim_buf_set_text", [id, row, col, row, col, parts]);
    if (parts.length > 1) {
      row += parts.length - 1;
      col = Buffer.byteLength(parts[parts.length - 1]);
    } else col += Buffer.byteLength(t);
  }
  return ms(process.hrtime.bigint() - t0);
}

async function main() {
  const bin = nvimBin();
  const version = execFileSync(bin, ["--version"], { encoding: "utf8" }).split("\n")[0];
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-"));
  say(`bench: ${version}, node ${process.version}`);
  const { nvim, proc, sock } = await startNvim(bin, dir);
  const results = {};

  // 6. Start: :AcpChat to the prompt being ready, node host cold start included.
  await nvim.lua(`
    _G.bench = {}
    vim.api.nvim_create_autocmd("User", { pattern = "AcpChatUpdate", callback = function()
      local c = require("acpchat.chat.registry").current()
      if c and c.status and c.status.state == "ready" and not _G.bench.ready then _G.bench.ready = vim.uv.hrtime() end
    end })
    vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function() _G.bench.turn_end = vim.uv.hrtime() end })
    _G.bench.open = vim.uv.hrtime()
    vim.cmd("AcpChat")
  `);
  await waitLua(nvim, "_G.bench.ready");
  const startMs = ms(await nvim.lua("return _G.bench.ready - _G.bench.open"));
  const chatId = await nvim.lua("return require('acpchat.chat.registry').current().id");
  const trace = await nvim.lua("return require('acpchat.host.bridge').call_sync('trace', { chat = ... })", [chatId]);
  const at = (dir_, kind, method) =>
    Date.parse(trace.find((e) => e.dir === dir_ && e.kind === kind && e.method === method).time);
  const agentMs =
    at("in", "response", "initialize") -
    at("out", "request", "initialize") +
    (at("in", "response", "session/new") - at("out", "request", "session/new"));
  results.start = { totalMs: startMs, agentMs, clientMs: startMs - agentMs };
  say(`start: ${startMs.toFixed(0)} ms (agent ${agentMs} ms)`);

  // 1-3. Throughput, responsiveness and batches during a flood.
  const CHUNKS = 20000;
  const TOOLS = 200;
  const pinger = attach({ socket: sock });
  await pinger.eval("1");
  const rtts = [];
  let pinging = true;
  const ping = (async () => {
    while (pinging) {
      const t0 = process.hrtime.bigint();
      await pinger.eval("1");
      rtts.push(ms(process.hrtime.bigint() - t0));
      await sleep(5);
    }
  })();
  // Warm-up (both sides): the JIT, not the design, is what the first turns measure.
  for (let i = 0; i < 3; i++) {
    await nvim.lua(
      `_G.bench.turn_end = nil; require("acpchat.app.chats").send(require("acpchat.chat.registry").get(...), "flood 4000 40")`,
      [chatId],
    );
    await waitLua(nvim, "_G.bench.turn_end");
    await bareNode(4000, 40);
  }
  await sleep(100);
  const batchesBefore = await nvim.lua("return require('acpchat.chat.registry').get(...).batches or 0", [chatId]);
  await nvim.lua(
    `
    _G.bench.turn_end = nil
    _G.bench.send = vim.uv.hrtime()
    require("acpchat.app.chats").send(require("acpchat.chat.registry").get(...), "flood ${CHUNKS} ${TOOLS}")
  `,
    [chatId],
  );
  await waitLua(nvim, "_G.bench.turn_end");
  const floodMs = ms(await nvim.lua("return _G.bench.turn_end - _G.bench.send"));
  pinging = false;
  await ping;
  const batches =
    (await nvim.lua("return require('acpchat.chat.registry').get(...).batches", [chatId])) - batchesBefore;
  // Correctness: the transcript holds exactly the streamed text.
  const { text: expected } = floodLines("x", CHUNKS, TOOLS);
  const lines = await nvim.lua(
    "return vim.api.nvim_buf_get_lines(require('acpchat.chat.registry').get(...).buf, 0, -1, false)",
    [chatId],
  );
  const transcript = lines.join("\n");
  const turnText = transcript.slice(transcript.lastIndexOf("## You"));
  // Paragraphs of the reply (a header line such as "## flood" opens the first one).
  const agentText = turnText
    .split("\n\n")
    .map((p) => p.replace(/^## [^\n]*\n/, ""))
    .filter((p) => p.startsWith("w"))
    .join("");
  const complete =
    agentText.replace(/\n/g, "") === expected.replace(/\n/g, "") && (turnText.match(/Tool \d+/g) ?? []).length === 20;
  // Two more rounds of each side, alternating, so the ratio is a median, not one draw.
  const floods = [floodMs];
  const bares = [(await bareNode(CHUNKS, TOOLS)).ms];
  for (let i = 0; i < 2; i++) {
    await nvim.lua(
      `_G.bench.turn_end = nil; _G.bench.send = vim.uv.hrtime(); require("acpchat.app.chats").send(require("acpchat.chat.registry").get(...), "flood ${CHUNKS} ${TOOLS}")`,
      [chatId],
    );
    await waitLua(nvim, "_G.bench.turn_end");
    floods.push(ms(await nvim.lua("return _G.bench.turn_end - _G.bench.send")));
    bares.push((await bareNode(CHUNKS, TOOLS)).ms);
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const bare = { ms: median(bares) };
  const floodMedian = median(floods);
  const texts = [];
  for (let i = 0; i < CHUNKS; i++) texts.push(i % 50 === 49 ? "w\n" : `w${i % 10} `);
  const naiveMs = await naive(nvim, texts);
  rtts.sort((a, b) => a - b);
  results.throughput = {
    floodMs: floodMedian,
    floods,
    bares,
    bareMs: bare.ms,
    ratio: floodMedian / bare.ms,
    naiveMs,
    naiveRatio: naiveMs / bare.ms,
    complete,
  };
  results.responsiveness = { samples: rtts.length, p50: pct(rtts, 50), p99: pct(rtts, 99), max: rtts[rtts.length - 1] };
  results.batches = { batches, frames: floodMs / 16, perFrame: batches / Math.max(1, floodMs / 16) };
  say(
    `throughput: median ${floodMedian.toFixed(0)} ms [${floods.map((x) => x.toFixed(0))}] vs bare ${bare.ms.toFixed(0)} ms [${bares.map((x) => x.toFixed(0))}] (x${(floodMedian / bare.ms).toFixed(2)}); naive ${naiveMs.toFixed(0)} ms; complete=${complete}`,
  );
  say(
    `responsiveness: p50 ${pct(rtts, 50).toFixed(2)} p99 ${pct(rtts, 99).toFixed(2)} max ${rtts[rtts.length - 1].toFixed(2)} ms (${rtts.length} samples)`,
  );
  say(`batches: ${batches} over ${(floodMs / 16).toFixed(0)} frames`);

  // 4. Appends into a 1,000-line vs a 100,000-line transcript (each append its own batch).
  const appendCost = async (n) =>
    nvim.lua(
      `
      local n, k = ...
      local chats = require("acpchat.chat.registry")
      local b = vim.api.nvim_create_buf(false, true)
      local lines = {}
      for i = 1, n do lines[i] = "line " .. i .. " of the earlier transcript" end
      vim.api.nvim_buf_set_lines(b, 0, -1, false, lines)
      local id = 100000 + n
      chats.chats[id] = { id = id, buf = b }
      local render = require("acpchat.chat.render")
      render.apply(id, { { op = "add", block = { id = "x", type = "agent", text = "start" } } })
      local t0 = vim.uv.hrtime()
      for i = 1, k do render.apply(id, { { op = "append", id = "x", text = (i % 40 == 0) and "w\\n" or "w1 " } }) end
      local dt = vim.uv.hrtime() - t0
      chats.chats[id] = nil
      vim.api.nvim_buf_delete(b, { force = true })
      return dt / k
    `,
      [n, 2000],
    );
  await appendCost(1000); // warm-up
  // Alternate the two sizes and keep the median of each: one slow moment must not decide it.
  const smalls = [];
  const larges = [];
  for (let i = 0; i < 5; i++) {
    smalls.push(await appendCost(1000));
    larges.push(await appendCost(100000));
  }
  const small = smalls.sort((a, b) => a - b)[2];
  const large = larges.sort((a, b) => a - b)[2];
  results.appends = { smallUs: small / 1000, largeUs: large / 1000, ratio: large / small };
  say(
    `appends: ${(small / 1000).toFixed(1)} µs at 1k lines, ${(large / 1000).toFixed(1)} µs at 100k lines (x${(large / small).toFixed(2)})`,
  );

  // 5. fs/read_text_file of a 2,000-line window from a modified 200,000-line buffer vs disk.
  const big = join(dir, "big.txt");
  writeFileSync(
    big,
    Array.from({ length: 200000 }, (_, i) => `line ${i + 1} with some text to make it realistic`).join("\n") + "\n",
  );
  await nvim.command(`edit ${big}`);
  await nvim.lua("vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'modified' })");
  const reps = 30;
  const readBuf = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    const r = await nvim.lua('return require("acpchat.editor.workspace").state(...)', [
      { path: big, first: 99999, last: 101999 },
    ]);
    readBuf.push(ms(process.hrtime.bigint() - t0));
    if (!r.loaded || r.lines.length !== 2000) throw new Error("buffer read returned the wrong window");
  }
  const readDisk = [];
  for (let i = 0; i < reps; i++) {
    const t0 = process.hrtime.bigint();
    const text = readFileSync(big, "utf8").split("\n").slice(99999, 101999).join("\n");
    readDisk.push(ms(process.hrtime.bigint() - t0));
    if (text.split("\n").length !== 2000) throw new Error("disk read returned the wrong window");
  }
  readBuf.sort((a, b) => a - b);
  readDisk.sort((a, b) => a - b);
  results.reads = {
    bufferP50: pct(readBuf, 50),
    diskP50: pct(readDisk, 50),
    ratio: pct(readBuf, 50) / pct(readDisk, 50),
  };
  say(`reads: buffer ${pct(readBuf, 50).toFixed(2)} ms, disk ${pct(readDisk, 50).toFixed(2)} ms`);
  await nvim.command("bwipeout!");

  // 7. Memory before and after 200,000 chunks.
  const nvimPid = await nvim.call("getpid");
  const chat2 = await nvim.lua("vim.cmd('AcpChat!'); return require('acpchat.chat.registry').current().id");
  await waitLua(nvim, `require('acpchat.chat.registry').get(${chat2}).status.state == 'ready'`);
  await sleep(300);
  const flood200k = async () => {
    for (let i = 0; i < 10; i++) {
      await nvim.lua(
        `_G.bench.turn_end = nil; require("acpchat.app.chats").send(require("acpchat.chat.registry").get(...), "flood 20000 0")`,
        [chat2],
      );
      await waitLua(nvim, "_G.bench.turn_end");
    }
    await sleep(500);
    return snap();
  };
  // Node: live heap after a full GC (RSS only shows when V8 chose to collect); Neovim: RSS.
  // The heap snapshot tells the program's data from V8's own objects (bench/heap-snapshot.mjs).
  let snaps = 0;
  const snap = async () => {
    const file = join(dir, `heap-${snaps++}.heapsnapshot`);
    const m = await nvim.lua(
      "return require('acpchat.host.bridge').call_sync('memory', { gc = true, snapshot = ... }, 60000)",
      [file],
    );
    const parts = heapParts(file);
    return {
      node: Math.round(m.heap_used / 1024),
      code: Math.round(m.code_used / 1024),
      data: Math.round(parts.data / 1024),
      v8own: Math.round(parts.v8own / 1024),
      nodeRss: Math.round(m.rss / 1024),
      nvim: rssKiB(nvimPid),
    };
  };
  const transcriptKiB = async () =>
    (await nvim.lua(
      "local b = require('acpchat.chat.registry').get(...).buf; return vim.api.nvim_buf_get_offset(b, vim.api.nvim_buf_line_count(b))",
      [chat2],
    )) / 1024;
  const before = await snap();
  const after = await flood200k();
  const t1 = await transcriptKiB();
  // A second 200,000: with a bounded overhead, memory now grows by about the transcript only.
  const after2 = await flood200k();
  const t2 = await transcriptKiB();
  // Two more: V8 still optimises (bytecode, feedback, code) in the second, so one round's growth
  // swings by ~100 KiB either way; the mean of rounds 2-4 is the steady state.
  const after3 = await flood200k();
  const after4 = await flood200k();
  const t4 = await transcriptKiB();
  results.memory = {
    before,
    after,
    after2,
    after4,
    transcriptKiB: t1,
    transcript2KiB: t2 - t1,
    steady: {
      node: (after4.node - after.node) / 3,
      data: (after4.data - after.data) / 3,
      nvim: (after4.nvim - after.nvim) / 3,
      transcript: (t4 - t1) / 3,
    },
  };
  void after3;
  say(
    `memory: node heap ${before.node} -> ${after.node} -> ${after2.node} KiB, nvim ${before.nvim} -> ${after.nvim} -> ${after2.nvim} KiB, transcript +${t1.toFixed(0)} then +${(t2 - t1).toFixed(0)} KiB`,
  );

  await nvim.command("AcpChatClose").catch(() => undefined);
  proc.kill("SIGTERM");
  // 10. Streaming at the speed of the pipe: long replies, a UI attached (bench/flood-stream.mjs).
  results.stream = { ui: await streamBench({ bin, ui: true }), headless: await streamBench({ bin, ui: false }) };
  // 14. One chunk of 4, 8 and 15 MB with no line break, a UI attached (bench/big-chunk.mjs).
  say("big chunks: bench/big-chunk.mjs");
  results.big = await bigChunkBench({ bin });
  // 15. A session of 100,000 updates loaded, against a bare parse (bench/replay.mjs).
  say("replay: bench/replay.mjs");
  results.replay = await replayBench({ bin });
  // 16. :AcpChatSessions with 5,000 stored sessions (bench/sessions-list.mjs).
  say("sessions list: bench/sessions-list.mjs");
  results.sessions = await sessionsListBench({ bin });
  // 8. The first :AcpChat of a fresh Neovim, and the editor while an agent starts.
  results.open = await benchStart(root, bin, 5);
  say(
    `open: :AcpChat ${results.open.openMs.toFixed(1)} ms, worst editor answer while starting ${results.open.worstMs.toFixed(1)} ms`,
  );
  writeResults(results, version);
  // 9. The agent's edits: diff and review open time (bench/edits.mjs, its own Neovims).
  appendScript("edits: bench/edits.mjs", "bench/edits.mjs", "\n## Edits (9)\n\n", bin);
  // 11. The editor's tools: the safe path against the RPC socket it denies agents.
  appendScript("editor tools: bench/editor-tools.mjs", "bench/editor-tools.mjs", "\n## Editor tools (11)\n\n", bin);
  // 11b. Reading through the editor's read_file tool against fs/read_text_file.
  appendScript("file reads: bench/file-read.mjs", "bench/file-read.mjs", "\n", bin);
  // 12. Turn checkpoints: snapshot, prompt-delay, editor and rewind figures on a
  // generated 10,000-file project (bench/checkpoints.mjs, its own Neovims).
  appendScript("checkpoints: bench/checkpoints.mjs", "bench/checkpoints.mjs", "\n## Checkpoints (12)\n\n", bin);
  // 17. Inputs as large as the plugin's limits: huge lines, big buffers, big per-hunk reviews
  // (bench/sizes.mjs, its own Neovim with a UI attached).
  appendScript("sizes: bench/sizes.mjs", "bench/sizes.mjs", "\n## Sizes (17)\n\n", bin);
  // 13. Redaction of hostile text: linear in the text's length.
  appendScript("redaction: bench/redact.mjs", "bench/redact.mjs", "\n## Redaction of hostile text (13)\n\n");
  // 18. :AcpChatReview of 200 changed files: open, first diff, ]f, the editor's longest gap
  // (bench/review.mjs, its own Neovim with a UI attached).
  appendScript("review: bench/review.mjs", "bench/review.mjs", "\n## The review loop (18)\n\n", bin);
  // 19. The Node host's cold start: its CPU and wall to its first answer, against the pinned
  // build (bench/host-start.mjs, its own Neovims).
  say("host start: bench/host-start.mjs");
  const hs = await hostStart({ pinnedRoot: pinnedBuild(), bin });
  writeFileSync(
    join(root, "bench/RESULTS.md"),
    `${readFileSync(join(root, "bench/RESULTS.md"), "utf8")}\n## The Node host's start (19)\n\n${hostStartSection(hs)}`,
  );
  // 17. The user's clock against the pinned earlier build (bench/user-clock.mjs), on every
  // installed Neovim: the README's tables; a headline more than 15% worse than that build's
  // fails the bench.
  let slips = 0;
  for (const b of nvimBins()) {
    say(`user clock: bench/user-clock.mjs, Neovim ${nvimLabel(b)}`);
    const clock = await userClockChecked({ bin: b });
    slips += clock.slips.length;
    writeFileSync(
      join(root, "bench/RESULTS.md"),
      readFileSync(join(root, "bench/RESULTS.md"), "utf8") +
        `\n## The user's clock against the pinned build, Neovim ${nvimLabel(b)} (17)\n\n` +
        clock.md +
        "\n",
    );
  }
  process.exit(slips > 0 ? 1 : 0);
}

/** Run a bench script of its own (its Neovims: `bin`, when given) and append its report to RESULTS.md under `header`. */
function appendScript(what, script, header, bin) {
  say(what);
  const report = execFileSync(process.execPath, [join(root, script)], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    env: bin ? { ...process.env, NVIM: bin } : process.env,
  });
  const results = join(root, "bench/RESULTS.md");
  writeFileSync(results, readFileSync(results, "utf8") + header + report);
}

function writeResults(r, version) {
  const cpu = cpus();
  const f = (x, d = 1) => (typeof x === "number" ? x.toFixed(d) : String(x));
  const goal = (ok) => (ok ? "met" : "**missed**");
  const md = `# Benchmark results

Generated by \`npm run bench\` on ${new Date().toISOString()}.
Machine: ${cpu.length} × ${cpu[0]?.model ?? "?"}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${platform()} ${release()}.
${version}, Node ${process.version}. Each figure is a ratio or distribution from this one run.

| # | what | figure | goal |
| --- | --- | --- | --- |
| 1 | throughput: 20,000 chunks + 200 tool call updates, \`:AcpChatSend\` to the transcript holding all of it (median of 3, alternating with bare Node: the same bytes from the same pipe, each buffer split on \\n, JSON.parse per line, no readline) | ${f(r.throughput.floodMs, 0)} ms [${r.throughput.floods.map((x) => x.toFixed(0)).join(", ")}] vs bare Node ${f(r.throughput.bareMs, 0)} ms [${r.throughput.bares.map((x) => x.toFixed(0)).join(", ")}]: **x${f(r.throughput.ratio, 2)}** (transcript complete: ${r.throughput.complete}) | ≤ x3: ${goal(r.throughput.ratio <= 3 && r.throughput.complete)} |
| 1b | naive baseline: one Neovim request per chunk | ${f(r.throughput.naiveMs, 0)} ms: x${f(r.throughput.naiveRatio, 1)} of bare Node | (reference) |
| 2 | responsiveness: \`nvim_eval("1")\` every 5 ms during (1), ${r.responsiveness.samples} samples | p50 ${f(r.responsiveness.p50, 2)} ms, p99 **${f(r.responsiveness.p99, 2)} ms**, max ${f(r.responsiveness.max, 2)} ms | p99 < 16 ms: ${goal(r.responsiveness.p99 < 16)} |
| 3 | render batches reaching Lua during (1) | ${r.batches.batches} batches over ${f(r.batches.frames, 0)} frames of 16 ms (**${f(r.batches.perFrame, 2)}** per frame) | ≤ 1 per frame + 1: ${goal(r.batches.batches <= Math.ceil(r.batches.frames) + 1)} |
| 4 | one append into a 1,000- vs a 100,000-line transcript | ${f(r.appends.smallUs)} µs vs ${f(r.appends.largeUs)} µs: **x${f(r.appends.ratio, 2)}** | ≤ x1.5: ${goal(r.appends.ratio <= 1.5)} |
| 5 | fs/read_text_file, 2,000 lines from a modified 200,000-line buffer vs the same window from disk in Node (p50 of 30) | buffer ${f(r.reads.bufferP50, 2)} ms, disk ${f(r.reads.diskP50, 2)} ms (x${f(r.reads.ratio, 2)}) | (report) |
| 6 | start: \`:AcpChat\` to the prompt ready, node host cold start included | ${f(r.start.totalMs, 0)} ms total, of which the agent's initialize + session/new ${f(r.start.agentMs, 0)} ms: **client ${f(r.start.clientMs, 0)} ms** | (report) |
| 8 | first \`:AcpChat\` of a fresh Neovim (node host cold) to the command returning; the slowest answer to a second client asking every 5 ms until the chat is ready, with an agent taking 1.5 s to initialize (median of ${r.open.runs.length} fresh Neovims) | \`:AcpChat\` **${f(r.open.openMs, 1)} ms** [${r.open.runs.map((x) => x.openMs.toFixed(0)).join(", ")}]; slowest answer **${f(r.open.worstMs, 1)} ms** [${r.open.runs.map((x) => x.worstMs.toFixed(0)).join(", ")}]; ready after ${f(r.open.readyMs, 0)} ms | < 100 ms: ${goal(r.open.openMs < 100)}; < 16 ms: ${goal(r.open.worstMs < 16)} |
| 7 | memory before, after 200,000 chunks, after 200,000 more (Node: heap after a full GC, and of it the program's data, without V8's compiled code, feedback and object shapes, from a heap snapshot; Neovim: RSS) | Node heap ${r.memory.before.node} → ${r.memory.after.node} → ${r.memory.after2.node} KiB, data ${r.memory.before.data} → ${r.memory.after.data} → ${r.memory.after2.data} KiB; Neovim ${r.memory.before.nvim} → ${r.memory.after.nvim} → ${r.memory.after2.nvim} KiB; transcript +${f(r.memory.transcriptKiB, 0)} then +${f(r.memory.transcript2KiB, 0)} KiB | second 200k grows ≤ transcript: Node's data +${r.memory.after2.data - r.memory.after.data} KiB ${goal(r.memory.after2.data - r.memory.after.data <= r.memory.transcript2KiB)} (its whole heap +${r.memory.after2.node - r.memory.after.node} KiB: ${goal(r.memory.after2.node - r.memory.after.node <= r.memory.transcript2KiB)}), Neovim +${r.memory.after2.nvim - r.memory.after.nvim} KiB ${goal(r.memory.after2.nvim - r.memory.after.nvim <= r.memory.transcript2KiB)}. Mean of the 2nd-4th 200k: Node's data +${f(r.memory.steady.data, 0)} KiB (heap +${f(r.memory.steady.node, 0)}), Neovim +${f(r.memory.steady.nvim, 0)} KiB per +${f(r.memory.steady.transcript, 0)} KiB of transcript |
${streamSection(r.stream)}
${bigSection(r.big, version)}
${replaySection(r.replay)}
## \`:AcpChatSessions\` with 5,000 stored sessions (16)

\`bench/sessions-list.mjs\`: the agent lists 5,000 sessions (session/list, 500 a page), the chat open, a 160x50 UI
attached: from the command to the picker's entries labelled, median of ${r.sessions.times.length} (the first, JIT cold, included).

| what | figure | goal |
| --- | --- | --- |
| \`:AcpChatSessions\` to the picker | **${r.sessions.ms.toFixed(0)} ms** [${r.sessions.times.map((x) => x.toFixed(0)).join(", ")}], every session listed: ${r.sessions.complete} | < 200 ms: ${r.sessions.ms < 200 ? "met" : "**missed**"} |
| the editor's longest answer meanwhile | ${r.sessions.max.toFixed(1)} ms | < 50 ms: ${r.sessions.max < 50 ? "met" : "**missed**"} |
`;
  writeFileSync(join(root, "bench/RESULTS.md"), md);
  say("wrote bench/RESULTS.md");
}

/** Section 10: the plugin against the plain baseline, UI attached and headless, before and after. */
function streamSection(st) {
  const f = (x, d = 0) => (typeof x === "number" ? x.toFixed(d) : "–");
  const goal = (ok) => (ok ? "met" : "**missed**");
  const rows = [];
  for (const mode of ["ui", "headless"]) {
    for (const c of st[mode].results) {
      const same = (x) => x.chunks === c.chunks && x.long === c.long && (x.tools ?? 0) === (c.tools ?? 0);
      const a = FIRST[mode].find(same);
      const b = BEFORE[mode].find(same);
      const limit = c.chunks >= 200000 ? 2 : 1.5;
      rows.push(
        `| ${mode === "ui" ? "UI 160x50" : "headless"} | ${c.chunks.toLocaleString("en")} chunks, ${c.long ? "one long line" : "many lines"}${c.tools ? `, a tool call update every ${c.chunks / c.tools} chunks` : ""} | ` +
          `x${f(a?.ratio, 2)} → x${f(b?.ratio, 2)} (${f(b?.pluginMs)} vs ${f(b?.baseMs)} ms) | **x${f(c.ratio, 2)}** (${f(c.pluginMs)} [${c.plugin.map((x) => x.toFixed(0)).join(", ")}] vs ${f(c.baseMs)} [${c.base.map((x) => x.toFixed(0)).join(", ")}] ms) | ≤ x${limit}: ${goal(c.ratio <= limit && c.complete)} | ` +
          `${f(a?.p99, 1)} / ${f(a?.max, 1)} → ${f(b?.p99, 1)} / ${f(b?.max, 1)} | **${f(c.p99, 1)} / ${f(c.max, 1)}** (${c.samples}) | ${goal(c.p99 < 16 && c.max < 50)} | ` +
          `x${f(a?.cpuRatio, 2)} → x${f(b?.cpuRatio, 2)} (${f(b?.hostCpuMs)} vs ${f(b?.baseCpuMs)}) | **x${f(c.cpuRatio, 2)}** (${f(c.hostCpuMs)} vs ${f(c.baseCpuMs)}) | ${goal(c.cpuRatio <= 2)} | ${f(a?.nvimCpuMs)} → ${f(b?.nvimCpuMs)} → ${f(c.nvimCpuMs)} | ${c.complete} |`,
      );
    }
  }
  return `
## Streaming at the speed of the pipe (10)

\`bench/flood-stream.mjs\`: replies of 20,000 and 200,000 \`agent_message_chunk\` updates of 2 or 3 bytes, as many
short lines (a newline every 50 chunks) or as one long line (no newline at all), into one chat with the default
config (trace on, redaction on). Time runs from the agent's first byte of the flood (the agent writes the wall
clock to a file just before it writes) to the transcript holding all of it (\`AcpChatTurnEnd\`). Each figure is
the median of 3 plugin floods alternating with 3 baselines. **Baseline** (\`bench/flood-baseline.mjs\`): a Node
process that starts the same agent and reads the same bytes from the same pipe as plainly as Node allows: no
readline, each \`data\` buffer is split on \\n with \`indexOf\`, a line cut by the buffer's end is joined to the
next buffer, each line is decoded and \`JSON.parse\`d, nothing else; it has read five floods of 4,000 chunks
first (JIT warm; with 40 tool call updates when the measured flood has them), as the plugin has read five
(each with 40 tool call updates). **UI**: a second client attached as a 160x50 UI (\`nvim_ui_attach\`, ext_linegrid) consumed
the redraw events (${st.ui.redraws} redraw batches). **Editor**: a third client's \`nvim_eval("1")\` every 5 ms during the
plugin's floods (p99 / max, samples). **CPU**: all threads' time on the CPU (/proc schedstat) of the plugin's Node
host during a flood vs the baseline process's own (process.cpuUsage) from its prompt to the response; Neovim's
own beside. **Before** (\`bench/flood-before.mjs\`, the same bench, earlier runs): first the plugin at 16bbc73
(before any work on this), then at c6f0e65 (trace written in batches, faster redaction, appends at the line's end).
**Now**: text chunks read together from the pipe are recognised by their learned head without \`JSON.parse\` and
reach the session as one update (\`JsonRpcPeer.coalesce\`), redacted in one pass and traced as one entry per read;
a batch carries at most 256 KiB and 4,096 line breaks, and a line past 64 KiB goes on in marked lines (appending
to a buffer line copies it whole), batches to a long last line coming in proportion to its length; the turn ends
before its end-of-turn checkpoint is taken (its changes block follows). The last row (a tool call update every
100 chunks into the one long line): "before" is the plugin at 56598e0 (the turn's end waited for the end
snapshot), measured with this bench in a run of its own.

| | reply | time / baseline before (16bbc73 → c6f0e65) | time / baseline now | goal | editor p99 / max ms before | now | goal (< 16 / < 50) | host CPU / baseline CPU before (ms) | now (ms) | goal (≤ x2) | Neovim CPU ms before → now | transcript byte-identical |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${rows.join("\n")}
`;
}

/** Section 14: one huge chunk, before and after, by Neovim version. */
function bigSection(rows, version) {
  const f = (x, d = 1) => (typeof x === "number" ? x.toFixed(d) : "–");
  const goal = (ok) => (ok ? "met" : "**missed**");
  const v = /v0\.10/.test(version) ? "0.10" : "0.12";
  const before = BIG_BEFORE[v] ?? [];
  const lines = rows.map((r) => {
    const b = before.find((x) => x.mb === r.mb);
    return `| ${r.mb} MB (${r.bytes.toLocaleString("en")} bytes) | ${f(b?.max)} / ${f(b?.p99)} ms | **${f(r.max)} / ${f(r.p99)} ms** (${r.samples}) | ${goal(r.max < 50 && r.p99 < 16)} | ${f(b?.ms, 0)} → ${f(r.ms, 0)} ms | ${r.exact} |`;
  });
  return `
## One huge chunk (14)

\`bench/big-chunk.mjs\`: one \`agent_message_chunk\` of 4, 8 and 15 MB with no line break (ASCII and multi-byte
characters), into a chat with a 160x50 UI attached (checkpoints off). **Editor**: a second client's
\`nvim_eval("1")\` every 2 ms, one at a time, from the prompt to 300 ms after the turn's end (longest / p99).
**Before**: the plugin at 56598e0 (the chunk drawn in one batch as one buffer line; the history of the turn read
whole at its end), this bench, ${v}. **Now**: batches of at most 256 KiB and 4,096 line breaks, one per frame;
lines broken at 64 KiB into marked continuation lines (\`long_line.text\` joins them back), drawn without
'wrap' while such a line is the transcript's end; the turn's history saved 1 MiB per turn of the loop.

| chunk | longest / p99 before | now | goal (< 50 / < 16) | prompt to the turn's end | transcript byte-exact |
| --- | --- | --- | --- | --- | --- |
${lines.join("\n")}
`;
}

/** Section 15: a long history loaded. */
function replaySection(r) {
  const f = (x, d = 1) => (typeof x === "number" ? x.toFixed(d) : "–");
  const goal = (ok) => (ok ? "met" : "**missed**");
  const b = REPLAY_BEFORE;
  return `
## A long history loaded (15)

\`bench/replay.mjs\`: \`session/load\` of a session of ${r.updates.toLocaleString("en")} updates (turns of 1,000, a reply of one line per two
chunks, a tool call every 100 updates and its completion: a transcript of ~54,600 lines) into a new chat shown in a
window, with a 160x50 UI attached. Time: from the chat asked for (the agent started, initialize) to the replay's
last line on screen, median of ${r.plugin.length} fresh Neovims; **bare**: a Node reader starting the same agent and
\`JSON.parse\`-ing the same bytes up to session/load's answer. **Editor**: a second client's \`nvim_eval("1")\` every 2 ms.
**Before**: the plugin at ${b.commit}, one round of this bench.

| | before | now | goal |
| --- | --- | --- | --- |
| time / bare parse | x${f(b.ratio, 2)} (${f(b.pluginMs, 0)} vs ${f(b.bareMs, 0)} ms) | **x${f(r.ratio, 2)}** (${f(r.pluginMs, 0)} [${r.plugin.map((x) => x.toFixed(0)).join(", ")}] vs ${f(r.bareMs, 0)} [${r.bares.map((x) => x.toFixed(0)).join(", ")}] ms) | ≤ x2: ${goal(r.ratio <= 2)} |
| editor longest / p99 | ${f(b.max)} / ${f(b.p99)} ms | **${f(r.max)} / ${f(r.p99)} ms** | < 50 / < 16: ${goal(r.max < 50 && r.p99 < 16)} |
| transcript complete (every reply line and tool call), the window at its last line | ${b.complete} / ${b.atEnd} | ${r.complete} / ${r.atEnd} | |
`;
}

main().catch((e) => {
  say(`bench failed: ${e.stack ?? e}`);
  process.exit(1);
});
