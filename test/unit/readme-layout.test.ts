/**
 * The README's Layout section against the tree: every path it names exists, and every
 * TypeScript module under src/ and every Lua module under lua/ is named there. A file added,
 * moved or deleted without its line in the map fails here.
 *
 * How the section is read: a line that starts at column 0 names a top path (a folder ends in
 * `/` and is the base for the indented lines under it). An indented line starts with names
 * (tokens with an extension, or ending in `/`) until the first word that is not one; a name
 * with a `/` is relative to the base, one without to the folder of the name before it on the
 * line. Names in the description (`(ring-buffer.ts)`) count as named when they exist, but are
 * not required to.
 */
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/nvim.js";

const NAME = /^[\w.@-]*(?:\/[\w.@-]*)*(?:\.(?:ts|mts|mjs|cjs|lua|sh|md|json)|\/)$/;

function files(dir: string, ext: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p, ext) : p.endsWith(ext) ? [relative(ROOT, p)] : [];
  });
}

/** The paths the Layout section names (required to exist) and mentions (named if they exist). */
function layout(readme: string): { named: string[]; mentioned: string[] } {
  const section = /^## Layout\n([\s\S]*?)(?=^## )/m.exec(readme)?.[1] ?? "";
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  const named: string[] = [];
  const mentioned: string[] = [];
  let base = "";
  for (const line of block.split("\n")) {
    if (line.trim() === "") continue;
    const indent = line.length - line.trimStart().length;
    const words = line.trim().split(/\s+/);
    if (indent === 0) {
      const top = words[0]!;
      named.push(top);
      if (top.endsWith("/")) base = top;
      continue;
    }
    // A continuation of the description above: no names.
    if (indent >= 20) continue;
    let dir = base;
    let lineDir = base;
    for (const w of words) {
      if (!NAME.test(w)) break;
      const path =
        w.includes("/") && !w.endsWith("/") ? join(base, w) : w.endsWith("/") ? join(base, w) + "/" : join(dir, w);
      named.push(path);
      dir = w.includes("/") ? dirname(path) + "/" : dir;
      lineDir = dir;
    }
    for (const m of line.matchAll(/[\w./-]+\.(?:ts|lua)\b/g)) mentioned.push(join(lineDir, m[0]));
  }
  return { named, mentioned };
}

describe("the README's Layout section", () => {
  const { named, mentioned } = layout(readFileSync(join(ROOT, "README.md"), "utf8"));

  it("is there and names the top of the tree", () => {
    expect(named).toEqual(expect.arrayContaining(["src/", "lua/acpchat/", "test/", "scripts/", "bench/"]));
  });

  it("names only paths that exist", () => {
    expect(named.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it("names every TypeScript module under src/ and every Lua module under lua/", () => {
    const known = new Set([...named, ...mentioned].filter((p) => existsSync(join(ROOT, p))));
    const all = [...files(join(ROOT, "src"), ".ts"), ...files(join(ROOT, "lua"), ".lua")];
    expect(all.length).toBeGreaterThan(50);
    expect(all.filter((f) => !known.has(f))).toEqual([]);
  });
});
