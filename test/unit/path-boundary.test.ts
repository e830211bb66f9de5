import { mkdirSync, mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PathBoundary } from "../../src/workspace/path-boundary.js";

describe("PathBoundary", () => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-boundary-")));
  const cwd = join(d, "project");
  const extra = join(d, "shared-libs");
  mkdirSync(join(cwd, "src"), { recursive: true });
  mkdirSync(extra);
  symlinkSync(extra, join(cwd, "libs"));

  it("resolves relative paths against the cwd and returns the resolved path", () => {
    const b = new PathBoundary(cwd);
    expect(b.check("src/new.ts", "write")).toBe(join(cwd, "src/new.ts"));
    expect(b.check(`${cwd}/src/../src/./a.ts`, "read")).toBe(join(cwd, "src/a.ts"));
    expect(b.check(cwd, "terminal cwd")).toBe(cwd);
    expect(b.check(`${cwd}/`, "terminal cwd")).toBe(cwd);
  });

  it("allows the extra roots the user configured, and symlinks into them", () => {
    const b = new PathBoundary(cwd, [extra]);
    expect(b.check(join(extra, "x.ts"), "read")).toBe(join(extra, "x.ts"));
    expect(b.check("libs/x.ts", "read")).toBe(join(extra, "x.ts"));
    expect(new PathBoundary(cwd).contains("libs/x.ts")).toBe(false);
  });

  it("denies with a clear message naming the operation and the path", () => {
    const b = new PathBoundary(cwd);
    expect(() => b.check("../outside.txt", "write")).toThrow(
      /Access denied: write of "\.\.\/outside\.txt" is outside the session's working directory/,
    );
    expect(() => b.check("", "read")).toThrow(/Access denied/);
    expect(() => b.check(`${d}/project-evil/x`, "read")).toThrow(/Access denied/);
  });
});

describe("dangling symlinks", () => {
  it("a link inside the cwd to a file outside that does not exist yet is judged by its target", () => {
    const root = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-dangle-")));
    const cwd = join(root, "cwd");
    const outside = join(root, "outside");
    mkdirSync(cwd);
    mkdirSync(outside);
    symlinkSync(join(outside, "new.txt"), join(cwd, "escape.txt"));
    symlinkSync("../outside/dir/x", join(cwd, "rel"));
    symlinkSync(join(cwd, "later.txt"), join(cwd, "inside-link"));
    const b = new PathBoundary(cwd);
    expect(() => b.check("escape.txt", "write")).toThrow(/outside the session's working directory/);
    expect(() => b.check(join(cwd, "rel"), "write")).toThrow(/outside/);
    // A dangling link that stays inside is fine, and resolves to its target.
    expect(b.check("inside-link", "write")).toBe(join(cwd, "later.txt"));
    // A loop of links is refused, not followed forever.
    symlinkSync(join(cwd, "loop-b"), join(cwd, "loop-a"));
    symlinkSync(join(cwd, "loop-a"), join(cwd, "loop-b"));
    expect(() => b.check("loop-a", "write")).toThrow(/outside|denied/i);
  });
});
