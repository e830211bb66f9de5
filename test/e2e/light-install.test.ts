/**
 * The install a user makes (README, "Install"): `npm ci --omit=dev && npm run build`, runtime
 * packages only. A copy of the checkout gets a node_modules with exactly the production packages
 * of the lock file (`npm ls --omit=dev`), builds there without TypeScript or any other dev
 * dependency, and a chat with the fake agent runs from it in a real Neovim. A value import of a
 * dev dependency in src/ or in the build script fails here.
 */
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nvimBins, ROOT } from "../support/nvim.js";
import { nvim, openChat, sendAndWait, setAgents } from "../support/chat.js";
import { CHECKOUT_ENTRIES } from "../support/checkout-copy.js";

const run = promisify(execFile);
const scratch = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-light-")));
const copy = join(scratch, "acp-chat.nvim");
let build = "";
let production: string[] = [];
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The top-level packages that `npm ci --omit=dev` installs (scoped ones as @scope/name). */
function productionPackages(): string[] {
  const out = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], { cwd: ROOT, encoding: "utf8" });
  const top = new Set<string>();
  for (const p of out.split("\n").filter(Boolean)) {
    const rel = relative(join(ROOT, "node_modules"), p);
    if (rel === "" || rel.startsWith("..")) continue;
    const parts = rel.split("/");
    top.add(parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!);
  }
  return [...top];
}

beforeAll(async () => {
  // The checkout without its build (made here, with runtime packages only), and the test's init.
  for (const entry of [...CHECKOUT_ENTRIES.filter((e) => e !== "dist"), "test/nvim/init.lua"]) {
    cpSync(join(ROOT, entry), join(copy, entry), { recursive: true });
  }
  production = productionPackages();
  for (const pkg of production) {
    mkdirSync(dirname(join(copy, "node_modules", pkg)), { recursive: true });
    symlinkSync(join(ROOT, "node_modules", pkg), join(copy, "node_modules", pkg));
  }
  const r = await run(process.execPath, [join(copy, "scripts/build.mjs")], { cwd: copy });
  build = r.stdout;
}, 120_000);

it("installs no dev dependency and builds without one", () => {
  const installed = readFileSync(join(copy, "package.json"), "utf8");
  const dev = Object.keys((JSON.parse(installed) as { devDependencies: Record<string, string> }).devDependencies);
  // A dev dependency may also be a runtime package's dependency (ajv): only the others stay out.
  const devOnly = dev.filter((d) => !production.includes(d));
  expect(devOnly).toEqual(expect.arrayContaining(["typescript", "vitest", "@zed-industries/claude-code-acp"]));
  for (const d of devOnly) expect(existsSync(join(copy, "node_modules", d)), d).toBe(false);
  expect(existsSync(join(copy, "node_modules", "neovim")) && existsSync(join(copy, "node_modules", "esbuild"))).toBe(
    true,
  );
  expect(build).toContain("no TypeScript here");
  for (const out of [
    "dist/acpchat.cjs",
    "dist/acpchat.cjs.v8cache",
    "dist/code-cache.cjs",
    "dist/acpchat-mcp.cjs",
    "dist/acpchat-http.cjs",
    "dist/host.cjs",
  ])
    expect(existsSync(join(copy, out)), out).toBe(true);
  // The committed LuaCATS file is kept as it is.
  expect(readFileSync(join(copy, "lua/acpchat/_meta/contract.lua"), "utf8")).toBe(
    readFileSync(join(ROOT, "lua/acpchat/_meta/contract.lua"), "utf8"),
  );
});

describe.each(nvimBins())("Neovim $version", (bin) => {
  it("runs a chat from that install", async () => {
    const t = await nvim(bin, {}, {}, join(copy, "test/nvim/init.lua"));
    expect(await t.lua<string>("return require('acpchat.host.bridge').root")).toBe(copy);
    await setAgents(t, { fake: { turns: [[{ text: "from the light install" }]] } });
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "hello");
    expect(await c.text()).toContain("from the light install");
    const host = await t.lua<{ pid: number }>(
      "return require('acpchat.host.bridge').call_sync('ping', vim.empty_dict(), 5000)",
    );
    // The node client's host as this install built it (dist/host.cjs, bundled from node_modules/neovim).
    expect(readFileSync(`/proc/${host.pid}/cmdline`, "utf8")).toContain(join(copy, "dist/host.cjs"));
  });
});
