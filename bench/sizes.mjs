#!/usr/bin/env node
// Inputs as large as the plugin's own limits allow, and the editor meanwhile (standalone:
// `npm run build && node bench/sizes.mjs`; NVIM=<binary> picks the Neovim):
//   - the review of a write whose file is one huge line (a minified bundle), and its accept;
//   - "Show the diff first" in a permission question (the per-hunk review) of a re-indent;
//   - fs/read_text_file of a big file open in a modified buffer (whole, and a line/limit window).
// A real headless Neovim with a 160x50 UI attached (so diff mode and highlighting are drawn); a
// second client pings `nvim_eval("1")` every 2 ms: the longest round trip and the p99 are the
// editor's longest and 99th-percentile block. Each result is checked (byte-exact) as well.
// Goal: longest block < 50 ms, p99 < 16 ms. Prints a markdown table (and JSON with --json).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attach } from "neovim";
import { nvimBin, pinger, root, startBenchNvim, waitLua as waitNvimLua } from "./nvim.mjs";

const AGENT = join(root, "bench/sizes-agent.mjs");
const say = (s) => process.stderr.write(s + "\n");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One line of `bytes` bytes, like a minified bundle; `edit`: every 5,000th statement changed. */
function bundle(bytes, edit) {
  const parts = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const s = edit && i % 5000 === 2500 ? `var v${i}=changed(${i});` : `var v${i}=f(${(i * 7919) % 100003});`;
    parts.push(s);
    n += s.length;
  }
  return parts.join("").slice(0, bytes);
}

