/**
 * Installing agents from the registry into the plugin's own folder (stdpath("data")/acpchat/
 * agents/<id>/<version>), never globally: npm packages with `npm install --prefix` (pinned to
 * the registry's version), binary archives for this platform downloaded and unpacked there,
 * uvx agents run through uv. Each install is staged in a folder of its own and moved into
 * place only when it worked, so a failure leaves nothing half-installed. `<id>/current.json`
 * says which version is in use and how to start it (Lua reads it to offer the agent).
 */
import { execa } from "execa";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { isAbsolute, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { installMethod, platformKey, type RegistryAgent } from "./registry.js";

export interface Installed {
  id: string;
  name: string;
  version: string;
  kind: "npx" | "uvx" | "binary";
  command: string;
  args: string[];
  env: Record<string, string>;
  installedAt: string;
}

/** Every agent installed in `dir`. */
export function installedAgents(dir: string): Installed[] {
  if (!existsSync(dir)) return [];
  const out: Installed[] = [];
  for (const id of readdirSync(dir)) {
    try {
      out.push(JSON.parse(readFileSync(join(dir, id, "current.json"), "utf8")) as Installed);
    } catch {
      // not an installed agent (a staging folder, say)
    }
  }
  return out;
}

export async function commandExists(cmd: string): Promise<boolean> {
  const r = await execa(cmd, ["--version"], { reject: false, timeout: 10_000 }).catch(() => undefined);
  return r?.exitCode === 0;
}

/**
 * Install (or update to the registry's version) one agent. `progress` gets a line now and then
 * (the installer's output); the returned promise settles when it is done or failed.
 */
export async function installAgent(
  a: RegistryAgent,
  dir: string,
  progress: (line: string) => void,
  signal?: AbortSignal,
): Promise<Installed> {
  const how = installMethod(a, { npm: await commandExists("npm"), uv: await commandExists("uv") });
  if (how.kind === "none") throw new Error(`${a.name} cannot be installed here: ${how.why}`);
  const base = join(dir, a.id);
  mkdirSync(base, { recursive: true });
  const staging = join(base, `.staging-${process.pid}-${Date.now()}`);
  mkdirSync(staging);
  const final = join(base, a.version);
  try {
    let command: string;
    let args: string[];
    let env: Record<string, string>;
    if (how.kind === "npx") {
      const d = a.distribution.npx!;
      const spec = pinned(d.package, a.version);
      progress(`npm install ${spec}`);
      await run(
        "npm",
        ["install", "--prefix", staging, "--no-audit", "--no-fund", "--omit=dev", "--loglevel=error", spec],
        progress,
        signal,
      );
      const bin = npmBin(staging);
      command = join(final, "node_modules", ".bin", bin);
      args = d.args ?? [];
      env = d.env ?? {};
    } else if (how.kind === "uvx") {
      const d = a.distribution.uvx!;
      const spec = /[=<>~!@]/.test(d.package) ? d.package : `${d.package}==${a.version}`;
      progress(`uv tool install ${spec}`);
      // uv keeps the tool in its cache; `uvx` then starts it without the network.
      await run("uv", ["tool", "install", "--force", spec], progress, signal);
      command = "uvx";
      args = [spec, ...(d.args ?? [])];
      env = d.env ?? {};
    } else {
      const d = a.distribution.binary![platformKey()]!;
      progress(`downloading ${d.archive}`);
      const file = join(staging, ".archive" + archiveExt(d.archive));
      await download(d.archive, file, signal);
      progress("unpacking");
      if (file.endsWith(".zip")) await run("unzip", ["-q", "-o", file, "-d", staging], progress, signal);
      else await run("tar", ["-xf", file, "-C", staging, "--no-same-owner"], progress, signal);
      rmSync(file, { force: true });
      const exe = resolve(staging, d.cmd);
      if (!exe.startsWith(staging + sep))
        throw new Error(`the registry's cmd ${d.cmd} leads outside the agent's folder`);
      if (!existsSync(exe) || !statSync(exe).isFile()) throw new Error(`the archive has no ${d.cmd}`);
      chmodSync(exe, statSync(exe).mode | 0o755);
      command = join(final, exe.slice(staging.length + 1));
      args = d.args ?? [];
      env = d.env ?? {};
    }
    rmSync(final, { recursive: true, force: true });
    renameSync(staging, final);
    const previous = installedAgents(dir).find((x) => x.id === a.id);
    const installed: Installed = {
      id: a.id,
      name: a.name,
      version: a.version,
      kind: how.kind,
      command,
      args,
      env,
      installedAt: new Date().toISOString(),
    };
    await writeFile(join(base, "current.json.tmp"), JSON.stringify(installed, null, 2));
    renameSync(join(base, "current.json.tmp"), join(base, "current.json"));
    // An update leaves one version: the one in use.
    if (previous && previous.version !== a.version)
      rmSync(join(base, previous.version), { recursive: true, force: true });
    return installed;
  } catch (e) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(base, "current.json"))) rmSync(base, { recursive: true, force: true });
    throw e;
  }
}

