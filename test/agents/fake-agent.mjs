#!/usr/bin/env node
// A scriptable ACP agent for tests, spoken over a real pipe. Plain JS so it runs without a build.
//
// The scenario comes from $FAKE_AGENT_SCENARIO (a JSON file path, or inline JSON). Fields:
//   banner: text printed on stdout before anything else (a misbehaving agent)
//   protocolVersion, agentCapabilities, authMethods, modes, configOptions, models
//   noInitAnswer: never answer initialize;  authRequired: session/new fails -32000 until authenticate
//   delays: {"method": ms}  answer that method late;  neverAnswer: ["method", ...]  never answer it
//   failMethods: {"method": "message" | {code, message, data}}  answer that method with an error (-32603 when a message)
//   ignoreCancel: keep streaming after session/cancel
//   sessions: [{sessionId, cwd, title, history: [steps]}] for session/list, load and resume
//   listPage: N  session/list answers N sessions a page (nextCursor), each page `delays`'d
//   turns: [[step, ...], ...]  the i-th prompt runs turns[i] (the last one repeats)
//   byText: {"prompt text": [steps]}  takes precedence over turns
//   record: a file where every message received is appended as a JSON line
//   afterNew: [update, ...]  session/update notifications sent right after answering session/new
//   titleAnswer: the title session/set_title answers it stored (a hostile one)
//   usage: {inputTokens, ...} sent in every session/prompt answer; `logout` signs the agent out
// Steps (run in order; each may be delayed with "delay": ms):
//   {"text": "..."}  one agent_message_chunk ({"repeat": N}: the text N times, in that one chunk);  {"chunks": N, "text": "x"}  N chunks
//   {"thought": "..."}  {"update": {...}}  any session/update ({"session": "id"}: sent for that session, a child's)
//   {"notify": "method", "params": {...}}  any notification (auth/status_update)
//   {"request": "method", "params": {...}}  a client request; the reply is kept as $last
//     (strings "$last.field" in later params are replaced); {"echo": true} streams the reply as text
//   {"sleep": ms}  {"raw": "line"} ($sessionId in it: the session's id)  {"exit": code}  {"signal": "SIGKILL"}  {"closeStdout": true}
//   {"sh": "command"}  run a shell command in the agent's cwd (it writes files itself)
//   {"hang": true}  never answer this prompt;  {"stop": "end_turn"}  the stop reason (default end_turn)
//   {"answer": "end_turn"}  answer the prompt now with that stop reason and go on with the steps
//     (claude-agent-acp after a cancel: the next prompt ends at once, its work arrives afterwards)
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";

const src = process.env.FAKE_AGENT_SCENARIO ?? "{}";
const scenario = JSON.parse(src.trim().startsWith("{") ? src : readFileSync(src, "utf8"));
const out = (obj) => process.stdout.write(JSON.stringify(obj) + "\n");
// Where to record what the client sent: the scenario's `record` file, and/or one file per agent
// process in $FAKE_AGENT_RECORD_DIR (the end-to-end harness checks them all against the schema).
const recordFiles = [
  scenario.record,
  process.env.FAKE_AGENT_RECORD_DIR && `${process.env.FAKE_AGENT_RECORD_DIR}/${process.pid}.jsonl`,
].filter(Boolean);
const record = (m) => {
  for (const f of recordFiles) appendFileSync(f, JSON.stringify(m) + "\n");
};

if (scenario.banner) process.stdout.write(scenario.banner + "\n");
if (scenario.spawnChild) {
  // A grandchild that would outlive a careless client: the tests look for it by pid.
  const c = spawn("sleep", ["300"], { stdio: "ignore" });
  process.stderr.write(`child pid ${c.pid}\n`);
}
process.stderr.write("fake agent started\n");

let nextId = 1000;
const pending = new Map();
// `--login`: the terminal sign-in method; it leaves a marker that later processes honour.
if (process.argv.includes("--login")) {
  if (scenario.authFile) writeFileSync(scenario.authFile, "ok");
  process.stdout.write("Signed in.\n");
  process.exit(0);
}
let authed = !scenario.authRequired || (scenario.authFile && existsSync(scenario.authFile));
let promptCount = 0;
const cancelled = new Set();
// `store`: a JSON file where sessions live across agent processes (for restart and load).
const loadStore = () => {
  try {
    return JSON.parse(readFileSync(scenario.store, "utf8"));
  } catch {
    return [];
  }
};
const sessions = new Map(
  [...(scenario.sessions ?? []), ...(scenario.store ? loadStore() : [])].map((s) => [s.sessionId, s]),
);
const saveStore = () => scenario.store && writeFileSync(scenario.store, JSON.stringify([...sessions.values()]));
let currentMode = scenario.modes?.currentModeId;

