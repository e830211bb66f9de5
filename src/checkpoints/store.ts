/**
 * One chat's checkpoints: snapshots of its folder (snapshot.ts) taken one after another, kept
 * alive by refs in the private repository, and what can be asked of them: which files changed
 * between two, and a file's bytes, mode or link target at one.
 *
 * Layout under the state folder: `checkpoints/<project>/git` is the repository of one project
 * folder (shared by its chats: objects are stored once), `checkpoints/<project>/chats/<chat>`
 * holds one chat's index and excludes files. Refs: `refs/acpchat/<started>-<chat>/<n>`.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { readSmallText } from "../workspace/small-file.js";
import { PrivateGit, gitVersion } from "./git.js";
import {
  DEFAULT_LIMITS,
  Snapshotter,
  TooLargeError,
  type LargeFile,
  type Snapshot,
  type SnapshotLimits,
} from "./snapshot.js";
import type { FileAt, FileChange } from "./types.js";

export type { FileAt, FileChange };

export interface Checkpoint extends Snapshot {
  /** Its number in this chat (0 is the first). */
  n: number;
  label: string;
}

export interface CheckpointOptions {
  /** stdpath("state")/acpchat/checkpoints */
  stateDir: string;
  cwd: string;
  /** A name for this chat, unique among the project's chats. */
  chat: string;
  limits?: Partial<SnapshotLimits>;
  git?: string;
  /** Pruning: sessions older than this many days, and the oldest past this total size. */
  maxAgeDays?: number;
  maxBytes?: number;
  /** One git call's time limit (default GIT_TIMEOUT_MS). */
  gitTimeoutMs?: number;
  /** Unreferenced objects younger than this survive a prune (default an hour). */
  pruneGraceSeconds?: number;
}

export type CheckpointState = { on: true } | { on: false; why: string };

