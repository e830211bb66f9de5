/**
 * :AcpChatInstall from a registry of the test's own (no network): an npm package (a packed
 * tarball of the project's fake agent), a binary archive made here, and an agent with no build
 * for this platform. Installed agents are offered by :AcpChat with no config and chat; a failed
 * install leaves nothing behind; an unreadable registry falls back to its cached copy.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FAKE_AGENT, nvimBins, type TestNvim } from "../support/nvim.js";
import { nvim, notes, openChat, recordNotes, sendAndWait } from "../support/chat.js";

const bins = nvimBins();
const platform = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch === "x64" ? "x86_64" : process.arch === "arm64" ? "aarch64" : process.arch}`;

/** A registry file with three agents, and the packages it points to. */
function fixture(dir: string): string {
  // An npm package of the fake agent, packed.
  const pkg = join(dir, "pkg");
  mkdirSync(pkg);
  copyFileSync(FAKE_AGENT, join(pkg, "agent.mjs"));
  writeFileSync(
    join(pkg, "package.json"),
    JSON.stringify({
      name: "fake-acp-agent",
      version: "1.2.3",
      type: "module",
      bin: { "fake-acp-agent": "agent.mjs" },
    }),
  );
  const tgz = join(
    dir,
    execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: pkg, encoding: "utf8" })
      .trim()
      .split("\n")
      .pop()!,
  );
  // A binary archive: a program that starts the fake agent.
  const bin = join(dir, "bin-src", "bin");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "agent"), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`);
  chmodSync(join(bin, "agent"), 0o755);
  const archive = join(dir, "agent-linux.tar.gz");
  execFileSync("tar", ["-czf", archive, "-C", join(dir, "bin-src"), "bin"]);
  const registry = {
    version: "1.0.0",
    agents: [
      {
        id: "fake-npm",
        name: "Fake npm agent",
        version: "1.2.3",
        description: "the fake agent, from npm",
        distribution: { npx: { package: tgz, args: [] } },
      },
      {
        id: "fake-bin",
        name: "Fake binary agent",
        version: "0.9.0",
        description: "the fake agent, as a binary",
        distribution: { binary: { [platform]: { archive, cmd: "./bin/agent" } } },
      },
      {
        id: "fake-win",
        name: "Windows only",
        version: "1.0.0",
        description: "no build for this machine",
        distribution: { binary: { "windows-x86_64": { archive: "https://example.invalid/x.zip", cmd: "x.exe" } } },
      },
      {
        id: "fake-broken",
        name: "Broken package",
        version: "1.0.0",
        description: "its package does not exist",
        distribution: { npx: { package: join(dir, "missing.tgz") } },
      },
    ],
  };
  const file = join(dir, "registry.json");
  writeFileSync(file, JSON.stringify(registry));
  return file;
}

async function installed(t: TestNvim, id: string): Promise<void> {
  await t.nvim.command(`AcpChatInstall ${id}`);
  await t.waitFor(
    async () => (await notes(t)).find((n) => new RegExp(`installed .* :AcpChat ${id} starts it|failed`).test(n.msg)),
    `the install of ${id}`,
    60_000,
  );
}

describe.each(bins)("Neovim $version", (bin) => {
  it("an npm agent and a binary agent install into the plugin's folder, are offered by :AcpChat and chat", async () => {
    const t = await nvim(bin);
    const registry = fixture(t.dir);
    await t.lua("require('acpchat').setup({ registry_url = ... })", [registry]);
    await recordNotes(t);
    // The list: names, versions, descriptions, and what cannot be installed here.
    await t.lua(
      "_G.listed = nil; vim.ui.select = function(items, opts, cb) _G.listed = vim.tbl_map(opts.format_item, items); cb(nil) end",
    );
    await t.nvim.command("AcpChatInstall");
    const listed = await t.waitFor(async () => t.lua<string[] | null>("return _G.listed"), "the registry list");
    expect(listed[0]).toContain("Fake npm agent 1.2.3 — the fake agent, from npm");
    expect(listed.find((l) => l.startsWith("Windows only"))).toContain("cannot be installed here");
    for (const id of ["fake-npm", "fake-bin"]) {
      await installed(t, id);
      expect((await notes(t)).map((n) => n.msg).join(" | ")).toContain(`:AcpChat ${id} starts it`);
      await recordNotes(t);
      const current = JSON.parse(
        readFileSync(join(t.dir, "data", "nvim", "acpchat", "agents", id, "current.json"), "utf8"),
      ) as { command: string; version: string };
      expect(current.command.startsWith(join(t.dir, "data", "nvim", "acpchat", "agents", id))).toBe(true);
      expect(await t.lua<string[]>("return require('acpchat.config').agent_names()")).toContain(id);
      const c = await openChat(t, `AcpChat! ${id}`);
      await c.ready();
      await sendAndWait(c, "hello");
      expect(await c.text()).toContain("echo: hello");
    }
    // Listed as installed now; the list says so.
    await t.lua(
      "_G.listed = nil; vim.ui.select = function(items, opts, cb) _G.listed = vim.tbl_map(opts.format_item, items); cb(nil) end",
    );
    await t.nvim.command("AcpChatInstall");
    const again = await t.waitFor(async () => t.lua<string[] | null>("return _G.listed"), "the list again");
    expect(again.find((l) => l.startsWith("Fake npm agent"))).toContain("[installed]");
  });

  it("a failed install leaves nothing, an unsupported platform says why, and an unreadable registry falls back to its cache", async () => {
    const t = await nvim(bin);
    const registry = fixture(t.dir);
    await t.lua("require('acpchat').setup({ registry_url = ... })", [registry]);
    await recordNotes(t);
    await installed(t, "fake-broken");
    const failed = (await notes(t)).find((n) => n.msg.includes("failed"))!;
    expect(failed.msg).toMatch(/installing Broken package failed: npm install failed/);
    expect(existsSync(join(t.dir, "data", "nvim", "acpchat", "agents", "fake-broken"))).toBe(false);
    await t.nvim.command("AcpChatInstall fake-win");
    await t.waitFor(
      async () => (await notes(t)).find((n) => n.msg.includes("Windows only cannot be installed here")),
      "the platform note",
    );
    // The registry file goes away: the cached copy is used, and the user is told.
    rmSync(registry);
    await t.nvim.command("AcpChatInstall fake-win");
    await t.waitFor(
      async () => (await notes(t)).find((n) => /could not read the registry .* using the copy from/.test(n.msg)),
      "the cache note",
    );
  });
});
