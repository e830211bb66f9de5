/**
 * For the tests of scripts/try.sh: a scratch folder for the test file (removed after it) and a
 * copy of the checkout in it as a user has it after `npm ci && npm run build` (node_modules
 * linked, the bundle newer than the sources), so that try.sh never builds in the working tree
 * and its isolated folders go under the copy's .cache/try.
 */
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { ROOT } from "./nvim.js";

/** What a user's checkout has (after `npm run build`: dist), node_modules aside. */
export const CHECKOUT_ENTRIES = [
  "plugin",
  "lua",
  "doc",
  "ftplugin",
  "rplugin",
  "scripts",
  "src",
  "dist",
  "package.json",
  "package-lock.json",
];

/** A folder under the temp dir, named `prefix`..., gone after the file's tests. */
export function scratchDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The checkout's copy in `scratch` (made on first use). */
export function checkoutCopy(scratch: string): string {
  const copy = join(scratch, "acp-chat.nvim");
  if (existsSync(copy)) return copy;
  for (const entry of CHECKOUT_ENTRIES)
    if (existsSync(join(ROOT, entry))) cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
  const later = new Date(Date.now() + 60_000);
  utimesSync(join(copy, "dist/acpchat.cjs"), later, later);
  return copy;
}
