/**
 * Lua specs of the plugin's pure modules: every test/lua/*_spec.lua, run by test/lua/harness.lua
 * in a headless Neovim (`nvim --headless -l`) for each Neovim under test. A new spec file is
 * picked up without touching this file.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { nvimBins, ROOT } from "../support/nvim.js";

const run = promisify(execFile);
const specs = readdirSync(join(ROOT, "test/lua"))
  .filter((f) => f.endsWith("_spec.lua"))
  .sort();

interface SpecResult {
  name: string;
  ok: boolean;
  err?: string;
}

/** Run one spec file; its results, or one failure saying why it could not run. */
async function runSpec(bin: string, spec: string): Promise<SpecResult[]> {
  // stdpath() must not reach the user's folders.
  const home = mkdtempSync(join(tmpdir(), "acpchat-spec-"));
  const env: Record<string, string> = { ...process.env } as Record<string, string>;
  for (const d of ["config", "data", "state", "cache"]) {
    mkdirSync(join(home, d));
    env[`XDG_${d.toUpperCase()}_HOME`] = join(home, d);
  }
  let stdout = "";
  let stderr = "";
  try {
    ({ stdout, stderr } = await run(
      bin,
      ["--headless", "-l", join(ROOT, "test/lua/harness.lua"), join(ROOT, "test/lua", spec)],
      { cwd: home, env, timeout: 30_000 },
    ));
  } catch (e) {
    // A failing spec exits 1: its output still holds the results.
    const err = e as { stdout?: string; stderr?: string; message: string };
    stdout = err.stdout ?? "";
    stderr = err.stderr ?? err.message;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  const line = stdout.split("\n").find((l) => l.startsWith("SPEC-RESULT "));
  if (!line) return [{ name: `(${spec} produced no result)`, ok: false, err: `${stdout}\n${stderr}` }];
  const { results } = JSON.parse(line.slice("SPEC-RESULT ".length)) as {
    results: SpecResult[] | Record<string, never>;
  };
  // An empty Lua table may encode as {}.
  return Array.isArray(results) ? results : [];
}

it("there are Lua specs", () => {
  expect(specs.length).toBeGreaterThan(0);
});

describe.each(nvimBins())("Neovim $version", (bin) => {
  it.each(specs)("%s", async (spec) => {
    const results = await runSpec(bin.path, spec);
    expect(results.length, "the spec ran no test").toBeGreaterThan(0);
    // The failing tests with their messages: the diff shows what broke.
    expect(results.filter((r) => !r.ok)).toEqual([]);
  });
});
