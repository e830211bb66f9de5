#!/usr/bin/env node
// Benchmark of :AcpChatReview, standalone: `node bench/review.mjs` (prints a markdown table on
// stdout; `--json` adds the raw figures).
//
// A project of 1,000 files (40 lines each) and a chat whose agent (bench/checkpoints-agent.mjs)
// changes 200 of them with a shell command in two turns (100 each: sed on three lines). Then, in
// a real headless Neovim with a 160x50 UI attached, :AcpChatReview 1 is run five times (the
// tab closed between runs): the time from the command to the list drawn (200 files), and to the
// first file's diff shown in diff mode; a vim.uv timer every 1 ms records the editor's longest
// gap meanwhile. Then ]f through 20 files: each file's diff shown.
// Targets: the review open (list drawn) within 300 ms; the editor never blocked over 50 ms.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { nvimBin, root, startBenchNvim, waitLua as waitNvimLua } from "./nvim.mjs";

const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const FILES = 1000;
const CHANGED = 200;
const RUNS = 5;

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, min: s[0], median: s[Math.floor(s.length / 2)], max: s[s.length - 1], all: xs };
};

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-review-bench-"));
  const work = join(dir, "work");
  const paths = [];
  for (let i = 0; i < FILES; i++) {
    const rel = join(`pkg${String(Math.floor(i / 100)).padStart(2, "0")}`, `mod${String(i % 100).padStart(2, "0")}.ts`);
    if (i % 100 === 0) mkdirSync(join(work, rel, ".."), { recursive: true });
    writeFileSync(
      join(work, rel),
      Array.from({ length: 40 }, (_, l) => `export const v${l} = ${i * 40 + l};`).join("\n") + "\n",
    );
    paths.push(rel);
  }
  const bin = nvimBin();
  const setup = {
    agents: { bench: { command: process.execPath, args: [join(root, "bench/checkpoints-agent.mjs")] } },
    default_agent: "bench",
  };
  const { nvim, proc } = startBenchNvim(bin, join(dir, "nvim"), setup, work);
  const waitLua = (expr, ms) => waitNvimLua(nvim, expr, ms);
  const version = (await nvim.commandOutput("version")).split("\n")[0];
  await nvim.uiAttach(160, 50, { ext_linegrid: true, rgb: true });
  await nvim.lua(`
    _G.gap = { max = 0 }
    local last = vim.uv.hrtime()
    _G.gap.timer = vim.uv.new_timer()
    _G.gap.timer:start(1, 1, function()
      local now = vim.uv.hrtime()
      local g = (now - last) / 1e6 - 1
      if g > _G.gap.max then _G.gap.max = g end
      last = now
    end)
    vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function() _G.turn_end = true end })`);
  await nvim.command("AcpChat");
  await waitLua("(require('acpchat.chat.registry').current().status or {}).state == 'ready'");
  const chatId = await nvim.lua("return require('acpchat.chat.registry').current().id");
  // Two turns of 100 files each (the changes block of each is the sign its snapshot is in).
  // The chat's first snapshot is in (its ref written): the turns are counted from it.
  const cps = join(dir, "nvim", "state", "nvim", "acpchat", "checkpoints");
  for (const end = Date.now() + 60_000; ; await sleep(50)) {
    const ok =
      existsSync(cps) &&
      readdirSync(cps).some((p) => {
        const refs = join(cps, p, "git", "refs", "acpchat");
        return existsSync(refs) && readdirSync(refs).some((c) => existsSync(join(refs, c, "0")));
      });
    if (ok) break;
    if (Date.now() > end) throw new Error("the first snapshot never came");
  }
  globalThis.msgs = () => nvim.lua("return vim.fn.execute('messages')");
  for (let t = 0; t < 2; t++) {
    const files = paths.slice(t * (CHANGED / 2), (t + 1) * (CHANGED / 2)).filter((_, i) => i < CHANGED / 2);
    const cmd = `sed -i 's/= 3;/= 33;/; s/v20 = /v20 = 1 + /; s/v39 = /v39 = 2 * /' ${files.map((p) => p).join(" ")}`;
    await nvim.lua(
      "local id, text = ...; _G.turn_end = nil; require('acpchat.app.chats').send(require('acpchat.chat.registry').get(id), text)",
      [chatId, `bench ${join(dir, "stamp")} ${cmd}`],
    );
    await waitLua("_G.turn_end");
    await waitLua(
      `#vim.tbl_filter(function(l) return l:match('^◆ ') end, vim.api.nvim_buf_get_lines(require('acpchat.chat.registry').get(${chatId}).buf, 0, -1, false)) >= ${t + 1}`,
    );
  }
  const listShown = `(function() local _, l = next(require('acpchat.review.loop').loops); return l and #l.files > 0 and vim.api.nvim_buf_line_count(l.list_buf) >= #l.files and #l.files end)()`;
  const diffShown =
    "(function() for _, r in pairs(require('acpchat.ask.review').open_reviews) do if r.lw and vim.api.nvim_win_is_valid(r.lw) and vim.wo[r.lw].diff then return r.path end end end)()";
  // The noise floor: the same timer with nothing running.
  await nvim.lua("_G.gap.max = 0");
  await sleep(3000);
  const idle = await nvim.lua("return _G.gap.max");
  say(`idle: longest gap ${idle.toFixed(1)} ms`);
  const open = [];
  const first = [];
  let listed = 0;
  const gaps = [];
  for (let i = 0; i < RUNS; i++) {
    await sleep(300);
    await nvim.lua("_G.gap.max = 0");
    const t0 = performance.now();
    await nvim.command("AcpChatReview 1");
    listed = await waitLua(listShown);
    open.push(performance.now() - t0);
    await waitLua(diffShown);
    first.push(performance.now() - t0);
    await sleep(100);
    gaps.push(await nvim.lua("return _G.gap.max"));
    say(
      `run ${i + 1}: list ${open.at(-1).toFixed(0)} ms, first diff ${first.at(-1).toFixed(0)} ms, gap ${gaps.at(-1).toFixed(1)} ms`,
    );
    if (i < RUNS - 1)
      await nvim.lua(
        "local _, l = next(require('acpchat.review.loop').loops); require('acpchat.review.loop').close(l)",
      );
  }
  // ]f through 20 files: each file's diff in the tab.
  await nvim.lua("_G.gap.max = 0");
  const steps = [];
  for (let i = 0; i < 20; i++) {
    const before = await nvim.lua(`return ${diffShown}`);
    const t0 = performance.now();
    await nvim.input("]f");
    await waitLua(`(${diffShown}) and (${diffShown}) ~= ${JSON.stringify(before)}`);
    steps.push(performance.now() - t0);
  }
  const stepGap = await nvim.lua("return _G.gap.max");
  say(
    `]f: median ${stats(steps).median.toFixed(0)} ms, max ${stats(steps).max.toFixed(0)} ms; gap ${stepGap.toFixed(1)} ms`,
  );
  proc.kill();
  rmSync(dir, { recursive: true, force: true });
  const o = stats(open.slice(1));
  const f = stats(first);
  const g = Math.max(...gaps, stepGap);
  const x = (n) => n.toFixed(0);
  const goal = (ok) => (ok ? "met" : "**missed**");
  const table = [
    `${version}, ${cpus().length} cores, load ${loadavg()[0].toFixed(1)}; ${CHANGED} files changed over 2 turns in a project of ${FILES} (${listed} listed).`,
    "",
    "| what | figure | target |",
    "| --- | --- | --- |",
    `| :AcpChatReview 1 to the list of ${CHANGED} files drawn | first ${x(open[0])} ms; again: median ${x(o.median)} ms, max ${x(o.max)} ms (${RUNS - 1} runs) | ≤ 300 ms: ${goal(Math.max(...open) <= 300)} |`,
    `| ... to the first file's diff in diff mode | median ${x(f.median)} ms, max ${x(f.max)} ms | - |`,
    `| ]f to the next file's diff | median ${x(stats(steps).median)} ms, max ${x(stats(steps).max)} ms (20 files) | - |`,
    `| the editor's longest gap (1 ms timer) | ${g.toFixed(1)} ms (idle, nothing running: ${idle.toFixed(1)} ms) | ≤ 50 ms: ${goal(g <= 50)} |`,
  ].join("\n");
  process.stdout.write(table + "\n");
  if (process.argv.includes("--json"))
    process.stdout.write(JSON.stringify({ idle, open, first, gaps, steps, stepGap }) + "\n");
}

main().catch(async (e) => {
  say(String(e?.stack ?? e));
  if (globalThis.msgs) say((await globalThis.msgs()).slice(-2000));
  process.exit(1);
});
