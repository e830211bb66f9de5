#!/usr/bin/env node
// The user's clock, against a pinned earlier build measured in the same run (bench/pinned.mjs):
// streams from the prompt sent to the turn's end drawn, a UI attached (bench/ab-stream.mjs),
// :AcpChatSessions with 5,000 sessions from the command (bench/ab-picker.mjs), and a session of
// 100,000 updates picked there as the editor starts, to its last line on screen
// (bench/ab-replay.mjs). Writes the
// README's table of each Neovim between its user-clock markers (<!-- user-clock:0.12:start -->)
// and fails (exit 1) when a headline ratio of this checkout is more than 15% worse than the
// pinned build's.
//   node bench/user-clock.mjs [rounds]      every Neovim in .cache/nvim (NVIM=<bin>: that one)
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { abPicker } from "./ab-picker.mjs";
import { abReplay } from "./ab-replay.mjs";
import { abStreams } from "./ab-stream.mjs";
import { nvimBin, nvimBins, nvimLabel, root } from "./nvim.mjs";
import { PINNED, pinnedBuild } from "./pinned.mjs";

const say = (s) => process.stderr.write(`${s}\n`);
/** How much worse than the pinned build a headline may get. */
export const SLIP = 1.15;

const f = (x, d = 0) => (x === undefined ? "–" : x.toFixed(d));

export async function userClockBench({ bin = nvimBin(), rounds = 3 } = {}) {
  const pinnedRoot = pinnedBuild();
  const load = loadavg()[0];
  const streams = await abStreams({ pinnedRoot, rounds, bin, nocp: true });
  const picker = await abPicker({ pinnedRoot, rounds, bin });
  const replay = await abReplay({ pinnedRoot, rounds, bin });
  const slips = [];
  const rows = streams.map((r) => {
    const slipped = r.nowRatio > r.pinnedRatio * SLIP;
    if (slipped) slips.push(`${r.key}: x${f(r.nowRatio, 2)} vs x${f(r.pinnedRatio, 2)}`);
    const goal = r.nowRatio <= r.goal ? "met" : "**missed**";
    return `| ${r.chunks.toLocaleString("en")} chunks, ${r.long ? "one line" : "many lines"}${r.tools ? `, ${r.tools} tool call updates` : ""} | x${f(r.pinnedRatio, 2)} (${f(r.pinnedMs)} ms, cpu ${f(r.pinnedCpuMs)}) | **x${f(r.nowRatio, 2)}** (${f(r.nowMs)} ms, cpu ${f(r.nowCpuMs)}) | x${f(r.nocpRatio, 2)} (${f(r.nocpMs)} ms, cpu ${f(r.nocpCpuMs)}) | ${f(r.bareMs)} ms | ${f(r.pinnedMax)} / ${f(r.nowMax)} ms | ≤ x${r.goal}: ${goal}; slip ≤ 15%: ${slipped ? "**failed**" : "ok"} |`;
  });
  const pickerSlipped = picker.nowMs > picker.pinnedMs * SLIP;
  if (pickerSlipped) slips.push(`picker: ${f(picker.nowMs)} vs ${f(picker.pinnedMs)} ms`);
  rows.push(
    `| :AcpChatSessions, ${picker.sessions.toLocaleString("en")} sessions, to the picker on screen (this checkout: then all merged) | ${f(picker.pinnedMs)} ms | **${f(picker.nowMs)} ms** (all merged ${f(picker.nowAllMs)} ms) | | | ${f(picker.pinnedMax)} / ${f(picker.nowMax)} ms | < 200 ms: ${picker.nowMs < 200 ? "met" : "**missed**"}; slip ≤ 15%: ${pickerSlipped ? "**failed**" : "ok"} |`,
  );
  // The replay: from the pick to its last line on screen over the bare load (the agent spawned by
  // plain Node, initialize, session/load, every line parsed); the headline is that ratio.
  // Compared from the command (the pinned picker's pick waits for the whole list, the host warm).
  const replaySlipped = replay.nowTotalRatio > replay.pinnedTotalRatio * SLIP;
  if (replaySlipped)
    slips.push(`replay: x${f(replay.nowTotalRatio, 2)} vs x${f(replay.pinnedTotalRatio, 2)} from the command`);
  rows.push(
    `| a session of ${replay.updates.toLocaleString("en")} updates picked in :AcpChatSessions (${replay.sessions.toLocaleString("en")} listed) at once, the host cold: from the pick to its last line on screen; from the command | x${f(replay.pinnedRatio, 2)} (${f(replay.pinnedLoad)} ms, the host warm); x${f(replay.pinnedTotalRatio, 2)} (${f(replay.pinnedTotal)} ms) | **x${f(replay.nowRatio, 2)}** (${f(replay.nowLoad)} ms); x${f(replay.nowTotalRatio, 2)} (${f(replay.nowTotal)} ms) | | ${f(replay.bareMs)} ms (agent start + load) | ${f(replay.pinnedMax)} / ${f(replay.nowMax)} ms | ≤ x2: ${replay.nowRatio <= 2 ? "met" : "**missed**"}; slip ≤ 15%: ${replaySlipped ? "**failed**" : "ok"} |`,
  );
  const md = [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench\` (bench/user-clock.mjs), Neovim ${nvimLabel(bin)}, load average ${load.toFixed(1)} at the start; medians of ${rounds}, the builds interleaved. Time from the prompt sent in Neovim to the turn's end drawn (a 160x50 UI attached) over a bare parse of the same stream (the same agent, warm, read and \`JSON.parse\`d by plain Node); cpu: Neovim's and its Node host's CPU ms for the reply. The replay row: a fresh Neovim (the Node host cold), \`:AcpChatSessions\`, <CR> on its first entry as soon as it shows, then the time from that key to the session's last line in a window over a bare load (the same agent spawned by plain Node, initialize and session/load, every line parsed), and from the command (the two builds are compared on this one: the pinned build's picker is called once the agent's whole list is in, its pick comes with the host warm); the editor's longest answer to a second client asking every 2 ms.`,
    "",
    `| stream | pinned ${PINNED} | this build | this build, checkpoints off | bare parse | editor longest (pinned / this) | goal |`,
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
  const readme = join(root, "README.md");
  const text = readFileSync(readme, "utf8");
  const { start, end } = markers(bin);
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a >= 0 && b > a) writeFileSync(readme, `${text.slice(0, a + start.length)}\n${md}\n${text.slice(b)}`);
  say(md);
  if (slips.length > 0) say(`user clock: slipped more than 15% against ${PINNED}: ${slips.join("; ")}`);
  return { streams, picker, replay, slips, md };
}

