/**
 * :AcpChatInstall against hostile registry files (a real Neovim, real archives, real npm): the
 * registry's data never becomes a path outside `<agents>/<id>/` (a version, current.json's
 * previous version, an npm spec's `@version`), an archive's `cmd` that is (or goes through) a
 * symbolic link is refused and its target untouched, and an archive whose `sha256` does not
 * match is not installed (the previous install stays). Each says so, clearly.
 */
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { FAKE_AGENT, nvimBins, type TestNvim } from "../support/nvim.js";
import { nvim, notes, recordNotes } from "../support/chat.js";

const bins = nvimBins();
const platform = `${process.platform === "win32" ? "windows" : process.platform}-${process.arch === "x64" ? "x86_64" : process.arch === "arm64" ? "aarch64" : process.arch}`;

/** A folder of the user's, outside the agents' folder, with a file in it. */
function victim(dir: string): string {
  const v = join(dir, "victim");
  mkdirSync(v, { recursive: true });
  writeFileSync(join(v, "precious.txt"), "keep me\n");
  return v;
}

/** A tar.gz holding `bin/agent` (a program that starts the fake agent), or what `shape` puts in. */
function archive(dir: string, name: string, shape?: (root: string) => void): string {
  const root = join(dir, `${name}-src`);
  mkdirSync(join(root, "bin"), { recursive: true });
  if (shape) shape(root);
  else {
    writeFileSync(join(root, "bin", "agent"), `#!/bin/sh\nexec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`);
    chmodSync(join(root, "bin", "agent"), 0o755);
  }
  const file = join(dir, `${name}.tar.gz`);
  execFileSync("tar", ["-czf", file, "-C", root, "."]);
  return file;
}

function npmPackage(dir: string): string {
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
  return join(
    dir,
    execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: pkg, encoding: "utf8" })
      .trim()
      .split("\n")
      .pop()!,
  );
}

function writeRegistry(dir: string, agents: unknown[]): string {
  const file = join(dir, "registry.json");
  writeFileSync(file, JSON.stringify({ version: "1.0.0", agents }));
  return file;
}

function bin(id: string, version: string, d: Record<string, unknown>): unknown {
  return { id, name: id, version, description: "", distribution: { binary: { [platform]: d } } };
}

const sha256 = (file: string): string => createHash("sha256").update(readFileSync(file)).digest("hex");

/** :AcpChatInstall `id`; the note it ends with (installed, or failed). */
async function install(t: TestNvim, id: string): Promise<string> {
  await recordNotes(t);
  await t.nvim.command(`AcpChatInstall! ${id}`);
  const n = await t.waitFor(
    async () =>
      (await notes(t)).find((x) =>
        /acpchat: installed |failed|cannot be installed|registry has no|up to date/.test(x.msg),
      ),
    `the install of ${id}`,
    60_000,
  );
  return n.msg;
}

const agentsDir = (t: TestNvim): string => join(t.dir, "data", "nvim", "acpchat", "agents");