function request(method, params) {
  const id = nextId++;
  record({ $sent: { id, method } });
  out({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve) => pending.set(id, resolve));
}
const update = (sessionId, u) => out({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: u } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// "$last.field": the field from the most recent reply that had it; "$env.NAME" in any string:
// that environment variable (a planted secret the agent then leaks).
function substitute(v, last) {
  if (typeof v === "string" && v.startsWith("$last.")) return last?.[v.slice(6)] ?? v;
  // "$repeat:N:s": s repeated N times (large payloads do not fit in an environment variable).
  if (typeof v === "string" && v.startsWith("$repeat:")) {
    const [, n, str] = v.match(/^\$repeat:(\d+):([\s\S]*)$/) ?? [];
    if (n) return str.repeat(Number(n));
  }
  if (typeof v === "string" && v.includes("$env.")) return v.replace(/\$env\.(\w+)/g, (_m, k) => process.env[k] ?? "");
  if (Array.isArray(v)) return v.map((x) => substitute(x, last));
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, last)]));
  return v;
}

async function runSteps(sessionId, steps, token, answer) {
  // "$last.sessionId" before any reply names it: the session the steps run in.
  let last = { sessionId };
  let stop = "end_turn";
  for (const step of steps) {
    if (token && cancelled.has(token) && !scenario.ignoreCancel) return "cancelled";
    if (step.delay) await sleep(step.delay);
    if (step.text !== undefined && step.chunks === undefined)
      update(sessionId, {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: substitute(step.text).repeat(step.repeat ?? 1) },
      });
    if (step.stderr !== undefined) process.stderr.write(substitute(step.stderr) + "\n");
    // One message written in `pieces` writes, `pause` ms apart (a line split across writes).
    if (step.split) {
      const line =
        JSON.stringify({ jsonrpc: "2.0", method: "session/update", params: { sessionId, update: step.split } }) + "\n";
      const n = step.pieces ?? 3;
      const size = Math.ceil(line.length / n);
      for (let i = 0; i < line.length; i += size) {
        process.stdout.write(line.slice(i, i + size));
        await sleep(step.pause ?? 20);
      }
    }
    // A single line of `bigLine` bytes: a valid update whose text is that long.
    if (step.bigLine) {
      const text = "B".repeat(step.bigLine);
      await new Promise((r) =>
        process.stdout.write(
          JSON.stringify({
            jsonrpc: "2.0",
            method: "session/update",
            params: { sessionId, update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } } },
          }) + "\n",
          r,
        ),
      );
    }
    // `burst` requests sent at once, without waiting; their replies are counted in $last.answered.
    if (step.burst) {
      const replies = await Promise.all(
        Array.from({ length: step.burst.count }, (_, i) =>
          request(
            step.burst.method,
            substitute(
              { sessionId, ...step.burst.params, ...(step.burst.vary ? { toolCall: { toolCallId: `b${i}` } } : {}) },
              last,
            ),
          ),
        ),
      );
      const outcomes = replies.map((r) => r.result?.outcome?.outcome ?? (r.error ? "error" : "?"));
      const counts = {};
      for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
      update(sessionId, {
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: `burst: ${JSON.stringify(counts)}` },
      });
    }
    if (step.chunks !== undefined) {
      for (let i = 0; i < step.chunks; i++) {
        if (token && cancelled.has(token) && !scenario.ignoreCancel) return "cancelled";
        update(sessionId, { sessionUpdate: "agent_message_chunk", content: { type: "text", text: step.text ?? "x" } });
        if (step.every && i % step.every === step.every - 1) await sleep(step.pause ?? 1);
      }
    }
    if (step.thought !== undefined)
      update(sessionId, { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: step.thought } });
    if (step.user !== undefined)
      update(sessionId, { sessionUpdate: "user_message_chunk", content: { type: "text", text: step.user } });
    if (step.update) update(step.session ?? sessionId, substitute(step.update, last));
    if (step.notify) out({ jsonrpc: "2.0", method: step.notify, params: substitute(step.params ?? {}, last) });
    if (step.request) {
      const reply = await request(step.request, substitute({ sessionId, ...step.params }, last));
      if (reply.result && typeof reply.result === "object") last = { ...last, ...reply.result };
      if (step.echo)
        update(sessionId, {
          sessionUpdate: "agent_message_chunk",
          content: { type: "text", text: JSON.stringify(reply) },
        });
    }
    // `sh`: a shell command the agent runs itself, in its cwd (the session's folder): files it
    // changes reach the client with no fs/write_text_file (as claude-agent-acp and codex-acp do).
    if (step.sh !== undefined)
      await new Promise((r) =>
        spawn("sh", ["-c", substitute(step.sh, last)], { stdio: "ignore" })
          .on("exit", r)
          .on("error", r),
      );
    if (step.sleep) await sleep(step.sleep);
    if (step.raw !== undefined) process.stdout.write(step.raw.replaceAll("$sessionId", sessionId) + "\n");
    if (step.exit !== undefined) process.exit(step.exit);
    if (step.signal) process.kill(process.pid, step.signal);
    if (step.closeStdout) {
      process.stdout.end();
      await new Promise(() => setTimeout(() => undefined, 1 << 30));
    }
    if (step.hang) await new Promise(() => setTimeout(() => undefined, 1 << 30));
    if (step.stop) stop = step.stop;
    if (step.answer) answer?.(step.answer);
  }
  return token && cancelled.has(token) ? "cancelled" : stop;
}

