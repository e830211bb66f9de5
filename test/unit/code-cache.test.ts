/**
 * The bundle loader with a V8 code cache (src/nvim/code-cache.ts) on a small bundle of its own:
 * the build's cache is used by the next load; a file with the right name and key but data V8
 * refuses, or that is not a cache at all, means a plain compile with the same exports; stack
 * traces keep the bundle's file name and lines. (test/e2e/code-cache.test.ts: the real host.)
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import vm from "node:vm";
import { afterAll, describe, expect, it } from "vitest";
import {
  besideFile,
  cacheKey,
  codeCacheStatus,
  loadBundle,
  readCacheFile,
  sweep,
  writeCacheFile,
} from "../../src/nvim/code-cache.js";

const dir = mkdtempSync(join(tmpdir(), "acpchat-codecache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** A CommonJS bundle whose `boom()` throws from its line 4. */
function bundle(): string {
  const file = join(dir, `b${n++}.cjs`);
  writeFileSync(
    file,
    [
      '"use strict";',
      "const path = require('node:path');",
      "exports.base = path.basename(__filename);",
      "exports.boom = () => { throw new Error('boom'); };",
      `exports.many = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => `f${i}`))}.map((k) => () => k);`,
      "",
    ].join("\n"),
  );
  return file;
}

describe("code cache loader", () => {
  it("the build writes the cache beside the bundle; the next load uses it", () => {
    const file = bundle();
    const built = loadBundle(file, { build: true }) as { base: string };
    expect(built.base).toBe(file.split("/").pop());
    expect(codeCacheStatus()).toMatchObject({ used: false, file: besideFile(file) });
    const again = loadBundle(file) as { base: string };
    expect(again.base).toBe(built.base);
    expect(codeCacheStatus()).toEqual({ used: true, file: besideFile(file), why: "loaded from the code cache" });
  });

  it("data V8 refuses (made from other code) means a plain compile, same exports", () => {
    const file = bundle();
    const source = readFileSync(file);
    const other = new vm.Script("(function(){ return 42; })").createCachedData();
    writeCacheFile(besideFile(file), cacheKey(source), other);
    expect("data" in readCacheFile(besideFile(file), cacheKey(source))).toBe(true);
    const mod = loadBundle(file) as { many: (() => string)[] };
    expect(mod.many[199]?.()).toBe("f199");
    expect(codeCacheStatus().used).toBe(false);
    expect(codeCacheStatus().why).toContain("V8 refused");
  });

  it("a file that is no cache, or one cut short, is refused before V8 sees it", () => {
    const file = bundle();
    writeFileSync(besideFile(file), "garbage");
    loadBundle(file);
    expect(codeCacheStatus().why).toContain("is not a code cache");
    loadBundle(file, { build: true });
    const whole = readFileSync(besideFile(file));
    writeFileSync(besideFile(file), whole.subarray(0, whole.length - 10));
    loadBundle(file);
    expect(codeCacheStatus().why).toContain("is damaged");
  });

  it("stack traces name the bundle's file and line, with and without the cache", () => {
    const file = bundle();
    for (const opts of [{ build: true }, {}]) {
      const mod = loadBundle(file, opts) as { boom(): void };
      let stack = "";
      try {
        mod.boom();
      } catch (e) {
        stack = (e as Error).stack ?? "";
      }
      expect(stack).toContain(`${file}:4:`);
    }
    expect(codeCacheStatus().used).toBe(true);
  });

  it("sweeps only what no host uses: another Node's file in use stays, one unused for weeks and a failed write's temp go", () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-sweep-"));
    const f = (name: string, ageDays: number) => {
      const p = join(dir, name);
      writeFileSync(p, "x");
      const at = new Date(Date.now() - ageDays * 24 * 3600_000);
      utimesSync(p, at, at);
      return p;
    };
    const keep = f("acpchat.cjs-aaaa.v8cache", 30);
    const otherNode = f("acpchat.cjs-bbbb.v8cache", 1);
    const stale = f("acpchat.cjs-cccc.v8cache", 20);
    const writing = f("acpchat.cjs-dddd.v8cache.77.tmp", 0);
    const failed = f("acpchat.cjs-eeee.v8cache.78.tmp", 1);
    const notOurs = f("other.cjs-ffff.v8cache", 100);
    sweep(dir, "/x/acpchat.cjs", keep);
    expect([keep, otherNode, stale, writing, failed, notOurs].map((p) => existsSync(p))).toEqual([
      true,
      true,
      false,
      true,
      false,
      true,
    ]);
    rmSync(dir, { recursive: true, force: true });
  });
});