describe.each(bins)("Neovim $version", (nvimBin) => {
  it("a version, a previous version and an npm @version that climb out of the agent's folder touch nothing outside", async () => {
    const t = await nvim(nvimBin);
    const v = victim(t.dir);
    const tgz = npmPackage(t.dir);
    const good = archive(t.dir, "good");
    // agents/<id>/<version>: five levels up from <id> is t.dir.
    const climb = "../../../../../victim";
    const registry = writeRegistry(t.dir, [
      bin("climb-bin", climb, { archive: good, cmd: "./bin/agent" }),
      {
        id: "climb-npm",
        name: "climb-npm",
        version: climb,
        description: "",
        distribution: { npx: { package: tgz } },
      },
      {
        id: "climb-spec",
        name: "climb-spec",
        version: "1.0.0",
        description: "",
        distribution: { npx: { package: `fake-acp-agent@${climb}` } },
      },
      bin("prev", "2.0.0", { archive: good, cmd: "./bin/agent" }),
    ]);
    await t.lua("require('acpchat').setup({ registry_url = ... })", [registry]);
    // The list says which entries it leaves out, and why.
    await recordNotes(t);
    await t.lua("vim.ui.select = function(items, opts, cb) cb(nil) end");
    await t.nvim.command("AcpChatInstall");
    const refused = await t.waitFor(
      async () => (await notes(t)).find((n) => n.msg.includes("entries not offered")),
      "the refused entries",
    );
    expect(refused.msg).toMatch(/climb-bin: version "\.\.\/.*" is not a version/);

    for (const id of ["climb-bin", "climb-npm"]) {
      const msg = await install(t, id);
      expect(msg).toMatch(new RegExp(`acpchat: .*${id}.*version "\\.\\./\\.\\./.*" is not a version`));
      expect(readFileSync(join(v, "precious.txt"), "utf8")).toBe("keep me\n");
      expect(readdirSync(v)).toEqual(["precious.txt"]);
      expect(existsSync(join(agentsDir(t), id))).toBe(false);
    }
    expect(await install(t, "climb-spec")).toMatch(/climb-spec.*package "fake-acp-agent@\.\.\/.*" is not a package/);
    expect(readdirSync(v)).toEqual(["precious.txt"]);

    // current.json's previous version climbs: the update installs, and leaves the victim be.
    mkdirSync(join(agentsDir(t), "prev"), { recursive: true });
    writeFileSync(
      join(agentsDir(t), "prev", "current.json"),
      JSON.stringify({
        id: "prev",
        name: "prev",
        version: climb,
        kind: "binary",
        command: "/bin/true",
        args: [],
        env: {},
      }),
    );
    expect(await install(t, "prev")).toMatch(/acpchat: installed prev 2\.0\.0/);
    expect(readdirSync(v)).toEqual(["precious.txt"]);
    expect(JSON.parse(readFileSync(join(agentsDir(t), "prev", "current.json"), "utf8")).version).toBe("2.0.0");
  });

  it("an archive's cmd that is, or goes through, a symbolic link is refused and its target keeps its mode", async () => {
    const t = await nvim(nvimBin);
    const secret = join(t.dir, "id_ed25519");
    writeFileSync(secret, "PRIVATE KEY\n");
    chmodSync(secret, 0o600);
    const outside = join(t.dir, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "agent"), "#!/bin/sh\n");
    chmodSync(join(outside, "agent"), 0o600);
    const linkCmd = archive(t.dir, "link-cmd", (root) => symlinkSync(secret, join(root, "bin", "agent")));
    const linkDir = archive(t.dir, "link-dir", (root) => symlinkSync(outside, join(root, "lib")));
    const registry = writeRegistry(t.dir, [
      bin("link-cmd", "1.0.0", { archive: linkCmd, cmd: "./bin/agent" }),
      bin("link-dir", "1.0.0", { archive: linkDir, cmd: "lib/agent" }),
    ]);
    await t.lua("require('acpchat').setup({ registry_url = ... })", [registry]);
    expect(await install(t, "link-cmd")).toMatch(/installing link-cmd failed: .*bin\/agent.* symbolic link/);
    expect(await install(t, "link-dir")).toMatch(/installing link-dir failed: .*lib.* symbolic link/);
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    expect(statSync(join(outside, "agent")).mode & 0o777).toBe(0o600);
    expect(existsSync(join(agentsDir(t), "link-cmd"))).toBe(false);
    expect(existsSync(join(agentsDir(t), "link-dir"))).toBe(false);
  });

  it("sha256: a mismatch installs nothing and keeps the previous install; a match is recorded and shown", async () => {
    const t = await nvim(nvimBin);
    const one = archive(t.dir, "one");
    const two = archive(t.dir, "two", (root) => {
      writeFileSync(join(root, "bin", "agent"), `#!/bin/sh\n# two\nexec "${process.execPath}" "${FAKE_AGENT}" "$@"\n`);
      chmodSync(join(root, "bin", "agent"), 0o755);
    });
    const wrong = "0".repeat(64);
    const file = (entries: unknown[]) => writeRegistry(t.dir, entries);
    const registry = file([bin("summed", "1.0.0", { archive: one, cmd: "./bin/agent", sha256: sha256(one) })]);
    await t.lua("require('acpchat').setup({ registry_url = ... })", [registry]);
    const ok = await install(t, "summed");
    expect(ok).toContain(`acpchat: installed summed 1.0.0`);
    expect(ok).toContain(`sha256 ${sha256(one)}`);
    const current = join(agentsDir(t), "summed", "current.json");
    expect(JSON.parse(readFileSync(current, "utf8")).sha256).toBe(sha256(one));
    const before = readFileSync(current, "utf8");

    file([bin("summed", "2.0.0", { archive: two, cmd: "./bin/agent", sha256: wrong })]);
    const bad = await install(t, "summed");
    expect(bad).toMatch(
      new RegExp(`installing summed failed: .*sha256 is ${sha256(two)}, the registry says ${wrong}.*nothing installed`),
    );
    expect(readFileSync(current, "utf8")).toBe(before);
    expect(readdirSync(join(agentsDir(t), "summed")).sort()).toEqual(["1.0.0", "current.json"]);

    // Without a sha256 the hash of what was installed is still recorded.
    file([bin("summed", "2.0.0", { archive: two, cmd: "./bin/agent" })]);
    expect(await install(t, "summed")).toContain(`sha256 ${sha256(two)}`);
    expect(JSON.parse(readFileSync(current, "utf8")).sha256).toBe(sha256(two));
    // A malformed sha256 is the registry's error, said as such.
    file([bin("summed", "3.0.0", { archive: two, cmd: "./bin/agent", sha256: "abc" })]);
    expect(await install(t, "summed")).toMatch(/summed.*sha256/);
    // :checkhealth shows the hash.
    await t.nvim.command("checkhealth acpchat");
    const health = (await t.nvim.buffer.lines).join("\n");
    expect(health).toContain(`summed 2.0.0 (binary)`);
    expect(health).toContain(`sha256 ${sha256(two)}`);
  });
});