export class CheckpointStore {
  private git!: PrivateGit;
  private snapshotter!: Snapshotter;
  private readonly list: Checkpoint[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  /** Settles when every checkpoint's ref is written (prune waits for it). */
  private kept: Promise<unknown> = Promise.resolve();
  private readonly refBase: string;
  private readonly projectDir: string;
  private readonly chatDir: string;
  /** Settles when the store is ready (or off). */
  readonly ready: Promise<CheckpointState>;
  state: CheckpointState | undefined;

  constructor(private readonly opts: CheckpointOptions) {
    const project = createHash("sha256").update(opts.cwd).digest("hex").slice(0, 16);
    this.projectDir = join(opts.stateDir, project);
    const started = Date.now();
    this.chatDir = join(this.projectDir, "chats", `${started}-${sanitize(opts.chat)}`);
    this.refBase = `refs/acpchat/${started}-${sanitize(opts.chat)}`;
    this.ready = this.open().then(
      (s) => (this.state = s),
      (e: unknown) => (this.state = { on: false, why: (e as Error).message }),
    );
  }

  private async open(): Promise<CheckpointState> {
    const v = await gitVersion(this.opts.git);
    if (!v.ok) return { on: false, why: v.why };
    // The repository holds copies of the user's files, private ones included: only its owner
    // may read it, whatever the umask (folders made before are closed too).
    mkdirSync(this.chatDir, { recursive: true, mode: 0o700 });
    for (const d of [this.opts.stateDir, this.projectDir]) chmodSync(d, 0o700);
    // Whose chat this is while it is open: a prune (another Neovim's, in the same folder) leaves
    // the refs and index files of a chat whose process still runs.
    writeFileSync(join(this.chatDir, OWNER), `${process.pid}\n`);
    writeFileSync(join(this.projectDir, "folder"), this.opts.cwd + "\n");
    this.git = new PrivateGit({
      program: this.opts.git,
      gitDir: join(this.projectDir, "git"),
      timeoutMs: this.opts.gitTimeoutMs,
    });
    await this.git.init();
    // A warm start: the newest index of another chat of this project already knows the stat
    // data of every file, so the first snapshot hashes only what changed since.
    const warm = newestIndex(join(this.projectDir, "chats"), this.chatDir);
    if (warm) copyFileSync(warm, join(this.chatDir, "index-root"));
    this.snapshotter = new Snapshotter(
      this.git,
      this.opts.cwd,
      this.chatDir,
      {
        maxFiles: this.opts.limits?.maxFiles ?? DEFAULT_LIMITS.maxFiles,
        maxFileBytes: this.opts.limits?.maxFileBytes ?? DEFAULT_LIMITS.maxFileBytes,
      },
      inside(this.opts.cwd, this.opts.stateDir),
    );
    return { on: true };
  }

  /** Files over this many bytes are recorded by size and time only. */
  get maxFileBytes(): number {
    return this.opts.limits?.maxFileBytes ?? DEFAULT_LIMITS.maxFileBytes;
  }

  /** The git program checkpoints run. */
  get gitProgram(): string {
    return this.opts.git ?? "git";
  }

  get checkpoints(): readonly Checkpoint[] {
    return this.list;
  }

  /**
   * A snapshot of the folder now, after every snapshot asked for before it. Undefined when
   * checkpoints are off (or turned off by this one: a folder too large, git failing).
   */
  take(label: string): Promise<Checkpoint | undefined> {
    const run = async (): Promise<Checkpoint | undefined> => {
      const s = await this.ready;
      if (!s.on) return undefined;
      try {
        // Nothing changed since the last snapshot began (the everyday case of a prompt after
        // the turn before it, or a tool call that wrote nothing): it is this one too, no git run.
        const last = this.list[this.list.length - 1];
        const began = Date.now();
        if (last && (await this.snapshotter.quietSince(last.began))) {
          const cp: Checkpoint = { ...last, n: this.list.length, label, at: Date.now(), began };
          this.list.push(cp);
          return cp;
        }
        const snap = await this.snapshotter.take();
        const cp: Checkpoint = { ...snap, n: this.list.length, label };
        // A ref keeps the tree's objects from being pruned; off the waiting path (nothing prunes
        // a live chat's objects meanwhile), and only for a tree not kept already.
        if (!this.list.some((c) => c.tree === cp.tree)) this.keep(cp);
        this.list.push(cp);
        return cp;
      } catch (e) {
        const why =
          e instanceof TooLargeError
            ? `the folder has ${e.message} (checkpoints.max_files), too many to snapshot cheaply`
            : (e as Error).message;
        this.state = { on: false, why };
        return undefined;
      }
    };
    const p = this.chain.then(run, run);
    this.chain = p;
    return p;
  }

  private keep(cp: Checkpoint): void {
    const kept = this.git.run(["update-ref", `${this.refBase}/${cp.n}`, cp.tree]).catch(() => undefined);
    this.kept = Promise.all([this.kept, kept]);
  }

  /** Files that differ between two checkpoints (renames found), with lines added and removed. */
  async changes(a: Checkpoint, b: Checkpoint): Promise<FileChange[]> {
    const out: FileChange[] = [];
    if (a.tree !== b.tree) {
      // One git run: the raw entries (":modes oids status\0path\0"), then the numstat ones.
      const raw = await this.git.list([
        "diff-tree",
        "-r",
        "-z",
        "-M",
        "--raw",
        "--numstat",
        "--no-commit-id",
        a.tree,
        b.tree,
      ]);
      let end = 0;
      while (end < raw.length && raw[end]!.startsWith(":")) end += /^:\S+ \S+ \S+ \S+ [RC]/.test(raw[end]!) ? 3 : 2;
      const counts = parseNumstat(raw.slice(end));
      for (let i = 0; i < end; i++) {
        const head = raw[i]!;
        const m = /^:(\d+) (\d+) [0-9a-f]+ [0-9a-f]+ ([ACDMRTUX])\d*$/.exec(head);
        if (!m) continue;
        const [, oldMode, newMode, code] = m;
        const renamed = code === "R" || code === "C";
        const from = renamed ? raw[++i]! : undefined;
        const path = raw[++i]!;
        const c = counts.get(path) ?? { added: 0, removed: 0, binary: false };
        const status: FileChange["status"] =
          code === "A" ? "added" : code === "D" ? "deleted" : renamed ? "renamed" : code === "T" ? "type" : "modified";
        const change: FileChange = { path, status, added: c.added, removed: c.removed };
        if (from !== undefined) change.from = from;
        if (c.binary) change.binary = true;
        if (oldMode === "120000" || newMode === "120000") change.link = true;
        if (code === "M" && oldMode !== newMode) change.modeChange = `${oldMode!.slice(-3)} -> ${newMode!.slice(-3)}`;
        out.push(change);
      }
    }
    // Large files: compared by size and time.
    for (const [path, f] of Object.entries(b.large)) {
      const before = a.large[path];
      if (!before) out.push({ path, status: "added", added: 0, removed: 0, large: true });
      else if (before.size !== f.size || before.mtimeMs !== f.mtimeMs)
        out.push({ path, status: "modified", added: 0, removed: 0, large: true });
    }
    for (const path of Object.keys(a.large))
      if (!b.large[path]) out.push({ path, status: "deleted", added: 0, removed: 0, large: true });
    // A large file that became small (or the reverse) shows twice: keep the stored side's entry.
    const seen = new Set<string>();
    return out
      .filter((c) => (seen.has(c.path) ? false : (seen.add(c.path), true)))
      .sort((x, y) => (x.path < y.path ? -1 : 1));
  }

  /** A file as it was at a checkpoint (undefined: it did not exist). `path` relative to the folder. */
  async fileAt(cp: Checkpoint, path: string): Promise<FileAt | undefined> {
    const large = cp.large[path];
    if (large) return { kind: "large", size: large.size, mtimeMs: large.mtimeMs };
    const ls = await this.git.list(["ls-tree", "-z", "--full-tree", cp.tree, "--", path]);
    const entry = ls.find((l) => l.endsWith(`\t${path}`));
    if (!entry) return undefined;
    const m = /^(\d+) (\w+) ([0-9a-f]+)\t/.exec(entry);
    if (!m) return undefined;
    const [, mode, type, oid] = m;
    // A folder there is no file there: its files are paths of their own (a file that became a
    // folder reads as deleted, so a rewind brings it back once the folder's files are gone).
    if (type === "tree") return undefined;
    if (type !== "blob") return { kind: "other", mode: mode! };
    const bytes = await this.git.run(["cat-file", "blob", oid!]);
    if (mode === "120000") return { kind: "link", target: bytes.toString("utf8") };
    return { kind: "file", mode: mode === "100755" ? "100755" : "100644", bytes };
  }

  /**
   * Many files at one checkpoint in two git runs (ls-tree, then cat-file --batch), where
   * fileAt takes two per file: a rewind of a 100-file turn reads 400 versions.
   */
  async filesAt(cp: Checkpoint, paths: Iterable<string>): Promise<Map<string, FileAt | undefined>> {
    const out = new Map<string, FileAt | undefined>();
    const want = new Set<string>();
    for (const p of paths) {
      const large = cp.large[p];
      if (large) out.set(p, { kind: "large", size: large.size, mtimeMs: large.mtimeMs });
      else out.set(p, undefined), want.add(p);
    }
    if (want.size === 0) return out;
    // Few paths are named (literal pathspecs); many, and the whole tree is listed and filtered.
    // Recursive, so a path that is a folder there lists its files, not itself: no file there.
    const args = ["ls-tree", "-r", "-z", "--full-tree", cp.tree];
    const entries = await this.git.list(want.size <= 200 ? [...args, "--", ...want] : args);
    const blobs: { path: string; mode: string; oid: string }[] = [];
    for (const e of entries) {
      const m = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(e);
      if (!m || !want.has(m[4]!)) continue;
      if (m[2] === "blob") blobs.push({ path: m[4]!, mode: m[1]!, oid: m[3]! });
      else out.set(m[4]!, { kind: "other", mode: m[1]! });
    }
    if (blobs.length === 0) return out;
    // "<oid> blob <size>\n<bytes>\n" for each, in the order asked.
    const raw = await this.git.run(["cat-file", "--batch"], { input: blobs.map((b) => b.oid).join("\n") + "\n" });
    let at = 0;
    for (const b of blobs) {
      const nl = raw.indexOf(10, at);
      const head = /^[0-9a-f]+ blob (\d+)$/.exec(raw.subarray(at, nl < 0 ? raw.length : nl).toString("utf8"));
      if (nl < 0 || !head) throw new Error(`checkpoint object ${b.oid} of ${b.path} cannot be read`);
      const size = Number(head[1]);
      const bytes = Buffer.from(raw.subarray(nl + 1, nl + 1 + size));
      at = nl + 1 + size + 1;
      out.set(
        b.path,
        b.mode === "120000"
          ? { kind: "link", target: bytes.toString("utf8") }
          : { kind: "file", mode: b.mode === "100755" ? "100755" : "100644", bytes },
      );
    }
    return out;
  }

  /** Drop this chat's refs and files (its objects go at the next prune). */
  async dispose(): Promise<void> {
    // Kept: the chat's checkpoints outlive it until pruned (a resumed session may want them);
    // closed, it may be pruned.
    rmSync(join(this.chatDir, OWNER), { force: true });
  }

  /**
   * Sessions older than `maxAgeDays`, then the oldest while the repository is over `maxBytes`,
   * lose their checkpoints; unreachable objects are then removed. Run in the background when a
   * chat starts; never touches this chat's own refs.
   */
  async prune(): Promise<{ removed: number }> {
    const s = await this.ready;
    if (!s.on) return { removed: 0 };
    // Not while a snapshot of this chat is being taken or kept: its objects (its new blobs, and
    // the blobs a warm index took from an older chat) are reachable from no ref until then, and
    // gc would delete them.
    await this.chain.catch(() => undefined);
    await this.kept;
    const maxAge = (this.opts.maxAgeDays ?? 14) * 86_400_000;
    const maxBytes = this.opts.maxBytes ?? 2 * 1024 ** 3;
    this.pruneProjects(maxAge);
    const refs = (await this.git.run(["for-each-ref", "--format=%(refname)", "refs/acpchat/"]))
      .toString("utf8")
      .split("\n")
      .filter(Boolean);
    const chats = new Map<string, string[]>();
    for (const r of refs) {
      const chat = r.split("/")[2]!;
      if (`refs/acpchat/${chat}` === this.refBase) continue;
      if (openElsewhere(join(this.projectDir, "chats", chat))) continue;
      chats.set(chat, [...(chats.get(chat) ?? []), r]);
    }
    const byAge = [...chats.keys()].sort((x, y) => parseInt(x, 10) - parseInt(y, 10));
    const drop = byAge.filter((c) => Date.now() - parseInt(c, 10) > maxAge);
    let size = await this.size();
    for (const c of byAge)
      if (!drop.includes(c) && size > maxBytes) drop.push(c), (size -= size / Math.max(1, byAge.length));
    if (drop.length === 0) return { removed: 0 };
    await this.git.run(["update-ref", "--stdin"], {
      input: drop.flatMap((c) => chats.get(c)!.map((r) => `delete ${r}\n`)).join(""),
    });
    for (const c of drop) rmSync(join(this.projectDir, "chats", c), { recursive: true, force: true });
    // Objects written in the last hour stay even when nothing refers to them: another chat of
    // this project may be between writing a snapshot and its ref.
    const grace = this.opts.pruneGraceSeconds ?? 3600;
    await this.git.run(["gc", `--prune=${grace === 0 ? "now" : `${grace}.seconds.ago`}`, "--quiet"]);
    return { removed: drop.length };
  }

  /**
   * Other project folders whose every chat is older than `maxAge` (and none open) go whole:
   * each folder's checkpoints are pruned only when a chat starts there, so a folder never
   * opened again would keep its repository for ever.
   */
  private pruneProjects(maxAge: number): void {
    let projects: string[];
    try {
      projects = readdirSync(this.opts.stateDir);
    } catch {
      return;
    }
    for (const p of projects) {
      const dir = join(this.opts.stateDir, p);
      if (dir === this.projectDir || !/^[0-9a-f]{16}$/.test(p)) continue;
      try {
        const chats = existsSync(join(dir, "chats")) ? readdirSync(join(dir, "chats")) : [];
        if (chats.some((c) => openElsewhere(join(dir, "chats", c)))) continue;
        const newest = Math.max(statSync(dir).mtimeMs, ...chats.map((c) => parseInt(c, 10) || 0));
        if (Date.now() - newest > maxAge) rmSync(dir, { recursive: true, force: true });
      } catch {
        // being written by another Neovim, or unreadable: left for another time
      }
    }
  }

  /** The repository's size on disk, in bytes. */
  async size(): Promise<number> {
    const out = (await this.git.run(["count-objects", "-v"])).toString("utf8");
    const kib = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, "m").exec(out)?.[1] ?? 0);
    return (kib("size") + kib("size-pack")) * 1024;
  }
}