/** Remove an installed agent (every version of it). */
export function removeAgent(dir: string, id: string): boolean {
  if (!/^[a-z][a-z0-9-]*$/.test(id)) return false;
  const base = join(dir, id);
  if (!existsSync(base)) return false;
  rmSync(base, { recursive: true, force: true });
  return true;
}

/** `pkg` at exactly `version`, unless the registry already names a version or a file. */
function pinned(pkg: string, version: string): string {
  if (isAbsolute(pkg) || pkg.startsWith("file:") || pkg.endsWith(".tgz")) return pkg;
  const at = pkg.lastIndexOf("@");
  return at > 0 ? pkg : `${pkg}@${version}`;
}

/** The executable an installed npm package provides (its own name's, else its first). */
function npmBin(prefix: string): string {
  const deps = Object.keys(
    (JSON.parse(readFileSync(join(prefix, "package.json"), "utf8")) as { dependencies?: Record<string, string> })
      .dependencies ?? {},
  );
  const name = deps[0];
  if (!name) throw new Error("npm installed nothing");
  const pkg = JSON.parse(readFileSync(join(prefix, "node_modules", name, "package.json"), "utf8")) as {
    bin?: string | Record<string, string>;
  };
  if (typeof pkg.bin === "string") return name.replace(/^@[^/]+\//, "");
  const bins = Object.keys(pkg.bin ?? {});
  const own = bins.find((b) => b === name.replace(/^@[^/]+\//, ""));
  if (!own && bins.length === 0) throw new Error(`${name} has no program to run (no "bin" in its package.json)`);
  return own ?? bins[0]!;
}

function archiveExt(url: string): string {
  const m = /\.(zip|tar\.gz|tgz|tar\.xz|tar\.bz2|tar)$/i.exec(url.split("?")[0]!);
  return m ? `.${m[1]!.toLowerCase()}` : ".tar";
}

async function download(url: string, to: string, signal?: AbortSignal): Promise<void> {
  if (url.startsWith("file://")) return copyFileSync(fileURLToPath(url), to);
  if (isAbsolute(url)) return copyFileSync(url, to);
  if (!url.startsWith("https://")) throw new Error(`will not download ${url}: only https`);
  const res = await fetch(url, { signal: signal ?? AbortSignal.timeout(600_000) });
  if (!res.ok) throw new Error(`downloading ${url}: HTTP ${res.status}`);
  writeFileSync(to, Buffer.from(await res.arrayBuffer()));
}

async function run(cmd: string, args: string[], progress: (line: string) => void, signal?: AbortSignal): Promise<void> {
  const child = execa(cmd, args, {
    reject: false,
    all: true,
    cancelSignal: signal,
    env: { npm_config_update_notifier: "false" },
  });
  let tail = "";
  child.all?.on("data", (d: Buffer) => {
    const lines = d
      .toString("utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    if (lines.length > 0) progress((tail = lines[lines.length - 1]!));
  });
  const r = await child;
  if (r.exitCode !== 0) {
    const out =
      String(r.all ?? "")
        .trim()
        .split("\n")
        .slice(-3)
        .join(" / ") || tail;
    throw new Error(`${cmd} ${args[0]} failed (${r.exitCode ?? r.signal ?? "not started"}): ${out || r.message}`);
  }
}
