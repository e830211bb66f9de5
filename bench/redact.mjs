// Redaction of hostile text: every redaction pattern must be linear in the text's
// length, since an agent controls the text and the Node host has one thread. For each input
// built against a pattern (a long run of a secret word with no `=`, dash runs before a flag,
// JSON keys that never close...), the time of Redactor.text and Redactor.json (the input as a
// string in a message) at 16 KB, 200 KB and 1 MB: linear means ~x12 and ~x5 from one to the
// next, and 1 MB within the goal. src/trace/redact.ts is bundled for this run with esbuild.
// Prints a markdown section (bench/run.mjs appends it to RESULTS.md); alone: node bench/redact.mjs
import { build } from "esbuild";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./nvim.mjs";

/** The most any 1 MB input may take (text + json), in ms. */
const GOAL_MS = 250;
const SIZES = (process.env.BENCH_REDACT_SIZES ?? "16384,204800,1048576").split(",").map(Number);

const INPUTS = {
  '`"TOKEN".repeat(n)` (the 400 KB chunk that stalled the host 30 s)': ["", "TOKEN", ""],
  "`API_KEY` runs": ["", "API_KEY", ""],
  '`"-token".repeat(n)`': ["", "-token", ""],
  "`-a` runs, then `-token`": ["", "-a", "-token"],
  "`Bearer` then spaces": ["Bearer", " ", ""],
  "`sk-` then `a-` runs": ["sk-", "a-", "_"],
  "`eyJ` then no dots": ["eyJ", "a", " token"],
  "private key headers": ["", "-----BEGIN PRIVATE KEY ", ""],
  'JSON `"token…` never closed': ['"', "token", ""],
  'JSON `"name":"password…`': ['"name":"', "password", ""],
};

/** Measured with this bench at 5937a17, before the patterns were made linear (same machine). */
const BEFORE =
  "Before (5937a17, backtracking patterns), same figures: `TOKEN` runs 129 ms at 16 KB, 6,953 ms at 100 KB, > 120 s at 200 KB; " +
  "`API_KEY` runs 116 ms at 16 KB, 34,187 ms at 200 KB; `-token` runs (cubic) ~150 ms at 2 KB, > 60 s at 16 KB; " +
  'JSON `"token…` 58 ms at 16 KB, 8,681 ms at 200 KB; `"name":"password…` 38 ms at 16 KB, 7,159 ms at 200 KB; ' +
  "each 1 MB input: not run (> 200 s). One 400 KB `agent_message_chunk` of `TOKEN` stalled the host about 30 s.";

async function main() {
  const out = join(mkdtempSync(join(tmpdir(), "acpchat-bench-redact-")), "redact.mjs");
  await build({
    entryPoints: [join(root, "src/trace/redact.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    outfile: out,
    logLevel: "warning",
  });
  const { Redactor } = await import(pathToFileURL(out).href);
  const r = new Redactor(['Zq9"x\\Vb7Lm2Pw', "plain-secret-value"]);
  const time = (f) => {
    const t = performance.now();
    f();
    return performance.now() - t;
  };
  // Warm the JIT on small inputs.
  for (const [head, unit, tail] of Object.values(INPUTS))
    for (let i = 0; i < 20; i++) r.json(JSON.stringify({ text: head + unit.repeat(200) + tail }));
  const rows = [];
  let worst = 0;
  for (const [name, [head, unit, tail]] of Object.entries(INPUTS).filter(
    ([n]) => !process.env.BENCH_REDACT_ONLY || n.includes(process.env.BENCH_REDACT_ONLY),
  )) {
    const figures = SIZES.map((n) => {
      const s = head + unit.repeat(Math.ceil(n / unit.length)).slice(0, n) + tail;
      const wire = JSON.stringify({ text: s });
      const runs = [0, 1, 2].map(() => time(() => r.text(s)) + time(() => r.json(wire))).sort((a, b) => a - b);
      return runs[1];
    });
    worst = Math.max(worst, figures.at(-1));
    rows.push(
      `| ${name} | ${figures.map((f) => f.toFixed(1)).join(" | ")} | ${figures.at(-1) <= GOAL_MS ? "met" : "**missed**"} |`,
    );
  }
  const lines = [
    `Redaction benchmark, ${new Date().toISOString()}: Node ${process.version}. Redactor.text + Redactor.json of each input, median of 3, ms.`,
    "",
    `| input | ${SIZES.map((n) => `${Math.round(n / 1024)} KB`).join(" | ")} | goal: 1 MB ≤ ${GOAL_MS} ms |`,
    `| --- |${SIZES.map(() => " ---: |").join("")} --- |`,
    ...rows,
    "",
    `Slowest 1 MB input: ${worst.toFixed(1)} ms.`,
    "",
    BEFORE,
  ];
  process.stdout.write(lines.join("\n") + "\n");
}

main().catch((e) => {
  process.stderr.write(`${e.stack}\n`);
  process.exit(1);
});
