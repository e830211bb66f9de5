/**
 * Installing agents from the registry into the plugin's own folder (stdpath("data")/acpchat/
 * agents/<id>/<version>), never globally: npm packages with `npm install --prefix` (pinned to
 * the registry's version), binary archives for this platform downloaded and unpacked there,
 * uvx agents run through uv. Each install is staged in a folder of its own and moved into
 * place only when it worked, so a failure leaves nothing half-installed. `<id>/current.json`
 * says which version is in use and how to start it (Lua reads it to offer the agent).
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import {
  closeSync,
  constants,
  createReadStream,
  existsSync,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
} from "node:fs";
import { copyFile, stat, writeFile } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentPaths, ID, isVersion } from "./install-paths.js";
import { installMethod, platformKey, type RegistryAgent } from "./registry.js";

export interface Installed {
  id: string;
  name: string;
  version: string;
  kind: "npx" | "uvx" | "binary";
  command: string;
  args: string[];
  env: Record<string, string>;
  /** A binary agent's: the SHA-256 of the archive it was unpacked from. */
  sha256?: string;
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
  // Every path below comes from `at`: built from checked parts, inside <dir>/<id>/.
  const at = new AgentPaths(dir, a.id);
  const final = at.version(a.version);
  mkdirSync(at.root, { recursive: true });
  const staging = at.file(`.staging-${process.pid}-${Date.now()}`);
  mkdirSync(staging);
  try {
    let command: string;
    let args: string[];
    let env: Record<string, string>;
    let sha256: string | undefined;
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
      command = at.inside(join(final, "node_modules", ".bin", bin));
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
      sha256 = await fileSha256(file);
      if (d.sha256 && d.sha256.toLowerCase() !== sha256)
        throw new Error(
          `the archive's sha256 is ${sha256}, the registry says ${d.sha256.toLowerCase()}: nothing installed (${d.archive})`,
        );
      progress("unpacking");
      if (file.endsWith(".zip")) await run("unzip", ["-q", "-o", file, "-d", staging], progress, signal);
      else await run("tar", ["-xf", file, "-C", staging, "--no-same-owner"], progress, signal);
      rmSync(file, { force: true });
      const rel = makeExecutable(staging, d.cmd);
      command = at.inside(join(final, rel));
      args = d.args ?? [];
      env = d.env ?? {};
    }
    const previous = installedAgents(dir).find((x) => x.id === a.id);
    at.remove(final);
    at.rename(staging, final);
    const installed: Installed = {
      id: a.id,
      name: a.name,
      version: a.version,
      kind: how.kind,
      command,
      args,
      env,
      ...(sha256 ? { sha256 } : {}),
      installedAt: new Date().toISOString(),
    };
    const tmp = at.file("current.json.tmp");
    await writeFile(tmp, JSON.stringify(installed, null, 2));
    at.rename(tmp, at.file("current.json"));
    // An update leaves one version: the one in use. current.json is data on disk: a previous
    // "version" that is no version is left where it is.
    const old = previous?.version;
    if (typeof old === "string" && old !== a.version && isVersion(old)) at.remove(at.version(old));
    return installed;
  } catch (e) {
    at.remove(staging);
    if (!existsSync(at.file("current.json"))) at.remove(at.root);
    throw e;
  }
}

/**
 * Make the archive's `cmd` (relative to the unpacked `root`) executable; its path relative to
 * `root`. Every component is lstat'ed: a symbolic link anywhere on the way (the file, or a folder
 * above it) is refused, so only a regular file inside the folder is ever chmod'ed; the mode is
 * set on the opened file (O_NOFOLLOW), not through a name.
 */
function makeExecutable(root: string, cmd: string): string {
  const parts = cmd.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.length === 0 || parts.includes(".."))
    throw new Error(`the registry's cmd ${cmd} leads outside the agent's folder`);
  let p = root;
  for (const [i, part] of parts.entries()) {
    p = join(p, part);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch {
      throw new Error(`the archive has no ${cmd}`);
    }
    const shown = parts.slice(0, i + 1).join("/");
    if (st.isSymbolicLink())
      throw new Error(`the archive's ${shown} (on the way to cmd ${cmd}) is a symbolic link: refused`);
    if (i < parts.length - 1 ? !st.isDirectory() : !st.isFile()) throw new Error(`the archive has no ${cmd}`);
  }
  const fd = openSync(p, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new Error(`the archive has no ${cmd}`);
    fchmodSync(fd, (st.mode & 0o7777) | 0o755);
  } finally {
    closeSync(fd);
  }
  return parts.join("/");
}

async function fileSha256(file: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** Remove an installed agent (every version of it). */
export function removeAgent(dir: string, id: string): boolean {
  if (!ID.test(id)) return false;
  const at = new AgentPaths(dir, id);
  if (!existsSync(at.root)) return false;
  at.remove(at.root);
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

/** The most bytes an archive may have (a download past it stops, and nothing is installed). */
export const MAX_ARCHIVE_BYTES = 2 * 1024 ** 3;

async function download(url: string, to: string, signal?: AbortSignal): Promise<void> {
  const local = url.startsWith("file://") ? fileURLToPath(url) : isAbsolute(url) ? url : undefined;
  if (local !== undefined) {
    // Only a regular file is read: a fifo there would hold the host for ever, a folder fails late.
    const st = await stat(local);
    if (!st.isFile()) throw new Error(`the archive ${local} is not a regular file`);
    if (st.size > MAX_ARCHIVE_BYTES) throw new Error(`the archive ${local} is over ${MAX_ARCHIVE_BYTES} bytes`);
    return copyFile(local, to);
  }
  if (!url.startsWith("https://")) throw new Error(`will not download ${url}: only https`);
  const res = await fetch(url, { signal: signal ?? AbortSignal.timeout(600_000) });
  if (!res.ok) throw new Error(`downloading ${url}: HTTP ${res.status}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_ARCHIVE_BYTES) throw new Error(`downloading ${url}: over ${MAX_ARCHIVE_BYTES} bytes`);
    chunks.push(chunk);
  }
  await writeFile(to, Buffer.concat(chunks));
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
