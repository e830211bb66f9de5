/**
 * The house's shape, checked: only src/nvim/ speaks to Neovim, session state does not depend on
 * process spawning, the layers import one way (wire/ at the bottom, then the lower folders,
 * session/ below view/ below nvim/), no file grows past 500 lines, and neither the TypeScript
 * modules nor the Lua modules import in circles. The folders of lua/acpchat/ are layers too:
 * LUA_LAYERS orders them, and none requires one above it.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/nvim.js";

function files(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p, ext) : p.endsWith(ext) ? [p] : [];
  });
}

/** src/ module -> the src/ modules and packages it imports (type-only imports included). */
function tsGraph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files(join(ROOT, "src"), ".ts")) {
    const text = readFileSync(f, "utf8");
    const deps = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+"([^"]+)"/gms)].map((m) => {
      const spec = m[1]!;
      return spec.startsWith(".") ? relative(ROOT, resolve(dirname(f), spec.replace(/\.js$/, ".ts"))) : spec;
    });
    g.set(relative(ROOT, f), deps);
  }
  return g;
}

/** lua/acpchat module -> the plugin's modules it requires (anywhere in the file). */
function luaGraph(): Map<string, string[]> {
  const g = new Map<string, string[]>();
  for (const f of files(join(ROOT, "lua/acpchat"), ".lua")) {
    // lua/acpchat/ask/init.lua is acpchat.ask, as require() finds it.
    const rel = relative(join(ROOT, "lua"), f).replace(/(\/init)?\.lua$/, "");
    const name = rel.replaceAll("/", ".");
    const deps: string[] = [];
    for (const raw of readFileSync(f, "utf8").split("\n")) {
      const line = raw.replace(/--.*$/, "");
      for (const m of line.matchAll(/require\(\s*(["'])(acpchat[\w.]*)\1\s*\)/g)) {
        // A require( written inside a string (a message that shows the API) is not one.
        const other = m[1] === '"' ? "'" : '"';
        if ((line.slice(0, m.index).split(other).length - 1) % 2 === 1) continue;
        if (m[2] !== name) deps.push(m[2]!);
      }
    }
    g.set(name, deps);
  }
  return g;
}

/**
 * The layers of lua/acpchat/, bottom first: a folder, or a file at its root (its leaves at the
 * bottom; the public API, :checkhealth and the installer on top). A module requires only its own
 * layer or those below; a folder or root file not named here fails the test until it is placed.
 */
const LUA_LAYERS: string[][] = [
  // Leaves every layer may use: options, notifications, types, highlight groups.
  ["notify", "util", "config_schema", "config", "types", "highlights", "_meta"],
  // The pipe to Node (the bridge and the generated contract names).
  ["host"],
  // The user's buffers and language servers for the agent's tools; two buffers in diff mode.
  ["editor", "diff"],
  // A transcript's text: blocks as lines and highlights, the feature blocks, history, saving.
  ["transcript"],
  // One chat's buffers and windows: the registry, layout, prompt, render batches, waiting questions.
  ["chat"],
  // What asks the user or helps the prompt: questions, completion, checkpoints.
  ["ask", "complete", "checkpoints"],
  // A chat's life and commands: open/send/close, keys, sessions, settings, Node's events.
  ["app"],
  // The review loop (:AcpChatReview, comments), which sends through a chat.
  ["review"],
  // require("acpchat"), :checkhealth acpchat, the installer.
  ["init", "health", "install"],
];

/** lua/acpchat module -> its group: the folder it is in, or its own name for a root file. */
function luaGroups(): Map<string, string> {
  const groups = new Map<string, string>();
  for (const f of files(join(ROOT, "lua/acpchat"), ".lua")) {
    const rel = relative(join(ROOT, "lua/acpchat"), f);
    const name = `acpchat.${rel.replace(/\.lua$/, "").replaceAll("/", ".")}`.replace(/\.init$/, "");
    groups.set(name, rel.includes("/") ? rel.split("/")[0]! : rel.replace(/\.lua$/, ""));
  }
  return groups;
}

function cycles(g: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const walk = (n: string, path: string[]) => {
    state.set(n, "open");
    for (const m of g.get(n) ?? []) {
      if (!g.has(m)) continue;
      if (state.get(m) === "open") found.push([...path.slice(path.indexOf(m)), m]);
      else if (!state.has(m)) walk(m, [...path, m]);
    }
    state.set(n, "done");
  };
  for (const n of g.keys()) if (!state.has(n)) walk(n, [n]);
  return found;
}

function reach(g: Map<string, string[]>, from: string): Set<string> {
  const seen = new Set<string>();
  const todo = [from];
  while (todo.length) {
    const n = todo.pop()!;
    for (const m of g.get(n) ?? []) if (!seen.has(m)) seen.add(m), todo.push(m);
  }
  return seen;
}

describe("the house", () => {
  const ts = tsGraph();

  it("only src/nvim/ imports the neovim package", () => {
    const speakers = [...ts].filter(([, deps]) => deps.includes("neovim")).map(([f]) => f);
    expect(speakers.length).toBeGreaterThan(0);
    expect(speakers.filter((f) => !f.startsWith("src/nvim/"))).toEqual([]);
  });

  it("session state reaches no process spawning (execa, agents, terminals)", () => {
    const deps = [...reach(ts, "src/session/session-state.ts")];
    expect(
      deps.filter((d) => d === "execa" || d.startsWith("src/agent/") || d === "src/terminals/terminal-manager.ts"),
    ).toEqual([]);
  });

  it("session state reaches no node:child_process (media limits are apart from the clipboard)", () => {
    expect(
      [...reach(ts, "src/session/session-state.ts")].filter((d) => d === "node:child_process" || d === "child_process"),
    ).toEqual([]);
  });

  it("session/ imports neither the view nor the Neovim adapter", () => {
    const up = [...ts].flatMap(([f, deps]) =>
      f.startsWith("src/session/")
        ? deps.filter((d) => d.startsWith("src/view/") || d.startsWith("src/nvim/")).map((d) => `${f} -> ${d}`)
        : [],
    );
    expect(up).toEqual([]);
  });

  it("the view imports nothing of the Neovim adapter", () => {
    const up = [...ts].flatMap(([f, deps]) =>
      f.startsWith("src/view/") ? deps.filter((d) => d.startsWith("src/nvim/")).map((d) => `${f} -> ${d}`) : [],
    );
    expect(up).toEqual([]);
  });

  it("wire/ is the bottom: it imports nothing (no other folder of src/, no package)", () => {
    const wire = [...ts].filter(([f]) => f.startsWith("src/wire/"));
    expect(wire.length).toBeGreaterThan(3);
    const out = wire.flatMap(([f, deps]) => deps.filter((d) => !d.startsWith("src/wire/")).map((d) => `${f} -> ${d}`));
    expect(out).toEqual([]);
  });

  it("the contract's shapes are owned by wire/: src/nvim/ has no folder of them beside contract.ts", () => {
    const shapes = files(join(ROOT, "src/nvim"), ".ts").filter((f) =>
      relative(ROOT, f).startsWith("src/nvim/contract/"),
    );
    expect(shapes.map((f) => relative(ROOT, f))).toEqual([]);
  });

  it("the lower folders import neither session/, the view nor nvim/", () => {
    const lower = [
      "src/protocol/",
      "src/agent/",
      "src/workspace/",
      "src/terminals/",
      "src/trace/",
      "src/client/",
      "src/checkpoints/",
      "src/registry/",
    ];
    const upper = ["src/session/", "src/view/", "src/nvim/"];
    const up = [...ts].flatMap(([f, deps]) =>
      lower.some((l) => f.startsWith(l))
        ? deps.filter((d) => upper.some((u) => d.startsWith(u))).map((d) => `${f} -> ${d}`)
        : [],
    );
    expect(up).toEqual([]);
  });

  it("no source file is over 500 lines", () => {
    // Longer files that do one job, and why they stay whole (each within 10% of the limit).
    const allowed: Record<string, number> = {
      // The JSON-RPC peer: framing, requests, answers and cancellation of one connection.
      "src/protocol/jsonrpc.ts": 550,
      // The transcript as a state machine: every session update and turn event, one reducer.
      "src/session/session-state.ts": 550,
    };
    // Generated files (one definition after another, made from the SDK's schema.json by
    // scripts/gen-schemas.mjs, never edited) have no limit: only those in src/protocol/generated/
    // that say so in their first line, which the generator writes and schemas-generated.test.ts
    // holds to the generator.
    const generated = (f: string) =>
      f.startsWith("src/protocol/generated/") &&
      readFileSync(join(ROOT, f), "utf8").startsWith("// Generated by scripts/gen-schemas.mjs ");
    const long = files(join(ROOT, "src"), ".ts")
      .filter((f) => !generated(relative(ROOT, f)))
      .map((f) => [relative(ROOT, f), readFileSync(f, "utf8").split("\n").length] as const)
      .filter(([f, n]) => n > (allowed[f] ?? 500))
      .map(([f, n]) => `${f}: ${n} lines`);
    expect(long).toEqual([]);
  });

  it("TypeScript modules import in no circle", () => {
    expect(cycles(ts)).toEqual([]);
  });

  it("the folders of src/ import in no circle (a layer never imports one above it)", () => {
    const folder = (f: string) => f.split("/").slice(0, 2).join("/");
    const g = new Map<string, string[]>();
    for (const [f, deps] of ts) {
      const from = folder(f);
      const to = deps
        .filter((d) => d.startsWith("src/"))
        .map(folder)
        .filter((d) => d !== from);
      g.set(from, [...new Set([...(g.get(from) ?? []), ...to])]);
    }
    expect(g.size).toBeGreaterThan(5);
    expect(cycles(g)).toEqual([]);
  });

  it("every Lua folder and root file has its place in the layers", () => {
    const placed = new Set(LUA_LAYERS.flat());
    expect([...new Set(luaGroups().values())].filter((g) => !placed.has(g))).toEqual([]);
  });

  it("the folders of lua/acpchat/ require in no circle, and no layer requires one above it", () => {
    const lua = luaGraph();
    const group = luaGroups();
    const layer = (g: string) => LUA_LAYERS.findIndex((l) => l.includes(g));
    const g = new Map<string, string[]>();
    const up: string[] = [];
    for (const [m, deps] of lua) {
      const from = group.get(m)!;
      for (const d of deps) {
        const to = group.get(d);
        if (to === undefined || to === from) continue;
        g.set(from, [...new Set([...(g.get(from) ?? []), to])]);
        if (layer(to) > layer(from)) up.push(`${m} (${from}) -> ${d} (${to})`);
      }
    }
    expect(g.size).toBeGreaterThan(8);
    expect(cycles(g)).toEqual([]);
    expect(up).toEqual([]);
  });

  it("Lua modules require in no circle", () => {
    const lua = luaGraph();
    expect(lua.size).toBeGreaterThan(10);
    expect(cycles(lua)).toEqual([]);
  });
});
