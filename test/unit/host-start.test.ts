/**
 * What keeps the Node host's start cheap (bench/host-start.mjs measures it): the remote plugin's
 * bundle builds no zod schema at its top level (every schema is `lazy`, src/protocol/lazy-schema.ts,
 * and stays exactly as strict once built), the bundles are ASCII (a non-ASCII byte made Node
 * decode and V8 compile the whole file as two-byte text), the node client's logger stand-in
 * (src/nvim/host-logger.ts) keeps winston's contract, and `git --version` runs once per program.
 *
 * The schema count is real: src/nvim/plugin.ts is bundled here with zod left outside, then
 * required in a child Node whose `require("zod")` hands out a `z` that counts every call.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { gitVersion } from "../../src/checkpoints/git.js";
import { createLogger, format, transports } from "../../src/nvim/host-logger.js";
import { lazy } from "../../src/protocol/lazy-schema.js";
import * as schema from "../../src/protocol/schema.js";
import * as unstable from "../../src/protocol/unstable-schema.js";
import { ROOT } from "../support/nvim.js";
import { z } from "zod";

const dir = mkdtempSync(join(tmpdir(), "acpchat-hoststart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A child Node that requires `bundle` with a counting zod, runs `after` (JS), prints the counts. */
function countZod(bundle: string, after = ""): { load: number; after: number; sites: string[] } {
  const runner = join(dir, `run-${Math.random().toString(36).slice(2)}.cjs`);
  writeFileSync(
    runner,
    `
const Module = require("node:module");
const real = require(${JSON.stringify(createRequire(import.meta.url).resolve("zod"))});
let n = 0;
const sites = [];
// zod's z is frozen: a copy whose functions count their calls (classes, capitalised, pass through).
const z = {};
for (const k of Object.keys(real.z)) {
  const v = real.z[k];
  z[k] = typeof v !== "function" || /^[A-Z]/.test(k) ? v : function (...a) {
    n++;
    if (sites.length < 5) sites.push(k + " " + (new Error().stack.split("\\n")[2] ?? "").trim());
    return v.apply(this, a);
  };
}
const load = Module._load;
Module._load = function (req, ...rest) {
  return req === "zod" ? { ...real, z } : load.call(this, req, ...rest);
};
const mod = require(${JSON.stringify(bundle)});
const atLoad = n;
${after}
process.stdout.write(JSON.stringify({ load: atLoad, after: n - atLoad, sites }));
`,
  );
  return JSON.parse(execFileSync(process.execPath, [runner], { encoding: "utf8" }));
}

async function bundle(entry: string, name: string): Promise<string> {
  const outfile = join(dir, name);
  await build({
    entryPoints: [join(ROOT, entry)],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "silent",
    external: ["neovim", "zod"],
  });
  return outfile;
}

describe("the host's start builds no schema", () => {
  it("requiring the remote plugin's bundle calls zod not once", async () => {
    const r = countZod(await bundle("src/nvim/plugin.ts", "plugin.cjs"));
    expect(r.sites).toEqual([]);
    expect(r.load).toBe(0);
  });

  it("the count sees the bundle's zod: the ACP schemas build on first parse, and parse as before", async () => {
    const r = countZod(
      await bundle("src/protocol/schema.ts", "schema.cjs"),
      `
      const ok = mod.parseSessionUpdate({ sessionUpdate: "tool_call", toolCallId: "t", title: "x" });
      const bad = mod.parseSessionUpdate({ sessionUpdate: "tool_call", toolCallId: 1, title: "x" });
      if (ok.sessionUpdate !== "tool_call" || bad.sessionUpdate !== "unknown") throw new Error("parse changed");
      `,
    );
    expect(r.load).toBe(0);
    expect(r.after).toBeGreaterThan(20);
  });
});