/** The README's markers around the table of `bin`'s Neovim. */
const markers = (bin) => ({
  start: `<!-- user-clock:${nvimLabel(bin)}:start -->`,
  end: `<!-- user-clock:${nvimLabel(bin)}:end -->`,
});

/**
 * The stored figures (a run that passed, with `--store` or BENCH_STORE=1): per stream, this
 * build's ratio and the pinned build's. A headline also fails when this build's ratio over the
 * pinned build's is more than SLIP worse than the stored one: the machine's load, which moves
 * both builds, cancels out of that ratio.
 */
export const STORED = join(root, "bench/user-clock.json");
const stored = () => (existsSync(STORED) ? JSON.parse(readFileSync(STORED, "utf8")) : { streams: {} });

/** Headlines more than SLIP worse than the stored figures, taken over the pinned build's. */
export function slipsVsStored(streams, before = stored()) {
  const out = [];
  for (const r of streams) {
    const was = before.streams?.[r.key];
    if (was && r.nowRatio / r.pinnedRatio > (was.nowRatio / was.pinnedRatio) * SLIP)
      out.push(
        `${r.key}: x${f(r.nowRatio, 2)} (x${f(r.nowRatio / r.pinnedRatio, 2)} of the pinned build's) vs stored x${f(was.nowRatio, 2)} (x${f(was.nowRatio / was.pinnedRatio, 2)})`,
      );
  }
  return out;
}

/**
 * userClockBench, then the stored figures: their check joins the slips and the README's table;
 * a run that passes with `store` becomes them.
 */
export async function userClockChecked({
  store = process.argv.includes("--store") || process.env.BENCH_STORE === "1",
  ...opts
} = {}) {
  const r = await userClockBench(opts);
  const label = nvimLabel(opts.bin ?? nvimBin());
  const all = stored();
  // Each Neovim's figures apart (a file of one Neovim's figures is that of the newest).
  const before = all.byNvim?.[label] ?? (all.byNvim ? { streams: {} } : all);
  const stale = slipsVsStored(r.streams, before);
  r.slips.push(...stale);
  r.md += `\n\nAgainst the stored figures (bench/user-clock.json${before.measured ? `, measured ${before.measured.slice(0, 10)} at load ${f(before.load, 1)}` : ": none stored yet"}), each ratio taken over the pinned build's: ${stale.length > 0 ? `**failed**: ${stale.join("; ")}` : "ok"}.`;
  const readme = join(root, "README.md");
  const text = readFileSync(readme, "utf8");
  const { start, end } = markers(opts.bin ?? nvimBin());
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a >= 0 && b > a)
    writeFileSync(
      readme,
      `${text.slice(0, b).trimEnd()}\n\n${r.md.slice(r.md.lastIndexOf("\n") + 1)}\n${text.slice(b)}`,
    );
  if (stale.length > 0) say(`user clock: slipped more than 15% against the stored figures: ${stale.join("; ")}`);
  if (r.slips.length === 0 && store) {
    const figures = { measured: new Date().toISOString(), load: loadavg()[0], pinned: PINNED, streams: {} };
    for (const s of r.streams)
      figures.streams[s.key] = { nowRatio: s.nowRatio, pinnedRatio: s.pinnedRatio, bareMs: s.bareMs };
    writeFileSync(STORED, `${JSON.stringify({ byNvim: { ...all.byNvim, [label]: figures } }, null, 2)}\n`);
    say(`user clock: stored as the figures to hold (${STORED})`);
  }
  return r;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const rounds = Number(process.argv.slice(2).find((a) => !a.startsWith("--")) ?? 3);
  (async () => {
    let slips = 0;
    for (const bin of nvimBins()) slips += (await userClockChecked({ rounds, bin })).slips.length;
    return slips;
  })().then(
    (slips) => process.exit(slips > 0 ? 1 : 0),
    (e) => {
      say(`user-clock failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