const lines = (n, indent) =>
  Array.from({ length: n }, (_, i) => `${indent}line ${i} of the file, some code here (${(i * 7919) % 100003})`);

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-sizes-"));
  const work = join(dir, "work");
  // max_read_bytes at 16 MiB (the message limit): a 12 MB file is read for review like any other.
  const setup = {
    agents: { bench: { command: process.execPath, args: [AGENT] } },
    default_agent: "bench",
    write: "review",
    fs: { max_read_bytes: 16 * 1024 * 1024 },
  };
  const { nvim, proc, sock } = startBenchNvim(nvimBin(), dir, setup, work);
  const version = (await nvim.commandOutput("version")).split("\n")[0];
  await nvim.uiAttach(160, 50, { ext_linegrid: true, rgb: true });
  const second = attach({ socket: sock });
  await second.eval("1");
  await nvim.lua(`
    local rv = require('acpchat.ask.review')
    local open_tab = rv.open_tab
    rv.open_tab = function(r) open_tab(r); _G.bench_opened = vim.uv.hrtime() end
    vim.ui.select = function(items, _, cb)
      for i, it in ipairs(items) do if it.show_diff then return cb(it, i) end end
      cb(nil)
    end
    vim.api.nvim_create_autocmd("User", { pattern = "AcpChatTurnEnd", callback = function() _G.bench_turns = (_G.bench_turns or 0) + 1 end })
  `);
  if (process.env.SIZES_PROFILE) {
    // Where the editor's long blocks are: every Node event, buffer request and scheduled
    // callback that takes over 10 ms, with where it comes from (printed at the end).
    await nvim.lua(`
      _G.bench_slow = {}
      local function timed(name, fn)
        return function(...)
          local t0 = vim.uv.hrtime()
          local r = { fn(...) }
          local dt = (vim.uv.hrtime() - t0) / 1e6
          if dt > 10 then table.insert(_G.bench_slow, string.format("%.0f ms %s", dt, type(name) == "function" and name(...) or name)) end
          return unpack(r)
        end
      end
      local bridge = require("acpchat.host.bridge")
      bridge.receive = timed(function(ev) return "event " .. tostring(ev) end, bridge.receive)
      bridge.answer = timed(function(m) return "request " .. tostring(m) end, bridge.answer)
      local schedule = vim.schedule
      vim.schedule = function(fn)
        local info = debug.getinfo(fn, "S")
        return schedule(timed("scheduled " .. info.short_src .. ":" .. info.linedefined, fn))
      end
    `);
  }
  await nvim.command("AcpChat");
  const waitLua = (expr, ms) => waitNvimLua(nvim, expr, ms);
  await waitLua("(require('acpchat.chat.registry').current().status or {}).state == 'ready'");
  let turns = 0;
  const turn = async (text) => {
    turns++;
    await nvim.command(`AcpChatSend ${text}`);
    return () => waitLua(`(_G.bench_turns or 0) >= ${turns}`);
  };
  const rows = [];
  const f = (x, d = 0) => (x === undefined ? "—" : x.toFixed(d));
  const row = (what, ping, extra) => {
    rows.push({ what, max: ping.max, p99: ping.p99, pings: ping.count, ...extra });
    say(
      `${what}: longest block ${ping.max.toFixed(1)} ms, p99 ${ping.p99.toFixed(1)} ms (${ping.count} pings)${extra.note ? "; " + extra.note : ""}`,
    );
  };

  const only = process.env.SIZES_ONLY; // "review", "permit" or "read": one section
  // 1. Review (and accept) of a write whose file is one huge line.
  for (const mb of only && only !== "review" ? [] : (process.env.SIZES_MB ?? "1,12,15").split(",").map(Number)) {
    const path = join(work, `bundle-${mb}.js`);
    const old = bundle(mb * 1024 * 1024, false) + "\n";
    const neu = bundle(mb * 1024 * 1024, true) + "\n";
    writeFileSync(path, old);
    const content = join(dir, `bundle-${mb}.new`);
    writeFileSync(content, neu);
    await nvim.lua("_G.bench_opened = nil");
    const stop = pinger(second);
    await sleep(50);
    const stamp = join(dir, "stamp");
    const ended = await turn(`write ${path} ${content} ${stamp}`);
    await waitLua("_G.bench_opened", 60_000).catch(async (e) => {
      say(
        await nvim.lua(
          "return table.concat(vim.api.nvim_buf_get_lines(require('acpchat.chat.registry').current().buf, -30, -1, false), '\\n') .. vim.fn.execute('messages')",
        ),
      );
      throw e;
    });
    await sleep(400);
    const openMs = ((await nvim.lua("return _G.bench_opened")) - Number(readFileSync(stamp, "utf8"))) / 1e6;
    const note = await nvim.lua(
      "local k = next(require('acpchat.ask.review').open_reviews); local r = require('acpchat.ask.review').open_reviews[k]; return r and vim.api.nvim_win_is_valid(r.rw) and vim.wo[r.rw].winbar or ''",
    );
    const opening = await stop();
    const stop2 = pinger(second);
    if (process.env.SIZES_PROFILE)
      say(
        await nvim.lua(`
      local t0 = vim.uv.hrtime(); vim.api.nvim_feedkeys("gA", "x", false); local t1 = vim.uv.hrtime()
      vim.cmd("redraw"); local t2 = vim.uv.hrtime()
      return string.format("gA %.0f ms, redraw %.0f ms", (t1 - t0) / 1e6, (t2 - t1) / 1e6)`),
      );
    await nvim.input("gAZZ");
    await ended();
    await sleep(200);
    const accepting = await stop2();
    const ping = {
      max: Math.max(opening.max, accepting.max),
      p99: Math.max(opening.p99, accepting.p99),
      count: opening.count + accepting.count,
    };
    say(
      `  opening: longest ${opening.max.toFixed(1)} ms, p99 ${opening.p99.toFixed(1)}; accepting: longest ${accepting.max.toFixed(1)} ms, p99 ${accepting.p99.toFixed(1)}`,
    );
    const exact = readFileSync(path, "utf8") === neu;
    row(`review + accept of a write of one ${mb} MB line`, ping, {
      openMs,
      exact,
      note: `open ${openMs.toFixed(0)} ms; written byte-exact: ${exact}; winbar: ${note.slice(0, 160)}`,
    });
  }

  // 2. "Show the diff first" (the per-hunk review) of a re-indent.
  for (const n of only && only !== "permit" ? [] : [10_000, 100_000]) {
    const path = join(work, `reindent-${n}.txt`);
    writeFileSync(path, lines(n, "  ").join("\n") + "\n");
    const content = join(dir, `reindent-${n}.new`);
    writeFileSync(content, lines(n, "    ").join("\n") + "\n");
    await nvim.lua("_G.bench_opened = nil");
    const stop = pinger(second);
    await sleep(50);
    const stamp = join(dir, "stamp");
    const ended = await turn(`permit ${path} ${content} ${stamp}`);
    await waitLua("_G.bench_opened");
    await sleep(400);
    const openMs = ((await nvim.lua("return _G.bench_opened")) - Number(readFileSync(stamp, "utf8"))) / 1e6;
    const shown = await nvim.lua(
      "local k = next(require('acpchat.ask.review').open_reviews); local r = require('acpchat.ask.review').open_reviews[k]; return { vim.api.nvim_buf_line_count(r.left), vim.api.nvim_buf_line_count(r.right) }",
    );
    await nvim.input("ZQ");
    await ended();
    const ping = await stop();
    const complete = shown[0] === n && shown[1] === n;
    row(`"Show the diff first" of a ${n.toLocaleString("en")}-line re-indent`, ping, {
      openMs,
      exact: complete,
      note: `open ${openMs.toFixed(0)} ms; both sides complete: ${complete}`,
    });
  }

  // 3. fs/read_text_file of a 200,000-line (9 MB) file open in a modified buffer.
  const big = join(work, "big.txt");
  const bigLines = Array.from(
    { length: 200_000 },
    (_, i) => `line ${i + 1} with some text to make it realistic, ${i * 7}`,
  );
  writeFileSync(big, bigLines.join("\n") + "\n");
  await nvim.command(`edit ${big}`);
  await nvim.lua("vim.api.nvim_buf_set_lines(0, 0, 1, false, { 'modified' })");
  bigLines[0] = "modified";
  for (const [label, line, limit] of only && only !== "read"
    ? []
    : [
        ["whole", undefined, undefined],
        ["lines 100,000-199,999 (line/limit)", 100_000, 100_000],
      ]) {
    const outFile = join(dir, "read.out");
    const stop = pinger(second);
    await sleep(50);
    const t0 = performance.now();
    const ended = await turn(`read ${big} 5 ${outFile}${line ? ` ${line} ${limit}` : ""}`);
    await ended();
    const ms = performance.now() - t0;
    const ping = await stop();
    const expected = line ? bigLines.slice(line - 1, line - 1 + limit).join("\n") : bigLines.join("\n") + "\n";
    const exact = readFileSync(outFile, "utf8") === expected;
    row(`five fs/read_text_file of a 200,000-line (9 MB) modified buffer, ${label}`, ping, {
      exact,
      note: `${ms.toFixed(0)} ms for the five; exact: ${exact}`,
    });
  }

  if (process.env.SIZES_PROFILE) say((await nvim.lua("return table.concat(_G.bench_slow, '\\n')")) ?? "");
  second.quit();
  nvim.quit();
  proc.kill();
  const md = [
    `Sizes benchmark, ${new Date().toISOString()}: ${version}, Node ${process.version}, a 160x50 UI attached.`,
    "",
    "| input | longest editor block | p99 block | result exact | goal (< 50 / < 16 ms) |",
    "| --- | ---: | ---: | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.what} | ${f(r.max, 1)} ms | ${f(r.p99, 1)} ms | ${r.exact} | ${r.max < 50 && r.p99 < 16 ? "met" : "**missed**"} |`,
    ),
  ];
  process.stdout.write(md.join("\n") + "\n");
  if (process.argv.includes("--json")) process.stdout.write(JSON.stringify(rows) + "\n");
  process.exit(0);
}

main().catch((e) => {
  say(e.stack ?? String(e));
  process.exit(1);
});
