/**
 * The `git` program, run on the plugin's own repository: a separate git dir (under the state
 * folder) whose work tree is the session's folder. Nothing of the user's git is read for
 * settings or written: no user or system config, no hooks, no fsmonitor, no attributes that
 * change bytes (line endings, filters, encodings), every GIT_* variable of the environment
 * dropped. So the user's `.git` (index, refs, stash, reflog, config, hooks) is never touched.
 */
import { execa } from "execa";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The oldest git with what the snapshots use (`add --pathspec-from-file`, 2.25). */
export const MIN_GIT = [2, 25] as const;

/** Settings on every call: whatever the user's git would do differently is off. */
const CONFIG = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.symlinks=true",
  "core.fileMode=true",
  "core.quotePath=false",
  "core.precomposeUnicode=false",
  "core.preloadIndex=true",
  "core.untrackedCache=false",
  "core.splitIndex=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "index.threads=true",
  "advice.addIgnoredFile=false",
  "commit.gpgSign=false",
];

export class GitError extends Error {}

/** Which tree a call is about: its folder, its index and its excludes file. */
export interface RunOptions {
  workTree?: string;
  index?: string;
  excludes?: string;
}

export interface GitOptions {
  /** The git program (default `git` on PATH). */
  program?: string;
  /** The private git dir. */
  gitDir: string;
  /** A git call running longer than this is killed and fails (default GIT_TIMEOUT_MS). */
  timeoutMs?: number;
}

/**
 * How long one git call of the store may run: a first snapshot of a large folder on a busy
 * machine takes seconds; a git that hangs (a stuck network mount, say) must not hold every
 * prompt for ever.
 */
export const GIT_TIMEOUT_MS = 120_000;

/** The private repository: one per project folder, shared by its chats (each has its own index). */
export class PrivateGit {
  readonly program: string;
  readonly gitDir: string;
  readonly timeoutMs: number;
  private readonly env: Record<string, string>;

