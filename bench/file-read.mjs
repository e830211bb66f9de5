// Reading through the editor's MCP tool (read_file) against fs/read_text_file, both of a
// 10,000-line file whose buffer holds unsaved edits (so both read the buffer). Two chats: one
// whose agent takes only stdio MCP servers (it starts the editor's server process, which asks the
// host over its private socket) and one whose agent takes http servers (it calls the host's own
// endpoint). Each agent (bench/read-agent.mjs) times both ways itself, fs/read_text_file over ACP
// and read_file over MCP, alternating call by call, so each pair sees the same load and the same
// client process. Rounds alternate between the chats. Prints a markdown section.
// BENCH_BEFORE=<a built checkout of other code>: its stdio chat too, in a Neovim of its own that
// loads that checkout, in the same rounds (before and after measured under the same load).
// PROF_CPU=<dir>: each Node host under --cpu-prof, its profile written there when Neovim quits.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nvimBin, profiledNode, root, startBenchNvim } from "./nvim.mjs";

const LINES = 10_000;
const READS = Number(process.env.BENCH_CALLS ?? 60);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
async function until(what, ok, ms = 60_000) {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (ok()) return;
  throw new Error(`timed out: ${what}`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-bench-read-"));
  const work = join(dir, "work");
  mkdirSync(work, { recursive: true });
  const file = join(work, "big.txt");
  writeFileSync(
    file,
    Array.from({ length: LINES }, (_, i) => `line ${i + 1} of the file, some text to read`).join("\n") + "\n",
  );
  const agent = (out, http) => ({
    command: process.execPath,
    args: [join(root, "bench/read-agent.mjs")],
    env: {
      BENCH_OUT: out,
      BENCH_READ_PATH: file,
      BENCH_READS: String(READS),
      BENCH_LINES: String(LINES),
      BENCH_HTTP: http ? "1" : "0",
    },
  });
  // Each chat: its Neovim (this checkout's, or BENCH_BEFORE's), its agent's name and way, its output.
  const chats = [];
  const procs = [];
  const before = process.env.BENCH_BEFORE;
  for (const [tag, pluginRoot] of [["after", root], ...(before ? [["before", before]] : [])]) {
    const home = join(dir, tag);
    const out = join(home, "bench");
    const agents = { reader: agent(out, false), ...(tag === "after" ? { reader_http: agent(out, true) } : {}) };
    const { nvim, proc } = startBenchNvim(nvimBin(), home, { agents, default_agent: "reader" }, work, pluginRoot);
    procs.push(proc);
    await nvim.eval("1");
    if (process.env.PROF_CPU)
      await profiledNode(nvim, home, `--cpu-prof --cpu-prof-interval 100 --cpu-prof-dir ${process.env.PROF_CPU}`);
    await nvim.command("edit big.txt");
    await nvim.call("setline", [1, "line 1 EDITED in the buffer, unsaved"]);
    for (const [way, name] of [
      ["stdio", "reader"],
      ["http", "reader_http"],
    ]) {
      if (!agents[name]) continue;
      await nvim.command(`AcpChat ${name}`);
      // Whole once it parses (the agent writes it while this looks).
      const servers = () => {
        try {
          return JSON.parse(readFileSync(`${out}.${way}.servers.json`, "utf8"));
        } catch {
          return undefined;
        }
      };
      await until(`session/new (${tag} ${way})`, () => servers() !== undefined);
      const offered = servers().find((s) => s.name === "nvim");
      if ((way === "http") !== (offered?.type === "http"))
        throw new Error(`the ${tag} ${way} agent was not offered the editor's tools that way`);
      chats.push({ tag, way, name, nvim, out, fs: [], tool: [], text: "", hops: { fs: [], tool: [] } });
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of chats) {
      await c.nvim.command(`AcpChat ${c.name}`);
      await c.nvim.command("AcpChatSend go");
      const f = `${c.out}.${c.way}-${round}.json`;
      await until(`the ${c.tag} ${c.way} agent's reads`, () => existsSync(f), 300_000);
      const r = JSON.parse(readFileSync(f, "utf8"));
      c.fs.push(...r.fs);
      c.tool.push(...r.tool);
      c.text = r.text;
      if (r.hops) for (const k of ["fs", "tool"]) c.hops[k].push(...r.hops[k]);
    }
  }
  if (process.env.PROF_CPU) {
    // A host writes its profile when it exits, which it does when its Neovim quits.
    await Promise.all(chats.map((c) => c.nvim.command("qa!").catch(() => {})));
    await sleep(3000);
  }
  for (const p of procs) p.kill("SIGKILL");
  const good = (x) => x.includes("line 1 EDITED in the buffer, unsaved") && x.includes(`${LINES}\tline ${LINES} of`);
  const ok = chats.every((c) => good(c.text) && c.text === chats[0].text);
  const f = (x) => x.toFixed(1);
  const row = (name, xs) => `| ${name} | ${xs.length} | ${f(pct(xs, 50))} | ${f(pct(xs, 90))} | ${f(pct(xs, 99))} |`;
  const ratio = (a, b, p) => (pct(a, p) / pct(b, p)).toFixed(2);
  const label = (c) => `${before ? `${c.tag}: ` : ""}${c.way === "http" ? "http agent" : "stdio agent"}`;
  const report = [
    "## Reading a file through the editor: read_file (MCP) vs fs/read_text_file",
    "",
    `A ${LINES.toLocaleString("en")}-line file whose buffer holds unsaved edits, read whole ${READS * ROUNDS} times each way in each of ${chats.length} chats, alternating call by call with a pause of 80 ms before each (as between a model's tool calls: the host's deferred trace work of one call is not billed to the next), timed in the agent (bench/file-read.mjs${before ? "; before: the stdio way of another checkout, in the same rounds" : ""}). Times in ms, round trip as the agent sees it.`,
    "",
    "| path | reads | p50 | p90 | p99 |",
    "| --- | ---: | ---: | ---: | ---: |",
    ...chats.flatMap((c) => [
      row(`${label(c)}: fs/read_text_file (ACP)`, c.fs),
      row(
        `${label(c)}: read_file over MCP ${c.way === "http" ? "http (the host itself)" : "stdio (the server process)"}`,
        c.tool,
      ),
    ]),
    "",
    `read_file returned the buffer's text, numbered, the same every way: ${ok ? "yes" : "NO"}. MCP / fs in the same agent: ${chats.map((c) => `${label(c)} p50 ${ratio(c.tool, c.fs, 50)}, p99 ${ratio(c.tool, c.fs, 99)}`).join("; ")}.`,
    "",
    ...(process.env.BENCH_HOPS === "1" ? hopRows(chats, label, f) : []),
  ].join("\n");
  process.stdout.write(`${report}\n`, () => process.exit(ok ? 0 : 1));
}

/** BENCH_HOPS=1: p50 of each call's answer's first byte, last byte and end, from its start (ms). */
function hopRows(chats, label, f) {
  const rows = [
    "| path | first byte p50 | last byte p50 | parsed p50 | last - first p50 | parsed - last p50 |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const c of chats)
    for (const k of ["fs", "tool"]) {
      const h = c.hops[k];
      if (h.length === 0) continue;
      const col = (i) =>
        pct(
          h.map((x) => x[i]),
          50,
        );
      const d = (i, j) =>
        pct(
          h.map((x) => x[i] - x[j]),
          50,
        );
      rows.push(`| ${label(c)}: ${k} | ${f(col(0))} | ${f(col(1))} | ${f(col(2))} | ${f(d(1, 0))} | ${f(d(2, 1))} |`);
    }
  return [...rows, ""];
}

main().catch((e) => {
  // Not console.error: the neovim client library takes over `console`.
  process.stderr.write(`${e?.stack ?? e}\n`, () => process.exit(1));
});