/** `dir` relative to `root` when it is inside it (links resolved), as a one-element list. */
function inside(root: string, dir: string): string[] {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const rel = relative(real(root), real(dir));
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? [rel.split(sep).join("/")] : [];
}

/** The file naming the process of an open chat. */
const OWNER = "owner";

/** Whether a chat's folder names a process that still runs (its chat may be open). */
function openElsewhere(chatDir: string): boolean {
  // In the state folder, but a project folder may hold the state folder: read as a small file.
  const pid = Number.parseInt(readSmallText(join(chatDir, OWNER), 1024), 10);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

function sanitize(s: string): string {
  return s.replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60);
}

/** `--numstat -z`: "added\tremoved\tpath\0" or, for a rename, "added\tremoved\t\0from\0to\0". */
function parseNumstat(items: string[]): Map<string, { added: number; removed: number; binary: boolean }> {
  const out = new Map<string, { added: number; removed: number; binary: boolean }>();
  for (let i = 0; i < items.length; i++) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(items[i]!);
    if (!m) continue;
    let path = m[3]!;
    if (path === "") {
      i++; // from
      path = items[++i]!;
    }
    const binary = m[1] === "-";
    out.set(path, { added: binary ? 0 : Number(m[1]), removed: binary ? 0 : Number(m[2]), binary });
  }
  return out;
}

function newestIndex(chatsDir: string, except: string): string | undefined {
  if (!existsSync(chatsDir)) return undefined;
  let best: { path: string; t: number } | undefined;
  for (const c of readdirSync(chatsDir)) {
    const dir = join(chatsDir, c);
    if (dir === except) continue;
    const idx = join(dir, "index-root");
    try {
      const t = statSync(idx).mtimeMs;
      if (!best || t > best.t) best = { path: idx, t };
    } catch {
      // none
    }
  }
  return best?.path;
}

export type { LargeFile };
