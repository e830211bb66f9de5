#!/usr/bin/env node
// The user's clock, against a pinned earlier build measured in the same run (bench/pinned.mjs):
// streams from the prompt sent to the turn's end drawn, a UI attached (bench/ab-stream.mjs), and
// :AcpChatSessions with 5,000 sessions from the command (bench/ab-picker.mjs). Writes the
// README's table between its user-clock markers and fails (exit 1) when a headline ratio of
// this checkout is more than 15% worse than the pinned build's.
//   node bench/user-clock.mjs [rounds]
import { readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { abPicker } from "./ab-picker.mjs";
import { abStreams } from "./ab-stream.mjs";
import { nvimBin, root } from "./nvim.mjs";
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
  const md = [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench\` (bench/user-clock.mjs), ${bin.includes("0.10") ? "Neovim 0.10" : "Neovim"}, load average ${load.toFixed(1)} at the start; medians of ${rounds}, the builds interleaved. Time from the prompt sent in Neovim to the turn's end drawn (a 160x50 UI attached) over a bare parse of the same stream (the same agent, warm, read and \`JSON.parse\`d by plain Node); cpu: Neovim's and its Node host's CPU ms for the reply.`,
    "",
    `| stream | pinned ${PINNED} | this build | this build, checkpoints off | bare parse | editor longest (pinned / this) | goal |`,
    "| --- | --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
  const readme = join(root, "README.md");
  const text = readFileSync(readme, "utf8");
  const start = "<!-- user-clock:start -->";
  const end = "<!-- user-clock:end -->";
  const a = text.indexOf(start);
  const b = text.indexOf(end);
  if (a >= 0 && b > a) writeFileSync(readme, `${text.slice(0, a + start.length)}\n${md}\n${text.slice(b)}`);
  say(md);
  if (slips.length > 0) say(`user clock: slipped more than 15% against ${PINNED}: ${slips.join("; ")}`);
  return { streams, picker, slips, md };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  userClockBench({ rounds: Number(process.argv[2] ?? 3) }).then(
    (r) => process.exit(r.slips.length > 0 ? 1 : 0),
    (e) => {
      say(`user-clock failed: ${e.stack ?? e}`);
      process.exit(1);
    },
  );
}
