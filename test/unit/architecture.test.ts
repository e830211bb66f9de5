/**
 * The house's shape, checked: only src/nvim/ speaks to Neovim, session state does not depend on
 * process spawning, and neither the TypeScript modules nor the Lua modules import in circles.
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
    for (const m of g.get(n) ?? []) if (!seen.has(m)) (seen.add(m), todo.push(m));
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
    expect(deps.filter((d) => d === "execa" || d.startsWith("src/agent/") || d === "src/terminals/terminal-manager.ts")).toEqual([]);
  });

  it("TypeScript modules import in no circle", () => {
    expect(cycles(ts)).toEqual([]);
  });

  it("Lua modules require in no circle", () => {
    const lua = luaGraph();
    expect(lua.size).toBeGreaterThan(10);
    expect(cycles(lua)).toEqual([]);
  });
});
