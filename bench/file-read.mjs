// Reading through the editor's MCP tool (read_file) against fs/read_text_file, both of a
// 10,000-line file whose buffer holds unsaved edits (so both read the buffer). Two chats: one
// whose agent takes only stdio MCP servers (it starts the editor's server process, which asks the
// host over its private socket) and one whose agent takes http servers (it calls the host's own
// endpoint). Each agent (bench/read-agent.mjs) times both ways itself, fs/read_text_file over ACP
// and read_file over MCP, alternating call by call, so each pair sees the same load and the same
// client process. Rounds alternate between the chats. Prints a markdown section.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nvimBin, root, startBenchNvim } from "./nvim.mjs";

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
  const out = join(dir, "bench");
  const agent = (http) => ({
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
  const { nvim, proc } = startBenchNvim(
    nvimBin(),
    dir,
    { agents: { reader: agent(false), reader_http: agent(true) }, default_agent: "reader" },
    work,
  );
  await nvim.eval("1");
  await nvim.command("edit big.txt");
  await nvim.call("setline", [1, "line 1 EDITED in the buffer, unsaved"]);
  const chats = { stdio: "reader", http: "reader_http" };
  for (const [way, name] of Object.entries(chats)) {
    await nvim.command(`AcpChat ${name}`);
    await until(`session/new (${way})`, () => existsSync(`${out}.${way}.servers.json`));
  }
  const offered = (way) =>
    JSON.parse(readFileSync(`${out}.${way}.servers.json`, "utf8")).find((s) => s.name === "nvim");
  if (offered("http")?.type !== "http" || offered("stdio")?.type !== undefined)
    throw new Error("the agents were not offered the editor's tools the expected ways");
  const t = { stdio: { fs: [], tool: [], text: "" }, http: { fs: [], tool: [], text: "" } };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [way, name] of Object.entries(chats)) {
      await nvim.command(`AcpChat ${name}`);
      await nvim.command("AcpChatSend go");
      const f = `${out}.${way}-${round}.json`;
      await until(`the ${way} agent's reads`, () => existsSync(f), 300_000);
      const r = JSON.parse(readFileSync(f, "utf8"));
      t[way].fs.push(...r.fs);
      t[way].tool.push(...r.tool);
      t[way].text = r.text;
    }
  }
  proc.kill("SIGKILL");
  const good = (x) => x.includes("line 1 EDITED in the buffer, unsaved") && x.includes(`${LINES}\tline ${LINES} of`);
  const ok = good(t.stdio.text) && good(t.http.text) && t.stdio.text === t.http.text;
  const f = (x) => x.toFixed(1);
  const row = (name, xs) => `| ${name} | ${xs.length} | ${f(pct(xs, 50))} | ${f(pct(xs, 90))} | ${f(pct(xs, 99))} |`;
  const ratio = (a, b, p) => (pct(a, p) / pct(b, p)).toFixed(2);
  const report = [
    "## Reading a file through the editor: read_file (MCP) vs fs/read_text_file",
    "",
    `A ${LINES.toLocaleString("en")}-line file whose buffer holds unsaved edits, read whole ${READS * ROUNDS} times each way in each of two chats, alternating call by call, timed in the agent (bench/file-read.mjs). Times in ms, round trip as the agent sees it.`,
    "",
    "| path | reads | p50 | p90 | p99 |",
    "| --- | ---: | ---: | ---: | ---: |",
    row("fs/read_text_file (ACP), stdio agent", t.stdio.fs),
    row("read_file over MCP stdio (the server process)", t.stdio.tool),
    row("fs/read_text_file (ACP), http agent", t.http.fs),
    row("read_file over MCP http (the host itself)", t.http.tool),
    "",
    `read_file returned the buffer's text, numbered, the same both ways: ${ok ? "yes" : "NO"}. MCP / fs in the same agent: stdio p50 ${ratio(t.stdio.tool, t.stdio.fs, 50)}, p99 ${ratio(t.stdio.tool, t.stdio.fs, 99)}; http p50 ${ratio(t.http.tool, t.http.fs, 50)}, p99 ${ratio(t.http.tool, t.http.fs, 99)}.`,
    "",
  ].join("\n");
  process.stdout.write(`${report}\n`, () => process.exit(ok ? 0 : 1));
}

main().catch((e) => {
  // Not console.error: the neovim client library takes over `console`.
  process.stderr.write(`${e?.stack ?? e}\n`, () => process.exit(1));
});
