/**
 * Snapshots of a folder as git trees in the private repository (git.ts), incremental: each
 * chat keeps its own index, so a snapshot lists what changed since the last one (`ls-files
 * -m -o -d`, which trusts the stat data of unchanged files), adds only that, and writes the
 * tree. An unchanged folder costs two short git runs.
 *
 * - Nested repositories (and submodules) would be stored as links to their commits; each is
 *   snapshotted as a work tree of its own (its own index) and grafted in at its place.
 * - Ignored files (the project's .gitignore files, and .git/info/exclude) are left out; a path
 *   ignored at any snapshot of the chat stays out for the chat's life, whatever the ignore files
 *   say later (an agent that rewrites .gitignore does not get the user's .env recorded as its
 *   creation, stored, or removed by a rewind).
 * - Files over `maxFileBytes` are not stored: their size and time are kept, so a snapshot can
 *   still say that they changed.
 * - A folder with more than `maxFiles` files is refused (TooLargeError): a home directory, say.
 */
import { lstatSync, writeFileSync, existsSync, statSync, type Stats } from "node:fs";
import { lstat } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { readSmallText } from "../workspace/small-file.js";
import type { PrivateGit } from "./git.js";
import { unchangedSince } from "./quiet.js";

export class TooLargeError extends Error {}

/** A file too large to store: what is known of it. */
export interface LargeFile {
  size: number;
  mtimeMs: number;
}

export interface Snapshot {
  /** The tree of every stored file. */
  tree: string;
  /** Files over the size limit, by path relative to the root. */
  large: Record<string, LargeFile>;
  /** When it was taken. */
  at: number;
  /** Date.now() before its listing began: nothing changed after this is in it (quiet.ts). */
  began: number;
}

export interface SnapshotLimits {
  maxFiles: number;
  maxFileBytes: number;
}

export const DEFAULT_LIMITS: SnapshotLimits = { maxFiles: 50_000, maxFileBytes: 5 * 1024 * 1024 };

/** One folder being snapshotted: the root, or a nested repository inside it. */
interface WorkTree {
  /** Relative to the root ("" for the root), without a trailing slash. */
  prefix: string;
  dir: string;
  index: string;
  excludes: string;
  /** Nested repositories found in it, relative to `dir`. */
  nested: Set<string>;
  /** Large files left out of it, relative to `dir`. */
  large: Map<string, LargeFile>;
  /** Paths written to its excludes file (nested repositories and large files). */
  excluded: Set<string>;
  /** Untracked paths ignored at some snapshot of this chat (a folder ends in "/"): never listed. */
  ignored: Set<string>;
  /** Its own patterns copied from the repository's .git/info/exclude. */
  base: string;
  tree?: string;
}

export class Snapshotter {
  private readonly trees = new Map<string, WorkTree>();
  private first = true;
  /** Files listed so far by the first snapshot, nested repositories' included (against maxFiles). */
  private listedFirst = 0;
  /** The folder has too many entries for quietSince to be cheaper than git. */
  private tooLargeToWalk = false;

  /**
   * `root`: the session's folder; `dataDir`: this chat's folder in the private repository
   * (index and excludes files live there).
   */
  constructor(
    private readonly git: PrivateGit,
    private readonly root: string,
    private readonly dataDir: string,
    private readonly limits: SnapshotLimits = DEFAULT_LIMITS,
    /** Folders never snapshotted, relative to the root: the plugin's own state, when it is inside. */
    private readonly own: readonly string[] = [],
  ) {}

  /** Take a snapshot of the folder as it is now. */
  async take(): Promise<Snapshot> {
    const began = Date.now();
    const wt = this.workTree("");
    const tree = await this.snapshotTree(wt, 0);
    this.first = false;
    const large: Record<string, LargeFile> = {};
    for (const t of this.trees.values()) for (const [p, f] of t.large) large[join(t.prefix, p)] = f;
    return { tree, large, at: Date.now(), began };
  }

