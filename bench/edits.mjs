#!/usr/bin/env node
// Benchmark of the agent's edits (standalone: `npm run build && node bench/edits.mjs`).
// For 1k, 10k and 100k-line files with 1% and 100% of the lines changed:
//   - the diff in Node (src/workspace/hunks.ts, bundled on the fly), and the `diff` package's
//     structuredPatch that the client used before (only where it finishes in reasonable time);
//   - the review opening in a real headless Neovim with a UI attached (so diff mode is drawn):
//     from the agent sending fs/write_text_file to the review tab open, and the editor's longest
//     blocking meanwhile (a second client pings `nvim_eval("1")` every 2 ms over the socket).
// Targets: a 10k-line full rewrite opens in review in under 300 ms; the editor is never blocked
// for more than 16 ms. Prints a markdown table (and JSON with --json).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { attach } from "neovim";
import { nvimBin, pinger, startBenchNvim, waitLua as waitNvimLua } from "./nvim.mjs";
import { build } from "esbuild";
import { structuredPatch } from "diff";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const AGENT = join(root, "bench/edits-agent.mjs");
const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function loadHunks(dir) {
  const outfile = join(dir, "hunks.mjs");
  await build({
    entryPoints: [join(root, "src/workspace/hunks.ts")],
    bundle: true,
    format: "esm",
    platform: "node",
    outfile,
    logLevel: "silent",
  });
  return import(pathToFileURL(outfile).href);
}

function texts(n, ratio) {
  const old = Array.from({ length: n }, (_, i) => `    line ${i} of the file, some code here (${(i * 7919) % 100003})`);
  const every = Math.round(1 / ratio);
  const neu = old.map((l, i) => (i % every === 0 ? l.replace("    ", "\t") + " // changed" : l));
  return { old, neu };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-edits-"));
  const hunks = await loadHunks(dir);
  const sizes = [1_000, 10_000, 100_000];
  const ratios = [0.01, 1];
  const rows = [];

  // Diffs in Node.
  for (const n of sizes) {
    for (const ratio of ratios) {
      const { old, neu } = texts(n, ratio);
      const a = { lines: old, eol: true };
      const b = { lines: neu, eol: true };
      const times = [];
      let d;
      for (let k = 0; k < 3; k++) {
        const t = performance.now();
        d = hunks.diffTexts(a, b);
        times.push(performance.now() - t);
      }
      let before;
      // The old path (structuredPatch, plus diffLines for the counts) takes seconds from 8k lines on.
      if (n <= 1_000 || (n <= 10_000 && ratio < 0.5)) {
        const s = old.join("\n") + "\n";
        const t2 = neu.join("\n") + "\n";
        const t = performance.now();
        structuredPatch("a", "b", s, t2, "", "", { context: 0 });
        before = performance.now() - t;
      }
      rows.push({ n, ratio, diffMs: median(times), hunks: d.hunks.length, exact: d.exact, beforeMs: before });
      say(
        `diff ${n} lines, ${ratio * 100}% changed: ${median(times).toFixed(1)} ms (${d.hunks.length} hunks${d.exact ? "" : ", bounded"})${before !== undefined ? `; before: ${before.toFixed(0)} ms` : ""}`,
      );
    }
  }

  // Reviews in Neovim.
  const setup = {
    agents: { bench: { command: process.execPath, args: [AGENT] } },
    default_agent: "bench",
    write: "review",
  };
  const { nvim, proc, sock } = startBenchNvim(nvimBin(), dir, setup, join(dir, "work"));
  const version = (await nvim.commandOutput("version")).split("\n")[0];
  await nvim.uiAttach(200, 60, { ext_linegrid: true, rgb: true });
  const second = attach({ socket: sock });
  await second.eval("1");
  await nvim.lua(`
    local rv = require('acpchat.ask.review')
    local open_tab = rv.open_tab
    rv.open_tab = function(r) open_tab(r); _G.bench_opened = vim.uv.hrtime() end
  `);
  await nvim.command("AcpChat");
  const waitLua = (expr, ms) => waitNvimLua(nvim, expr, ms);
  await waitLua("(require('acpchat.chat.registry').current().status or {}).state == 'ready'");
  for (const row of rows) {
    const { old, neu } = texts(row.n, row.ratio);
    const path = join(dir, "work", `f${row.n}-${row.ratio}.txt`);
    writeFileSync(path, old.join("\n") + "\n");
    const contentFile = join(dir, `c${row.n}-${row.ratio}.txt`);
    writeFileSync(contentFile, neu.join("\n") + "\n");
    const stamp = join(dir, "stamp");
    await nvim.lua("_G.bench_opened = nil");
    const stop = pinger(second);
    await sleep(50);
    await nvim.command(`AcpChatSend write ${path} ${contentFile} ${stamp}`);
    await waitLua("_G.bench_opened");
    await sleep(400); // drawn, and any turn scheduled after it done
    const ping = await stop();
    const opened = await nvim.lua("return _G.bench_opened");
    const openMs = (opened - Number(readFileSync(stamp, "utf8"))) / 1e6;
    Object.assign(row, { openMs, maxBlockMs: ping.max, p99Ms: ping.p99, pings: ping.count });
    say(
      `review ${row.n} lines, ${row.ratio * 100}%: open ${openMs.toFixed(0)} ms, longest block ${ping.max.toFixed(1)} ms (p99 ${ping.p99.toFixed(1)} ms, ${ping.count} pings)`,
    );
    await nvim.input("ZQ");
    await waitLua(
      "vim.tbl_count(require('acpchat.ask.review').open_reviews) == 0 and require('acpchat.chat.registry').current() ~= nil",
    );
    await waitLua("(require('acpchat.chat.registry').current().status or {}).state == 'ready'");
    await sleep(100);
  }
  second.quit();
  nvim.quit();
  proc.kill();

  const f = (x, d = 0) => (x === undefined ? "—" : x.toFixed(d));
  const lines = [
    `Edits benchmark, ${new Date().toISOString()}: ${version}, Node ${process.version}.`,
    "",
    "| lines | changed | diff (Node) | diff before (`diff` package) | hunks | review open | longest editor block | p99 block |",
    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows.map(
      (r) =>
        `| ${r.n.toLocaleString("en")} | ${r.ratio * 100}% | ${f(r.diffMs, 1)} ms | ${r.beforeMs === undefined ? "not run (> 10 s)" : `${f(r.beforeMs)} ms`} | ${r.hunks}${r.exact ? "" : " (bounded)"} | ${f(r.openMs)} ms | ${f(r.maxBlockMs, 1)} ms | ${f(r.p99Ms, 1)} ms |`,
    ),
    "",
    "Targets: a 10,000-line full rewrite opens in review in under 300 ms; the editor never blocked for more than 16 ms.",
  ];
  process.stdout.write(lines.join("\n") + "\n");
  if (process.argv.includes("--json")) process.stdout.write(JSON.stringify(rows) + "\n");
  process.exit(0);
}

main().catch((e) => {
  say(e.stack ?? String(e));
  process.exit(1);
});
