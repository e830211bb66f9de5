/**
 * The install's paths (src/registry/install-paths.ts): registry data that would become a path
 * is checked, and the remove/rename helpers refuse anything not inside `<agents>/<id>/` on the
 * real file system (a symbolic link on the way included), whoever built the path.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentPaths, isVersion, notAnNpmSpec, notAUvSpec } from "../../src/registry/install-paths.js";
import { installAgent } from "../../src/registry/install.js";
import { platformKey, RegistryAgent } from "../../src/registry/registry.js";

function world() {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-paths-"));
  const agents = join(dir, "agents");
  mkdirSync(join(agents, "x", "1.0.0"), { recursive: true });
  const victim = join(dir, "victim");
  mkdirSync(victim);
  writeFileSync(join(victim, "precious"), "keep");
  return { dir, agents, victim };
}

describe("registry fields that become paths", () => {
  it("a version is a version, not a path", () => {
    for (const v of ["1.2.3", "v1.2", "2024-05-01", "1.0.0-rc.1+build.5", "0.1.0_beta", "latest"])
      expect(isVersion(v), v).toBe(true);
    for (const v of [
      "..",
      "../x",
      "1.0/..",
      ".hidden",
      "1..2",
      "a/b",
      "",
      " 1",
      "1.0.",
      "x".repeat(65),
      "1\n2",
      "1\\2",
    ])
      expect(isVersion(v), v).toBe(false);
  });

  it("npm and uv specs are names with an optional version, or an absolute .tgz", () => {
    for (const s of [
      "pkg",
      "@scope/pkg",
      "@zed-industries/claude-code-acp@0.5.1",
      "pkg@latest",
      "/tmp/a/pkg-1.0.0.tgz",
    ])
      expect(notAnNpmSpec(s), s).toBeUndefined();
    for (const s of ["pkg@../../victim", "--prefix=/", "../pkg", "git+https://x/y", "pkg@1.0/..", "/tmp/../x.tgz"])
      expect(notAnNpmSpec(s), s).toBeDefined();
    for (const s of ["fast-agent", "fast-agent==0.3.0", "pkg@1.0", "pkg[extra]>=1.2"])
      expect(notAUvSpec(s), s).toBeUndefined();
    for (const s of ["--with=/x", "./pkg", "/abs", "pkg==../x"]) expect(notAUvSpec(s), s).toBeDefined();
  });

  it("the registry schema refuses the entry and says which field", () => {
    const entry = (version: string, binary: Record<string, unknown>) => ({
      id: "a",
      name: "A",
      version,
      distribution: { binary: { "linux-x86_64": { archive: "https://x/a.tgz", cmd: "a", ...binary } } },
    });
    expect(RegistryAgent.safeParse(entry("1.0.0", {})).success).toBe(true);
    const bad = RegistryAgent.safeParse(entry("../../victim", {}));
    expect(bad.error?.issues[0]?.message).toMatch(/version "\.\.\/\.\.\/victim" is not a version/);
    expect(RegistryAgent.safeParse(entry("1.0.0", { cmd: "../x" })).error?.issues[0]?.message).toMatch(/cmd/);
    expect(RegistryAgent.safeParse(entry("1.0.0", { cmd: "/bin/sh" })).error?.issues[0]?.message).toMatch(/cmd/);
    expect(RegistryAgent.safeParse(entry("1.0.0", { sha256: "xyz" })).error?.issues[0]?.message).toMatch(/sha256/);
    expect(RegistryAgent.safeParse(entry("1.0.0", { sha256: "a".repeat(64) })).success).toBe(true);
  });
});

describe("AgentPaths", () => {
  it("builds only paths inside <agents>/<id>/", () => {
    const { agents } = world();
    const at = new AgentPaths(agents, "x");
    expect(at.version("1.0.0")).toBe(join(agents, "x", "1.0.0"));
    expect(() => at.version("../../victim")).toThrow(/not a version/);
    expect(() => at.inside(join(agents, "x", "..", "y"))).toThrow(/outside/);
    expect(() => at.file("../y")).toThrow();
    expect(() => new AgentPaths(agents, "../x")).toThrow(/not an agent id/);
  });

  it("remove and rename refuse what is outside, lexically or through a symbolic link", () => {
    const { agents, victim } = world();
    const at = new AgentPaths(agents, "x");
    expect(() => at.remove(join(agents, "x", "..", "..", "victim"))).toThrow(/refusing to remove/);
    expect(() => at.remove(victim)).toThrow(/refusing to remove/);
    // A link inside the folder to the victim: the folder behind it is not removed through it.
    symlinkSync(victim, join(agents, "x", "link"));
    expect(() => at.remove(join(agents, "x", "link", "precious"))).toThrow(/refusing to remove/);
    expect(() => at.rename(join(agents, "x", "1.0.0"), join(agents, "x", "link", "moved"))).toThrow(/refusing to move/);
    // The link itself is inside: removing it removes the link, not what it points to.
    at.remove(join(agents, "x", "link"));
    expect(readFileSync(join(victim, "precious"), "utf8")).toBe("keep");
    // <agents>/<id> itself a link to the victim: nothing in it is removed.
    symlinkSync(victim, join(agents, "y"));
    const y = new AgentPaths(agents, "y");
    expect(() => y.remove(join(agents, "y", "precious"))).toThrow(/refusing to remove/);
    expect(() => y.remove(y.root)).toThrow(/refusing to remove/);
    expect(existsSync(join(victim, "precious"))).toBe(true);
    at.remove(join(agents, "x", "1.0.0"));
    expect(existsSync(join(agents, "x", "1.0.0"))).toBe(false);
  });
});

describe("a binary archive the registry names", () => {
  const agent = (archive: string) =>
    RegistryAgent.parse({
      id: "x",
      name: "X",
      version: "1.0.0",
      distribution: { binary: { [platformKey()]: { archive, cmd: "./x" } } },
    });

  it("a fifo or a folder given as a local archive is refused at once, not read (a fifo hung the host)", async () => {
    const { dir, agents } = world();
    const fifo = join(dir, "archive.tar");
    execFileSync("mkfifo", [fifo]);
    const t0 = Date.now();
    await expect(installAgent(agent(fifo), agents, () => undefined)).rejects.toThrow(/not a regular file/);
    await expect(installAgent(agent(`file://${dir}`), agents, () => undefined)).rejects.toThrow(/not a regular file/);
    // A fifo that is read hangs for good (the test's own time limit); this bound only says "at
    // once" with room for a loaded machine's spawns.
    expect(Date.now() - t0).toBeLessThan(15_000);
    // Nothing was installed: no staging folder left, and no agent folder (none was there before).
    expect(existsSync(join(agents, "x", ".staging"))).toBe(false);
    expect(readdirSync(agents).filter((n) => n === "x" && existsSync(join(agents, n, "current.json")))).toEqual([]);
  });
});