  /**
   * Whether nothing a snapshot stores changed after `since` (then a snapshot now is the last
   * one again): an in-process walk, no git run. False when unsure (see quiet.ts).
   */
  async quietSince(since: number): Promise<boolean> {
    if (this.first || this.tooLargeToWalk) return false;
    const r = await unchangedSince({ root: this.root, skip: (rel) => this.skipped(rel) }, since);
    if (r === "large") this.tooLargeToWalk = true;
    return r === "unchanged";
  }

  /** A path (a folder ends in "/") no snapshot of this chat stores: ignored, or the plugin's own. */
  private skipped(rel: string): boolean {
    for (const o of this.own) if (rel === `${o}/`) return true;
    for (const t of this.trees.values()) {
      if (t.ignored.size === 0) continue;
      if (t.prefix === "") {
        if (t.ignored.has(rel)) return true;
      } else if (rel.startsWith(`${t.prefix}/`) && t.ignored.has(rel.slice(t.prefix.length + 1))) return true;
    }
    return false;
  }

  private workTree(prefix: string): WorkTree {
    let wt = this.trees.get(prefix);
    if (!wt) {
      const key = prefix === "" ? "root" : Buffer.from(prefix).toString("hex").slice(0, 80);
      const dir = prefix === "" ? this.root : join(this.root, prefix);
      // In rising precedence (the last matching line wins): the user's global excludes
      // (~/.config/git/ignore, for the session's folder), the repository's .git/info/exclude,
      // then the .gitignore files of the folders above (ancestorIgnores). All read, never
      // written; the folder's own .gitignore files are read by git itself, above all these.
      let base = "";
      for (const file of [...(prefix === "" ? [globalExcludes()] : []), infoExclude(dir)]) {
        if (file) base += readSmall(file) + "\n";
      }
      if (prefix === "") base += ancestorIgnores(dir);
      // Last, so no "!" line of these brings it back: the private repository itself (a home folder as
      // the session's folder holds the state folder): its objects would be "changed" by every
      // snapshot, and a rewind would remove them.
      for (const o of this.own) {
        const rel = prefix === "" ? o : o.startsWith(`${prefix}/`) ? o.slice(prefix.length + 1) : undefined;
        if (rel) base += `/${escapePattern(rel)}/\n`;
      }
      wt = {
        prefix,
        dir,
        index: join(this.dataDir, `index-${key}`),
        excludes: join(this.dataDir, `exclude-${key}`),
        nested: new Set(),
        large: new Map(),
        excluded: new Set(),
        ignored: new Set(),
        base,
      };
      writeFileSync(wt.excludes, base);
      this.trees.set(prefix, wt);
    }
    return wt;
  }

  private writeExcludes(wt: WorkTree): void {
    const paths = [...wt.ignored, ...wt.excluded];
    writeFileSync(wt.excludes, wt.base + paths.map((p) => `/${escapePattern(p)}`).join("\n") + "\n");
  }

