/**
 * Comments speak for themselves: none in src/, lua/, test/, bench/ or scripts/ cites an issue by
 * number (a reader of the repository cannot look it up) or a Markdown file that is not in the
 * repository (notes kept elsewhere).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/nvim.js";

const tracked = execFileSync("git", ["ls-files"], { cwd: ROOT, encoding: "utf8" }).split("\n").filter(Boolean);
const sources = tracked.filter(
  (f) => /^(src|lua|test|bench|scripts)\//.test(f) && /\.(ts|mts|mjs|cjs|js|lua|sh)$/.test(f),
);
const markdown = new Set(tracked.filter((f) => f.endsWith(".md")).map((f) => basename(f)));

/** Outside a string so far: an even number of each quote before `at`. */
const outsideString = (line: string, at: number) =>
  ["'", '"', "`"].every((q) => (line.slice(0, at).split(q).length - 1) % 2 === 0);

/** The comments of a file, each with its line number (line comments, and lines of block comments). */
function comments(file: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  const lua = file.endsWith(".lua");
  const shell = file.endsWith(".sh");
  let inBlock = false;
  readFileSync(join(ROOT, file), "utf8")
    .split("\n")
    .forEach((l, i) => {
      if (!lua && !shell) {
        if (inBlock || /^\s*\/\*/.test(l)) {
          out.push({ line: i + 1, text: l });
          inBlock = !l.includes("*/");
          return;
        }
      }
      const marker = lua ? "--" : shell ? "#" : "//";
      for (let at = l.indexOf(marker); at >= 0; at = l.indexOf(marker, at + 1)) {
        if (!shell && !lua && l[at - 1] === ":") continue; // a URL
        if (outsideString(l, at)) {
          out.push({ line: i + 1, text: l.slice(at) });
          break;
        }
      }
    });
  return out;
}

// Built from parts so that this file does not match itself.
const ISSUE = new RegExp(["\\bissues?", "#?\\d+\\b"].join(" "), "i");
const NOTES = /\b[A-Z][\w-]*\.md\b/g;

describe("comments", () => {
  const all = sources.flatMap((f) => comments(f).map((c) => ({ ...c, file: f })));

  it("are found (the scan reads the tree)", () => {
    expect(sources.length).toBeGreaterThan(100);
    expect(all.length).toBeGreaterThan(2000);
  });

  it("cite no issue by number", () => {
    expect(all.filter((c) => ISSUE.test(c.text)).map((c) => `${c.file}:${c.line}: ${c.text.trim()}`)).toEqual([]);
  });

  it("cite no Markdown file that is not in the repository", () => {
    const bad = all.flatMap((c) =>
      [...c.text.matchAll(NOTES)].filter((m) => !markdown.has(m[0])).map((m) => `${c.file}:${c.line}: ${m[0]}`),
    );
    expect(bad).toEqual([]);
  });
});
