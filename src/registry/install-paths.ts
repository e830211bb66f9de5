/**
 * Every path :AcpChatInstall makes, removes or renames, built here from validated parts only:
 * registry data (a version, an id) is checked against a strict pattern before it becomes a
 * path, each path is asserted to resolve inside `<agents>/<id>/`, and the remove and rename
 * helpers check again, on the real file system (no symbolic link on the way), so a hostile
 * registry or a tampered current.json cannot reach a folder of the user's.
 */
import { lstatSync, realpathSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";

/** An agent's id: what the registry schema and :AcpChatInstall accept. */
export const ID = /^[a-z][a-z0-9-]{0,63}$/;

/**
 * A version: letters and digits in runs joined by single `.`, `+`, `_` or `-` (semver, `v1.2`,
 * `2024-05-01`, `1.0.0-rc.1+build.5`), at most 64 characters. Never `..`, a slash or a leading dot.
 */
const VERSION = /^[0-9A-Za-z]+(?:[.+_-][0-9A-Za-z]+)*$/;

export function isVersion(v: string): boolean {
  return v.length <= 64 && VERSION.test(v);
}

/** Why `v` is not a version (for the registry's error), or undefined when it is one. */
export function notAVersion(v: string, what = "version"): string | undefined {
  return isVersion(v)
    ? undefined
    : `${what} ${JSON.stringify(v.slice(0, 80))} is not a version (letters and digits joined by . + _ -, at most 64 characters)`;
}

/**
 * An npm package spec the registry may give: `name` or `@scope/name`, optionally `@<version>`
 * (a version as above, or a tag); or an absolute path to a packed `.tgz` (offline registries).
 * Nothing that npm would read as an option (`-…`), a URL, a git remote or a relative path.
 */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
export function notAnNpmSpec(spec: string): string | undefined {
  if (spec.startsWith("/") && spec.endsWith(".tgz") && !spec.split("/").includes("..")) return undefined;
  const at = spec.lastIndexOf("@");
  const name = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  if (name.length <= 214 && NPM_NAME.test(name) && (version === undefined || isVersion(version))) return undefined;
  return `package ${JSON.stringify(spec.slice(0, 120))} is not a package name with an optional @version`;
}

/** A uv requirement: a name with an optional version pin; never an option or a path. */
export function notAUvSpec(spec: string): string | undefined {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9,._-]+\])?(?:(?:[=<>~!]=?|@)[0-9A-Za-z.+*_-]+)?$/.test(spec)
    ? undefined
    : `package ${JSON.stringify(spec.slice(0, 120))} is not a package name with an optional version`;
}

/** The paths of one agent's install: `<agents>/<id>/` and what is inside it. */
export class AgentPaths {
  readonly root: string;

  constructor(
    readonly agents: string,
    readonly id: string,
  ) {
    if (!ID.test(id)) throw new Error(`${JSON.stringify(id.slice(0, 80))} is not an agent id`);
    this.root = join(resolve(agents), id);
  }

  /** `<root>/<version>`: the folder of one installed version. */
  version(v: string): string {
    const why = notAVersion(v);
    if (why) throw new Error(why);
    return this.inside(join(this.root, v));
  }

  /** `<root>/<name>`: a file or folder of the installer's own (current.json, a staging folder). */
  file(name: string): string {
    if (!/^\.?[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name) || name.includes("..")) throw new Error(`bad name ${name}`);
    return this.inside(join(this.root, name));
  }

  /** `p`, when it lies (lexically) inside the root; throws otherwise. */
  inside(p: string): string {
    const abs = resolve(p);
    if (!abs.startsWith(this.root + sep)) throw new Error(`refusing ${p}: it is outside ${this.root}`);
    return abs;
  }

  /**
   * Whether `p` is the root or inside it on the real file system: lexically, and the real
   * path of its parent (symbolic links resolved) is the root's, which is no link itself.
   */
  private real(p: string): boolean {
    const abs = resolve(p);
    if (abs !== this.root && !abs.startsWith(this.root + sep)) return false;
    try {
      if (lstatSync(this.root).isSymbolicLink()) return false;
      const agents = realpathSync(dirname(this.root));
      const root = join(agents, this.id);
      if (abs === this.root) return realpathSync(dirname(abs)) === agents;
      const parent = realpathSync(dirname(abs));
      return parent === root || parent.startsWith(root + sep);
    } catch (e) {
      // Nothing there: nothing to remove or move.
      return (e as NodeJS.ErrnoException).code === "ENOENT";
    }
  }

  /** Remove `p` (recursively) if it is the root or inside it; anything else is refused. */
  remove(p: string): void {
    if (!this.real(p)) throw new Error(`refusing to remove ${p}: it is outside ${this.root}`);
    rmSync(p, { recursive: true, force: true });
  }

  /** Rename `from` to `to`, both inside the root (never the root itself). */
  rename(from: string, to: string): void {
    for (const p of [from, to])
      if (resolve(p) === this.root || !this.real(p))
        throw new Error(`refusing to move ${from} to ${to}: outside ${this.root}`);
    renameSync(from, to);
  }
}