  private async snapshotTree(wt: WorkTree, depth: number): Promise<string> {
    const opts = { workTree: wt.dir, index: wt.index, excludes: wt.excludes };
    const [changed, ignoredNow] = await Promise.all([this.listChanged(wt, opts), this.listIgnored(opts)]);
    let excludesChanged = false;
    for (const p of ignoredNow) {
      if (wt.ignored.has(p)) continue;
      wt.ignored.add(p);
      excludesChanged = true;
    }
    // The ignore files' negations outrank the excludes file, so the listing is filtered here.
    const listed = changed.filter((p) => !ignoredPath(p, wt.ignored));
    const add: string[] = [];
    const untrack: string[] = [];
    const gone: string[] = [];
    // Sizes, asked of the file system in batches without blocking the host's loop (a first
    // snapshot lists every file: 10,000 lstat calls in one go held it for 200 ms).
    const stats = await lstatAll(
      wt.dir,
      listed.filter((p) => !p.endsWith("/")),
    );
    for (const p of listed) {
      if (p.endsWith("/")) {
        // A nested repository: snapshotted on its own, left out of this tree.
        const rel = p.slice(0, -1);
        if (depth < 8 && !wt.nested.has(rel)) {
          wt.nested.add(rel);
          wt.excluded.add(rel + "/");
          excludesChanged = true;
        }
        continue;
      }
      const st = stats.get(p);
      if (!st) {
        add.push(p); // deleted: recorded as gone
        continue;
      }
      if (!st.isFile() && !st.isSymbolicLink()) {
        // A file that became a folder: its entry goes (the folder's files are listed apart).
        // Or a fifo or socket where a file was: git cannot store it (and would fail the whole
        // snapshot, turning checkpoints off), so it reads as gone.
        gone.push(p);
        continue;
      }
      if (st.isFile() && st.size > this.limits.maxFileBytes) {
        wt.large.set(p, { size: st.size, mtimeMs: st.mtimeMs });
        if (!wt.excluded.has(p)) {
          wt.excluded.add(p);
          excludesChanged = true;
          untrack.push(p);
        }
        continue;
      }
      add.push(p);
    }
    // Large files are not listed again (they are excluded): their size and time are looked at.
    for (const [p] of wt.large) {
      try {
        const st = lstatSync(join(wt.dir, p));
        if (st.isFile() && st.size > this.limits.maxFileBytes) {
          wt.large.set(p, { size: st.size, mtimeMs: st.mtimeMs });
          continue;
        }
        // Back under the limit (or no longer a file): stored again.
        add.push(p);
      } catch {
        // gone
      }
      wt.large.delete(p);
      wt.excluded.delete(p);
      excludesChanged = true;
    }
    if (excludesChanged) this.writeExcludes(wt);
    if (untrack.length > 0)
      await this.git.run(
        ["rm", "--cached", "--quiet", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"],
        { ...opts, input: untrack.join("\0") },
      );
    // update-index, not add: a path listed a moment ago may be gone now (an agent's temporary
    // file, renamed away while this snapshot runs), and `git add` fails whole on a pathspec that
    // matches nothing (turning checkpoints off); with --remove a missing path is just not there.
    // --replace lets a file and a folder swap places. Exact paths: no pathspec magic either.
    if (gone.length > 0)
      await this.git.run(["update-index", "--force-remove", "-z", "--stdin"], {
        ...opts,
        input: gone.join("\0") + "\0",
      });
    if (add.length > 0)
      await this.git.run(["update-index", "--add", "--remove", "--replace", "-z", "--stdin"], {
        ...opts,
        input: add.join("\0") + "\0",
      });
    let tree = wt.tree;
    if (!tree || add.length > 0 || untrack.length > 0 || gone.length > 0)
      tree = (await this.git.run(["write-tree"], opts)).toString("utf8").trim();
    wt.tree = tree;
    if (wt.nested.size === 0) return tree;
    // Nested repositories grafted in: a scratch index holds this tree plus each of theirs.
    const graft = `${wt.index}.graft`;
    await this.git.run(["read-tree", tree], { ...opts, index: graft });
    for (const rel of wt.nested) {
      if (!existsSync(join(wt.dir, rel))) continue;
      const sub = this.workTree(join(wt.prefix, rel));
      const subTree = await this.snapshotTree(sub, depth + 1);
      await this.git.run(["read-tree", `--prefix=${rel}/`, subTree], { ...opts, index: graft });
    }
    return (await this.git.run(["write-tree"], { ...opts, index: graft })).toString("utf8").trim();
  }

  /**
   * Untracked paths the ignore rules ignore now, a wholly ignored folder as one entry ("dist/"):
   * together with the listing of changes, so both see the same rules.
   */
  private async listIgnored(opts: { workTree: string; index: string; excludes: string }): Promise<string[]> {
    const args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"];
    return (await this.git.list(args, opts)).filter((p) => p !== "");
  }

  /**
   * What changed since this index's last snapshot: modified, deleted and new files (not
   * ignored); a nested repository is one entry ending in "/". The first listing is every file:
   * past `maxFiles` the folder is refused, and the listing stopped as soon as that is known.
   */
  private async listChanged(
    wt: WorkTree,
    opts: { workTree: string; index: string; excludes: string },
  ): Promise<string[]> {
    const args = ["ls-files", "-z", "--modified", "--others", "--deleted", "--exclude-standard"];
    // The first snapshot of a nested repository counts against the same limit as the root: a
    // folder of many checkouts (~/src, a plugin manager's folder) is as large as a home folder.
    // A later listing is bounded on its own: an agent that fills the folder (npm install before
    // there is a .gitignore) would otherwise have every new file hashed and stored.
    return this.listBounded(args, opts, this.first || wt.tree === undefined);
  }

  private async listBounded(
    args: string[],
    opts: { workTree: string; index: string; excludes: string },
    first: boolean,
  ): Promise<string[]> {
    const child = this.git.stream(args, opts);
    const parts: Buffer[] = [];
    let over = false;
    let count = 0;
    child.stdout!.on("data", (d: Buffer) => {
      parts.push(d);
      for (let i = 0; i < d.length; i++) if (d[i] === 0) count++;
      if ((first ? this.listedFirst + count : count) > this.limits.maxFiles && !over) {
        over = true;
        child.kill("SIGKILL");
      }
    });
    const done = await child;
    if (first) this.listedFirst += count;
    if (done.timedOut) throw new Error(`git ls-files timed out after ${this.git.timeoutMs / 1000} s`);
    if (!over && done.exitCode !== 0)
      throw new Error(`git ls-files failed (${done.exitCode ?? done.signal ?? "not started"})`);
    if (over) throw new TooLargeError(`more than ${this.limits.maxFiles.toLocaleString("en-US")} files`);
    return [
      ...new Set(
        Buffer.concat(parts)
          .toString("utf8")
          .split("\0")
          .filter((s) => s !== ""),
      ),
    ];
  }
}

/**
 * A session folder inside a repository (a package of a monorepo, say): the .gitignore files of
 * the folders above it, up to the repository's root, as patterns of its own. Patterns without
 * a slash apply at any depth and are kept; anchored ones are kept when they lead into the
 * folder (with that part taken off), and dropped otherwise.
 */
export function ancestorIgnores(dir: string): string {
  // One block per file, nearest first; returned farthest first, as the last matching line of
  // an ignore file wins and git lets a nearer folder's patterns override those above it (a
  // "!keep.log" in pkg/ over the root's "*.log"). The repository's .git/info/exclude ranks
  // below every .gitignore, so it comes first of all.
  const blocks: string[][] = [];
  let rel = "";
  let cur = dir;
  for (let i = 0; i < 40; i++) {
    if (existsSync(join(cur, ".git"))) {
      if (rel !== "") blocks.push(translate(readSmall(infoExclude(cur)), rel));
      break;
    }
    const parent = dirname(cur);
    if (parent === cur) return ""; // not in a repository: nothing above counts
    rel = `${basename(cur)}/${rel}`;
    cur = parent;
    blocks.push(translate(readSmall(join(cur, ".gitignore")), rel));
  }
  const out = blocks.reverse().flat();
  return out.length > 0 ? out.join("\n") + "\n" : "";
}

/**
 * The info/exclude file of the repository whose work tree is `dir`: in its .git folder, or,
 * where .git is a file (a linked worktree, a submodule), in the git dir it names or the common
 * dir that one names in turn ("" when there is none).
 */
function infoExclude(dir: string): string {
  const dotGit = join(dir, ".git");
  try {
    if (statSync(dotGit).isDirectory()) return join(dotGit, "info", "exclude");
    // A .git file (or a FIFO someone put there: never read as such).
    const m = /^gitdir: (.+)$/m.exec(readSmallText(dotGit, 64 * 1024));
    if (!m) return "";
    const gitDir = resolve(dir, m[1]!.trim());
    // A submodule's git dir is its own common dir (no commondir file).
    const named = readSmallText(join(gitDir, "commondir"), 64 * 1024).trim();
    const common = named ? resolve(gitDir, named) : gitDir;
    return join(common, "info", "exclude");
  } catch {
    return "";
  }
}

/** An ignore file's text ("" when there is none, or it is not a small regular file). */
function readSmall(file: string): string {
  return file ? readSmallText(file, 1_000_000) : "";
}

/** The patterns of an ignore file of a folder above, as patterns of the folder `rel` below it. */
function translate(text: string, rel: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/\r$/, "");
    if (line.trim() === "" || line.startsWith("#")) continue;
    const neg = line.startsWith("!") ? "!" : "";
    const pat = neg ? line.slice(1) : line;
    const body = pat.replace(/\/$/, "");
    if (!body.includes("/")) out.push(line);
    else {
      const inside = below(pat.replace(/^\//, ""), rel);
      if (inside !== undefined) out.push(`${neg}${inside}`);
    }
  }
  return out;
}

/**
 * An anchored pattern of a folder above, as a pattern of the folder `rel` ("a/b/") below it:
 * its leading segments are matched against rel's segments as globs, so a leading "**" segment,
 * a "*" segment ("packages/<star>/dist") and a "**" in the middle still apply below; undefined
 * when it cannot match there (or names this folder or one above it).
 */
function below(pattern: string, rel: string): string | undefined {
  const segs = pattern.split("/");
  const dirs = rel.split("/").filter(Boolean);
  for (let i = 0; i < dirs.length; i++) {
    if (i >= segs.length - 1) return undefined; // it names this folder or one above: not a pattern inside it
    if (segs[i] === "**") return `/${segs.slice(i).join("/")}`; // any depth from here on
    if (!segmentGlob(segs[i]!).test(dirs[i]!)) return undefined;
  }
  return `/${segs.slice(dirs.length).join("/")}`;
}

/** One path segment of an ignore pattern (*, ?, [...], backslash escapes) as a regex. */
function segmentGlob(seg: string): RegExp {
  let re = "";
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    if (c === "\\" && i + 1 < seg.length) re += seg[++i]!.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "[") {
      const end = seg.indexOf("]", i + 2);
      if (end < 0) re += "\\[";
      else {
        re += `[${seg
          .slice(i + 1, end)
          .replace(/^!/, "^")
          .replace(/\\/g, "\\\\")}]`;
        i = end;
      }
    } else re += c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

/** Git's default global excludes file ($XDG_CONFIG_HOME/git/ignore, else ~/.config/git/ignore). */
function globalExcludes(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  if (xdg) return join(xdg, "git", "ignore");
  return process.env.HOME ? join(process.env.HOME, ".config", "git", "ignore") : "";
}

/** `p` is an ignored path or inside an ignored folder ("dir/"). */
function ignoredPath(p: string, ignored: ReadonlySet<string>): boolean {
  if (ignored.size === 0) return false;
  if (ignored.has(p)) return true;
  for (let i = p.indexOf("/"); i >= 0; i = p.indexOf("/", i + 1)) if (ignored.has(p.slice(0, i + 1))) return true;
  return false;
}

/** A path as a gitignore pattern that matches just it. */
export function escapePattern(p: string): string {
  // A line break cannot be escaped in an ignore file (it would end the pattern, and the rest of
  // the name would become a pattern of its own: "big\nsrc" would hide every new file named
  // src): "?" stands for it, matching that name (and at most its look-alikes) only.
  return p
    .replace(/[\\*?[\]!#]/g, (c) => `\\${c}`)
    .replace(/[\n\r]/g, "?")
    .replace(/ $/, "\\ ");
}

/** lstat of each path (absent: gone), 256 at a time, the loop free between batches. */
async function lstatAll(dir: string, paths: readonly string[]): Promise<Map<string, Stats>> {
  const out = new Map<string, Stats>();
  for (let i = 0; i < paths.length; i += 256) {
    const batch = paths.slice(i, i + 256);
    const stats = await Promise.all(batch.map((p) => lstat(join(dir, p)).catch(() => undefined)));
    batch.forEach((p, k) => {
      const st = stats[k];
      if (st) out.set(p, st);
    });
  }
  return out;
}