async function handle(msg) {
  const { id, method, params } = msg;
  const reply = (result) => out({ jsonrpc: "2.0", id, result });
  const fail = (code, message) => out({ jsonrpc: "2.0", id, error: { code, message } });
  if (scenario.neverAnswer?.includes(method)) return;
  if (scenario.delays?.[method]) await sleep(scenario.delays[method]);
  const failure = scenario.failMethods?.[method];
  if (failure) return typeof failure === "object" ? out({ jsonrpc: "2.0", id, error: failure }) : fail(-32603, failure);
  switch (method) {
    case "initialize":
      if (scenario.noInitAnswer) return;
      return reply({
        protocolVersion: scenario.protocolVersion ?? 1,
        agentCapabilities: scenario.agentCapabilities ?? {
          loadSession: true,
          promptCapabilities: { embeddedContext: true },
        },
        authMethods: scenario.authMethods ?? [],
        agentInfo: { name: "fake-agent", version: "1.0.0" },
      });
    case "authenticate":
      authed = true;
      return reply({});
    case "logout":
      authed = false;
      return reply({});
    case "session/new": {
      if (!authed && scenario.authFile && existsSync(scenario.authFile)) authed = true;
      if (!authed) return fail(-32000, "Authentication required");
      if (scenario.newSessionDelay) await sleep(scenario.newSessionDelay);
      const sessionId = `sess-${Math.random().toString(36).slice(2, 8)}`;
      sessions.set(sessionId, { sessionId, cwd: params.cwd, title: scenario.title, history: [] });
      saveStore();
      const res = { sessionId };
      if (scenario.modes) res.modes = scenario.modes;
      if (scenario.configOptions) res.configOptions = scenario.configOptions;
      if (scenario.models) res.models = scenario.models;
      reply(res);
      if (scenario.commands)
        update(sessionId, { sessionUpdate: "available_commands_update", availableCommands: scenario.commands });
      for (const u of scenario.afterNew ?? []) update(sessionId, u);
      return;
    }
    case "session/load":
    case "session/resume": {
      const s = sessions.get(params.sessionId);
      if (!s) return fail(-32002, `Resource not found: session ${params.sessionId}`);
      if (method === "session/load") await runSteps(params.sessionId, s.history ?? []);
      else if (s.title) update(params.sessionId, { sessionUpdate: "session_info_update", title: s.title });
      return reply({ modes: scenario.modes ?? null, configOptions: scenario.configOptions ?? null });
    }
    case "session/fork": {
      // Unstable: a new session with the source's history (the source must be known: `store` keeps sessions across processes).
      // Another process may have made it since this one started (the store is shared).
      const src =
        sessions.get(params.sessionId) ??
        (scenario.store ? loadStore().find((x) => x.sessionId === params.sessionId) : undefined);
      if (!src) return fail(-32002, `Resource not found: session ${params.sessionId}`);
      const sessionId = `fork-${Math.random().toString(36).slice(2, 8)}`;
      sessions.set(sessionId, {
        sessionId,
        cwd: params.cwd,
        title: src.title ? `${src.title} (fork)` : undefined,
        history: [...(src.history ?? [])],
        forkedFrom: src.sessionId,
      });
      saveStore();
      return reply({ sessionId, modes: scenario.modes ?? null, configOptions: scenario.configOptions ?? null });
    }
    case "session/set_title": {
      // Unstable: the agent normalizes (trims, collapses spaces) and answers with what it stored.
      const s =
        sessions.get(params.sessionId) ??
        (scenario.store ? loadStore().find((x) => x.sessionId === params.sessionId) : undefined);
      if (!s) return fail(-32002, `Resource not found: session ${params.sessionId}`);
      sessions.set(s.sessionId, s);
      const title =
        scenario.titleAnswer ??
        String(params.title ?? "")
          .trim()
          .replace(/\s+/g, " ");
      if (!title) return fail(-32602, "Invalid params: empty title");
      s.title = title;
      saveStore();
      return reply({ title });
    }
    case "session/list": {
      const all = [...sessions.values()]
        .filter((x) => !params.cwd || x.cwd === params.cwd)
        .map(({ sessionId, cwd, title }) => ({ sessionId, cwd, title, updatedAt: new Date().toISOString() }));
      if (!scenario.listPage) return reply({ sessions: all });
      const from = Number(params.cursor ?? 0);
      const to = from + scenario.listPage;
      return reply({ sessions: all.slice(from, to), ...(to < all.length ? { nextCursor: String(to) } : {}) });
    }
    case "session/delete":
      sessions.delete(params.sessionId);
      saveStore();
      return reply({});
    case "session/close":
      return reply({});
    case "session/set_mode":
      currentMode = params.modeId;
      reply({});
      return update(params.sessionId, { sessionUpdate: "current_mode_update", currentModeId: currentMode });
    case "session/set_config_option": {
      const opt = (scenario.configOptions ?? []).find((o) => o.id === params.configId);
      if (!opt) return fail(-32602, `no option ${params.configId}`);
      opt.currentValue = params.value;
      return reply({ configOptions: scenario.configOptions });
    }
    case "session/set_model":
      return reply({});
    case "session/prompt": {
      // Signed out (logout): the prompt needs a sign-in first.
      if (!authed) return fail(-32000, "Authentication required");
      const i = promptCount++;
      const text = (params.prompt ?? [])
        .filter((b) => b.type === "text")
        .map((b) => b.text)
        .join("");
      const turns = scenario.turns ?? [[{ text: `echo: ${text}` }]];
      const steps = scenario.byText?.[text] ?? turns[Math.min(i, turns.length - 1)];
      const token = `${params.sessionId}#${i}`;
      current.set(params.sessionId, token);
      const s = sessions.get(params.sessionId);
      if (s) {
        // Remember the turn so session/load can replay it.
        s.history.push({ user: text });
        for (const st of steps) if (st.text !== undefined && st.chunks === undefined) s.history.push({ text: st.text });
        if (scenario.title && !s.title) s.title = scenario.title;
        saveStore();
      }
      // `usage`: the turn's tokens in the answer (unstable PromptResponse.usage).
      let answered = false;
      const answer = (stop) => {
        if (!answered) reply(scenario.usage ? { stopReason: stop, usage: scenario.usage } : { stopReason: stop });
        answered = true;
      };
      return answer(await runSteps(params.sessionId, steps, token, answer));
    }
    default:
      if (id !== undefined) return fail(-32601, `Method not found: ${method}`);
  }
}
const current = new Map();

// The unfinished line in pieces: each chunk searched once (`buf += d` and indexOf over all of it
// was quadratic: one 15 MB answer to fs/read_text_file took this agent close to a minute).
let parts = [];
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => {
  let start = 0;
  let nl;
  while ((nl = d.indexOf("\n", start)) >= 0) {
    const line = parts.join("") + d.slice(start, nl);
    parts = [];
    start = nl + 1;
    if (!line.trim()) continue;
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      process.stderr.write(`fake agent: bad line ${line.slice(0, 80)}\n`);
      continue;
    }
    record(msg);
    if (msg.method === "session/cancel") {
      const token = current.get(msg.params?.sessionId);
      if (token) cancelled.add(token);
      continue;
    }
    if (msg.method === undefined && msg.id !== undefined) {
      const resolve = pending.get(msg.id);
      pending.delete(msg.id);
      resolve?.(msg);
      continue;
    }
    handle(msg).catch((e) => process.stderr.write(`fake agent error: ${e.stack}\n`));
  }
  if (start < d.length) parts.push(d.slice(start));
});
process.stdin.on("end", () => process.exit(0));