describe("lazy schemas", () => {
  it("build once, on first touch, and are the schema from then on", () => {
    let built = 0;
    const S = lazy(() => {
      built++;
      return z.looseObject({ a: z.string() });
    });
    const Outer = lazy(() => z.object({ inner: S.nullish() }));
    expect(built).toBe(0);
    expect(Outer.safeParse({ inner: { a: "x", extra: 1 } }).data).toEqual({ inner: { a: "x", extra: 1 } });
    expect(Outer.safeParse({ inner: { a: 1 } }).success).toBe(false);
    expect(built).toBe(1);
    expect(S instanceof z.ZodObject).toBe(true);
    expect(Object.keys(S.shape)).toEqual(["a"]);
    expect(S.extend({ b: z.number() }).safeParse({ a: "x", b: "y" }).success).toBe(false);
    expect(built).toBe(1);
  });

  it("the kinds written out are exactly their unions' variants", () => {
    const kinds = (u: { options: readonly unknown[] }) =>
      (u.options as { shape: { sessionUpdate: { value: string } } }[]).map((o) => o.shape.sessionUpdate.value).sort();
    expect([...schema.KNOWN_UPDATE_KINDS].sort()).toEqual(kinds(schema.KnownSessionUpdate));
    expect([...schema.OPT_IN_UPDATE_KINDS].sort()).toEqual(kinds(schema.OptInSessionUpdate));
    expect([...unstable.UNSTABLE_UPDATE_KINDS].sort()).toEqual(kinds(unstable.UnstableSessionUpdate));
  });
});

describe("the built bundles", () => {
  const files = ["dist/acpchat.cjs", "dist/host.cjs", "dist/acpchat-mcp.cjs"].map((f) => join(ROOT, f));
  it.skipIf(!files.every((f) => existsSync(f)))("are ASCII only (npm run build)", () => {
    for (const f of files) expect(/[^\x00-\x7f]/.test(readFileSync(f, "latin1")), f).toBe(false);
  });
});

describe("the node client's logger stand-in", () => {
  it("writes what winston wrote to NVIM_NODE_LOG_FILE, at the level asked, and nothing to stdout", async () => {
    const file = join(dir, "host.log");
    // As neovim/lib/utils/logger.js makes it.
    const logger = createLogger({ level: "info" });
    logger.add(
      new transports.File({
        filename: file,
        level: "info",
        format: format.combine(
          format.splat(),
          format.timestamp(),
          format.printf((info) => `${info.timestamp} ${info.level.slice(0, 3).toUpperCase()} ${String(info.message)}`),
        ),
      }),
    );
    const quiet = createLogger({ level: "debug" });
    quiet.add(new transports.Console({ silent: true }));
    const out = process.stdout.write;
    let stdout = "";
    process.stdout.write = ((s: string) => ((stdout += s), true)) as typeof process.stdout.write;
    try {
      logger.debug("not at info");
      logger.info("request %s of %d", "nvim_buf_get_lines", 3);
      logger.error("failed");
      quiet.error("nowhere");
    } finally {
      process.stdout.write = out;
    }
    const deadline = Date.now() + 5000;
    while (!(existsSync(file) && readFileSync(file, "utf8").split("\n").length > 2) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d INF request nvim_buf_get_lines of 3$/);
    expect(lines[1]).toMatch(/ ERR failed$/);
    expect(stdout).toBe("");
  });
});

describe("git --version", () => {
  it("runs once per program for the host's life; a failure is asked again", async () => {
    const calls = join(dir, "calls");
    const git = join(dir, "git-counting");
    writeFileSync(git, `#!/bin/sh\necho x >> '${calls}'\nexec git "$@"\n`);
    chmodSync(git, 0o755);
    const [a, b] = await Promise.all([gitVersion(git), gitVersion(git)]);
    const c = await gitVersion(git);
    expect(a.ok && b.ok && c.ok).toBe(true);
    expect(readFileSync(calls, "utf8").trim().split("\n")).toHaveLength(1);

    const failing = join(dir, "git-failing");
    const failed = join(dir, "failed");
    writeFileSync(failing, `#!/bin/sh\necho x >> '${failed}'\nexit 3\n`);
    chmodSync(failing, 0o755);
    expect((await gitVersion(failing)).ok).toBe(false);
    expect((await gitVersion(failing)).ok).toBe(false);
    expect(readFileSync(failed, "utf8").trim().split("\n")).toHaveLength(2);
  });
});