  constructor(opts: GitOptions) {
    this.program = opts.program ?? "git";
    this.gitDir = opts.gitDir;
    this.timeoutMs = opts.timeoutMs ?? GIT_TIMEOUT_MS;
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("GIT_")) env[k] = v;
    Object.assign(env, {
      GIT_DIR: this.gitDir,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      // Older gits read ~/.gitconfig without GIT_CONFIG_GLOBAL: a home of our own.
      HOME: this.gitDir,
      XDG_CONFIG_HOME: join(this.gitDir, "xdg"),
      GIT_TERMINAL_PROMPT: "0",
      GIT_OPTIONAL_LOCKS: "0",
      GIT_LITERAL_PATHSPECS: "1",
      GIT_AUTHOR_NAME: "acp-chat.nvim",
      GIT_AUTHOR_EMAIL: "checkpoints@acp-chat.nvim",
      GIT_COMMITTER_NAME: "acp-chat.nvim",
      GIT_COMMITTER_EMAIL: "checkpoints@acp-chat.nvim",
      LC_ALL: "C",
    });
    this.env = env;
  }

  /** Create the repository (idempotent), with attributes that store every file's bytes as they are. */
  async init(): Promise<void> {
    if (!existsSync(join(this.gitDir, "HEAD"))) {
      mkdirSync(this.gitDir, { recursive: true });
      await this.run(["init", "--quiet", "--bare", this.gitDir]);
      await this.run(["config", "core.bare", "false"]);
      await this.run(["config", "core.logAllRefUpdates", "false"]);
    }
    mkdirSync(join(this.gitDir, "info"), { recursive: true });
    // Highest precedence of all attributes: the project's .gitattributes cannot turn on
    // end-of-line conversion, filters (LFS) or re-encoding, so a restore is byte-exact.
    writeFileSync(
      join(this.gitDir, "info", "attributes"),
      "* -text -eol -filter -ident -working-tree-encoding -crlf\n",
    );
  }

  /**
   * Run git; resolves with its stdout as bytes. `workTree`, `index` and `excludes` pick the
   * tree being snapshotted; `input` goes to stdin.
   */
  async run(
    args: string[],
    opts: RunOptions & { input?: string | Uint8Array; allowCodes?: number[] } = {},
  ): Promise<Buffer> {
    const r = await execa(this.program, this.argv(args, opts), {
      ...this.spawnOptions(opts),
      input: opts.input,
      encoding: "buffer",
      reject: false,
      stripFinalNewline: false,
      maxBuffer: 512 * 1024 * 1024,
      timeout: this.timeoutMs,
      forceKillAfterDelay: 1000,
    });
    if (r.timedOut) throw new GitError(`git ${args[0]} timed out after ${seconds(this.timeoutMs)}`);
    if (r.exitCode !== 0 && !(opts.allowCodes ?? []).includes(r.exitCode ?? -1)) {
      const err = Buffer.from((r.stderr as Uint8Array | undefined) ?? [])
        .toString("utf8")
        .trim();
      throw new GitError(`git ${args[0]} failed (${r.exitCode ?? r.signal ?? "not started"}): ${err || r.message}`);
    }
    return Buffer.from(r.stdout as Uint8Array);
  }

  /** Start git with its output streamed (for listings that may be stopped early). */
  stream(args: string[], opts: RunOptions = {}) {
    return execa(this.program, this.argv(args, opts), {
      ...this.spawnOptions(opts),
      buffer: false,
      stdout: "pipe",
      stderr: "ignore",
      stdin: "ignore",
      reject: false,
      timeout: this.timeoutMs,
      forceKillAfterDelay: 1000,
    });
  }

  private argv(args: string[], opts: RunOptions): string[] {
    const config = [...CONFIG, `core.excludesFile=${opts.excludes ?? "/dev/null"}`];
    return [...config.flatMap((c) => ["-c", c]), ...args];
  }

  private spawnOptions(opts: RunOptions) {
    const env = { ...this.env };
    if (opts.workTree) env.GIT_WORK_TREE = opts.workTree;
    if (opts.index) env.GIT_INDEX_FILE = opts.index;
    return { env, extendEnv: false, cwd: opts.workTree ?? this.gitDir };
  }

  /** Run git and split its NUL-terminated output. */
  async list(args: string[], opts: RunOptions = {}): Promise<string[]> {
    const out = (await this.run(args, opts)).toString("utf8");
    return out.split("\0").filter((s) => s !== "");
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

type GitVersion = { ok: true; version: string } | { ok: false; why: string };
/**
 * Versions found, by program, for the host's life: every chat asked again, one spawn each (the
 * largest JS-side cost of a test's host after compiling). A failure is not kept: git installed
 * meanwhile is found by the next chat.
 */
const versions = new Map<string, Promise<GitVersion>>();

/** The installed git's version, or why there is none usable. */
export function gitVersion(program = "git"): Promise<GitVersion> {
  const known = versions.get(program);
  if (known) return known;
  const asked = askVersion(program);
  versions.set(program, asked);
  void asked.then((v) => {
    if (!v.ok) versions.delete(program);
  });
  return asked;
}

async function askVersion(program: string): Promise<GitVersion> {
  try {
    const r = await execa(program, ["--version"], { reject: false, timeout: 5000 });
    if ((r as { code?: string }).code === "ENOENT")
      return { ok: false, why: "git is not installed (not found on PATH)" };
    if (r.exitCode !== 0) return { ok: false, why: `\`${program} --version\` failed: ${r.message}` };
    const m = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(r.stdout);
    if (!m) return { ok: false, why: `cannot read the version of ${program}: ${r.stdout}` };
    const [maj, min] = [Number(m[1]), Number(m[2])];
    if (maj < MIN_GIT[0] || (maj === MIN_GIT[0] && min < MIN_GIT[1]))
      return { ok: false, why: `git ${m[0]} is too old (checkpoints need ${MIN_GIT.join(".")} or later)` };
    return { ok: true, version: m[0] };
  } catch (e) {
    const code = (e as { code?: string }).code;
    return {
      ok: false,
      why: code === "ENOENT" ? "git is not installed (not found on PATH)" : `git cannot run: ${(e as Error).message}`,
    };
  }
}

/**
 * A three-way merge of texts with conflict markers where both sides changed the same lines
 * (`git merge-file`, which needs no repository): `ours` and `theirs` both start from `base`.
 */
export async function mergeWithMarkers(
  texts: { ours: string; base: string; theirs: string },
  labels: { ours: string; base: string; theirs: string },
  program = "git",
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "acpchat-merge-"));
  try {
    const files = (["ours", "base", "theirs"] as const).map((k) => {
      const f = join(dir, k);
      writeFileSync(f, texts[k]);
      return f;
    });
    // Exit code: the number of conflicts (negative on error).
    const r = await execa(
      program,
      ["merge-file", "-p", "--diff3", "-L", labels.ours, "-L", labels.base, "-L", labels.theirs, ...files],
      { reject: false, stripFinalNewline: false, env: { LC_ALL: "C" }, timeout: 30_000, forceKillAfterDelay: 1000 },
    );
    if (r.exitCode === undefined || r.exitCode < 0 || r.exitCode > 127)
      throw new GitError(`git merge-file failed: ${r.stderr}`);
    return r.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
