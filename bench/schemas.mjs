#!/usr/bin/env node
// The parse cost of the schemas generated from the SDK's schema.json against those of an earlier
// revision (by default 94035d9, the last with hand-written zod), in one process, alternating:
// (a) zod alone (KnownSessionUpdate.safeParse) on 10,000 real-looking session updates (text
// chunks, tool calls, tool call updates, plans), and (b) the whole session/update path of the
// peer (coalescing on, the envelope and the update parsed) on 200,000 text chunks and on 20,000
// with 200 tool call updates, in CPU time. Ratios are this tree's over the revision's, from
// medians and from minimums (the minimum is the figure least disturbed by a busy machine).
// Alone: node bench/schemas.mjs [revision]
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { build } from "esbuild";
import { root } from "./nvim.mjs";

const rev = process.argv[2] ?? "94035d9";
const work = join(root, ".cache", "bench-schemas");
rmSync(work, { recursive: true, force: true });
mkdirSync(join(work, "old"), { recursive: true });
// The revision's protocol modules, beside this tree's (zod resolves from the repository's node_modules).
const tar = execFileSync("git", ["archive", rev, "src/protocol"], { cwd: root });
execFileSync("tar", ["-x", "-C", join(work, "old")], { input: tar });
const entry = join(work, "entry.ts");
writeFileSync(
  entry,
  [
    'import * as OJ from "./old/src/protocol/jsonrpc.js";',
    'import * as OS from "./old/src/protocol/schema.js";',
    'import * as NJ from "../../src/protocol/jsonrpc.js";',
    'import * as NS from "../../src/protocol/schema.js";',
    "export const OLD = { ...OJ, ...OS };",
    "export const NEW = { ...NJ, ...NS };",
  ].join("\n"),
);
await build({ entryPoints: [entry], bundle: true, format: "esm", platform: "node", outfile: join(work, "out.mjs") });
const { OLD, NEW } = await import(join(work, "out.mjs"));

// ---------- samples ----------
let seed = 42;
const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const WORDS = ["Reading", "the", "file", "src/a.ts", "and", "then", "fixing", "tests", "\n", "`code`"];
const text = () => Array.from({ length: 1 + Math.floor(rnd() * 6) }, () => pick(WORDS)).join(" ");
const id = () => `toolu_${Math.floor(rnd() * 1e9)}`;
const UPDATES = {
  agent_message_chunk: () => ({
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: text() },
    ...(rnd() < 0.3 ? { messageId: "m1" } : {}),
  }),
  tool_call: () => ({
    sessionUpdate: "tool_call",
    toolCallId: id(),
    title: `Read ${text()}`,
    kind: pick(["read", "edit", "execute", "search"]),
    status: "pending",
    rawInput: { file_path: "/w/src/a.ts", limit: 200 },
    content: [],
    locations: [{ path: "/w/src/a.ts", line: 12 }],
    _meta: { claudeCode: { toolName: "Read" } },
  }),
  tool_call_update: () => ({
    sessionUpdate: "tool_call_update",
    toolCallId: id(),
    status: pick(["in_progress", "completed", "failed"]),
    content: pick([
      [{ type: "content", content: { type: "text", text: text() } }],
      [{ type: "diff", path: "/w/src/a.ts", oldText: "a\nb\n", newText: "a\nc\n" }],
      [{ type: "terminal", terminalId: "t1" }],
    ]),
    rawOutput: { output: text() },
    _meta: { claudeCode: { toolResponse: { ok: true } } },
  }),
  plan: () => ({
    sessionUpdate: "plan",
    entries: Array.from({ length: 3 + Math.floor(rnd() * 5) }, () => ({
      content: text(),
      priority: pick(["high", "medium", "low"]),
      status: pick(["pending", "in_progress", "completed"]),
    })),
  }),
};
// Half text chunks, then tool calls and their updates, a plan now and then.
const MIX = [...Array(6).fill("agent_message_chunk"), "tool_call", "tool_call", ...Array(3).fill("tool_call_update")];
MIX.push("plan");
const sample = JSON.parse(JSON.stringify(Array.from({ length: 10000 }, () => UPDATES[pick(MIX)]())));

// ---------- measuring ----------
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const min = (xs) => Math.min(...xs);
/** Runs `f(OLD)` and `f(NEW)` alternately (`warm` rounds discarded); their times in ms. */
async function compare(f, rounds, warm = 3) {
  for (let i = 0; i < warm; i++) await f(OLD), await f(NEW);
  const o = [];
  const n = [];
  for (let i = 0; i < rounds; i++)
    if (i % 2) o.push(await f(OLD)), n.push(await f(NEW));
    else n.push(await f(NEW)), o.push(await f(OLD));
  return { o, n };
}
const line = (name, { o, n }) =>
  `| ${name} | ${median(o).toFixed(2)} (min ${min(o).toFixed(2)}) | ${median(n).toFixed(2)} (min ${min(n).toFixed(2)}) | **x${(median(n) / median(o)).toFixed(2)}** (min x${(min(n) / min(o)).toFixed(2)}) |`;

const rows = [];
/** zod alone on `xs`: wall time of safeParse over all of them (every one must pass). */
const zodOnly = (xs) => async (M) => {
  const t = process.hrtime.bigint();
  let ok = 0;
  for (const u of xs) if (M.KnownSessionUpdate.safeParse(u).success) ok++;
  if (ok !== xs.length) throw new Error("a sample update was rejected");
  return Number(process.hrtime.bigint() - t) / 1e6;
};
rows.push(line(`zod: ${sample.length.toLocaleString("en")} updates, mixed`, await compare(zodOnly(sample), 100)));
for (const kind of Object.keys(UPDATES)) {
  const xs = sample.filter((u) => u.sessionUpdate === kind);
  rows.push(line(`zod: ${xs.length.toLocaleString("en")} ${kind}`, await compare(zodOnly(xs), 100)));
}

/** The peer's session/update path on `bytes`: CPU time from the first write to the last parse. */
const peerPath = (bytes) => async (M) => {
  const input = new PassThrough();
  const peer = new M.JsonRpcPeer(input, new PassThrough());
  peer.onNotification("session/update", undefined, (p) => M.parseSessionUpdate(M.sessionNotification(p).update));
  peer.coalesce("session/update", ["params", "update", "content", "text"], M.isTextChunkNotification);
  const t = process.cpuUsage();
  for (let i = 0; i < bytes.length; i += 65536) input.write(bytes.subarray(i, i + 65536));
  await new Promise((r) => setImmediate(r));
  const c = process.cpuUsage(t);
  return (c.user + c.system) / 1000;
};
const wire = (update) =>
  JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId: "s", update } });
const flood = (n, tools) =>
  Buffer.from(
    Array.from({ length: n }, (_, i) =>
      wire(
        tools && i % (n / tools) === 0
          ? UPDATES.tool_call_update()
          : { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `w${i % 10} ` } },
      ),
    ).join("\n") + "\n",
  );
rows.push(line("peer + parse, CPU: 200,000 text chunks", await compare(peerPath(flood(200000, 0)), 15)));
rows.push(
  line("peer + parse, CPU: 20,000 chunks, 200 tool call updates", await compare(peerPath(flood(20000, 200)), 15)),
);

process.stdout.write(
  [
    `Schemas of this tree vs ${rev}, ms (median of alternating runs):`,
    "",
    `| what | ${rev} | this tree | ratio |`,
    "| --- | --- | --- | --- |",
    ...rows,
    "",
  ].join("\n"),
);
rmSync(work, { recursive: true, force: true });
