/**
 * Checkpoint snapshots (src/checkpoints/store.ts, snapshot.ts, git.ts) with the real git on
 * real folders: incremental, ignored files left out, nested repositories recorded file by file,
 * large files listed but not stored, too-large folders refused, any file name, every kind of
 * file back byte for byte, the user's attributes powerless over the stored bytes, and the
 * user's own repository never touched.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fingerprint } from "../support/fingerprint.js";
import { CheckpointStore, type Checkpoint } from "../../src/checkpoints/store.js";
import type { SnapshotLimits } from "../../src/checkpoints/snapshot.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

function folders(): { work: string; state: string } {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-cpstore-")));
  made.push(d);
  mkdirSync(join(d, "work"));
  return { work: join(d, "work"), state: join(d, "state") };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", "-c", "init.defaultBranch=main", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" },
  });
}

let chats = 0;
async function storeOf(work: string, state: string, limits?: Partial<SnapshotLimits>): Promise<CheckpointStore> {
  const s = new CheckpointStore({ stateDir: state, cwd: work, chat: `c${++chats}`, limits });
  expect(await s.ready).toEqual({ on: true });
  return s;
}

async function take(s: CheckpointStore, label = "x"): Promise<Checkpoint> {
  const cp = await s.take(label);
  if (!cp) throw new Error(`no checkpoint: ${JSON.stringify(s.state)}`);
  return cp;
}

/** Every path stored in a checkpoint's tree. */
function stored(s: CheckpointStore, cp: Checkpoint): string[] {
  const gitDir = join((s as unknown as { projectDir: string }).projectDir, "git");
  return execFileSync("git", ["--git-dir", gitDir, "ls-tree", "-r", "-z", "--name-only", cp.tree], { encoding: "utf8" })
    .split("\0")
    .filter(Boolean)
    .sort();
}

describe("checkpoint snapshots (real git)", () => {
  it("incremental: an unchanged folder gives the same tree; a change, a new file and a deletion are exactly what changes() lists", async () => {
    const { work, state } = folders();
    for (let i = 0; i < 50; i++) writeFileSync(join(work, `f${i}.txt`), `file ${i}\nsecond line\n`);
    mkdirSync(join(work, "sub/deeper"), { recursive: true });
    writeFileSync(join(work, "sub/deeper/x.txt"), "x\n");
    const s = await storeOf(work, state);
    const a = await take(s);
    expect(stored(s, a)).toHaveLength(51);
    const same = await take(s);
    expect(same.tree).toBe(a.tree);
    expect(await s.changes(a, same)).toEqual([]);
    writeFileSync(join(work, "f3.txt"), "file 3\nchanged\nadded\n");
    writeFileSync(join(work, "sub/deeper/new.txt"), "new\n");
    unlinkSync(join(work, "f7.txt"));
    const b = await take(s);
    expect(b.n).toBe(2);
    expect(await s.changes(a, b)).toEqual([
      { path: "f3.txt", status: "modified", added: 2, removed: 1 },
      { path: "f7.txt", status: "deleted", added: 0, removed: 2 },
      { path: "sub/deeper/new.txt", status: "added", added: 1, removed: 0 },
    ]);
    // The earlier checkpoint still has the old bytes.
    expect((await s.fileAt(a, "f3.txt")) as unknown).toEqual({
      kind: "file",
      mode: "100644",
      bytes: Buffer.from("file 3\nsecond line\n"),
    });
    expect(await s.fileAt(b, "f7.txt")).toBeUndefined();
    // A rename is found as one.
    execFileSync("mv", [join(work, "f10.txt"), join(work, "renamed.txt")]);
    const c = await take(s);
    expect(await s.changes(b, c)).toEqual([
      { path: "renamed.txt", status: "renamed", from: "f10.txt", added: 0, removed: 0 },
    ]);
  });

  it("a file modified within the same second as the snapshot (racy stat data) is still seen as changed", async () => {
    const { work, state } = folders();
    writeFileSync(join(work, "r.txt"), "aaaa\n");
    const s = await storeOf(work, state);
    const a = await take(s);
    // Same size, written right after: only the content tells.
    writeFileSync(join(work, "r.txt"), "bbbb\n");
    const b = await take(s);
    expect(await s.changes(a, b)).toEqual([{ path: "r.txt", status: "modified", added: 1, removed: 1 }]);
    writeFileSync(join(work, "r.txt"), "cccc\n");
    const c = await take(s);
    expect(((await s.fileAt(c, "r.txt")) as { bytes: Buffer }).bytes.toString()).toBe("cccc\n");
  });

  it("ignored files are left out: the project's .gitignore files (root and nested folders) and .git/info/exclude", async () => {
    const { work, state } = folders();
    git(work, "init", "-q");
    writeFileSync(join(work, ".gitignore"), "*.log\nbuild/\n");
    mkdirSync(join(work, "build"));
    writeFileSync(join(work, "build/out.js"), "out\n");
    writeFileSync(join(work, "debug.log"), "log\n");
    mkdirSync(join(work, "pkg"));
    writeFileSync(join(work, "pkg/.gitignore"), "secret.txt\n");
    writeFileSync(join(work, "pkg/secret.txt"), "secret\n");
    writeFileSync(join(work, "pkg/kept.txt"), "kept\n");
    writeFileSync(join(work, ".git/info/exclude"), "# mine\nlocal-notes.md\n");
    writeFileSync(join(work, "local-notes.md"), "notes\n");
    writeFileSync(join(work, "main.c"), "int main;\n");
    const s = await storeOf(work, state);
    const a = await take(s);
    expect(stored(s, a)).toEqual([".gitignore", "main.c", "pkg/.gitignore", "pkg/kept.txt"]);
    writeFileSync(join(work, "debug.log"), "more log\n");
    writeFileSync(join(work, "local-notes.md"), "more notes\n");
    writeFileSync(join(work, "pkg/secret.txt"), "changed\n");
    writeFileSync(join(work, "pkg/kept.txt"), "changed\n");
    const b = await take(s);
    expect((await s.changes(a, b)).map((c) => c.path)).toEqual(["pkg/kept.txt"]);
    expect(await s.fileAt(b, "local-notes.md")).toBeUndefined();
  });

  it("a nested repository and an empty nested repository (no commits): their files are recorded one by one, their .git never", async () => {
    const { work, state } = folders();
    writeFileSync(join(work, "top.txt"), "top\n");
    mkdirSync(join(work, "nested/src"), { recursive: true });
    writeFileSync(join(work, "nested/n.txt"), "nested\n");
    writeFileSync(join(work, "nested/src/deep.txt"), "deep\n");
    writeFileSync(join(work, "nested/.gitignore"), "*.tmp\n");
    writeFileSync(join(work, "nested/x.tmp"), "ignored in the nested repository\n");
    git(join(work, "nested"), "init", "-q");
    git(join(work, "nested"), "add", "-A");
    git(join(work, "nested"), "commit", "-qm", "n");
    mkdirSync(join(work, "empty-repo"));
    git(join(work, "empty-repo"), "init", "-q");
    writeFileSync(join(work, "empty-repo/e.txt"), "e\n");
    writeFileSync(join(work, "empty-repo/.git/info/exclude"), "private.txt\n");
    writeFileSync(join(work, "empty-repo/private.txt"), "excluded by the nested repository's own exclude\n");
    const nestedGit = fingerprint(join(work, "nested/.git"), { times: true });
    const s = await storeOf(work, state);
    const a = await take(s);
    expect(stored(s, a)).toEqual([
      "empty-repo/e.txt",
      "nested/.gitignore",
      "nested/n.txt",
      "nested/src/deep.txt",
      "top.txt",
    ]);
    expect((await s.fileAt(a, "nested/src/deep.txt")) as unknown).toEqual({
      kind: "file",
      mode: "100644",
      bytes: Buffer.from("deep\n"),
    });
    writeFileSync(join(work, "nested/n.txt"), "changed\n");
    writeFileSync(join(work, "nested/src/added.txt"), "added\n");
    writeFileSync(join(work, "empty-repo/e.txt"), "e\nmore\n");
    const b = await take(s);
    expect(await s.changes(a, b)).toEqual([
      { path: "empty-repo/e.txt", status: "modified", added: 1, removed: 0 },
      { path: "nested/n.txt", status: "modified", added: 1, removed: 1 },
      { path: "nested/src/added.txt", status: "added", added: 1, removed: 0 },
    ]);
    // Unchanged: the same tree again (the nested trees grafted the same way).
    expect((await take(s)).tree).toBe(b.tree);
    expect(fingerprint(join(work, "nested/.git"), { times: true })).toEqual(nestedGit);
  });

  it("files over the size limit are listed (size and time), not stored; back under the limit they are stored again", async () => {
    const { work, state } = folders();
    writeFileSync(join(work, "small.txt"), "small\n");
    writeFileSync(join(work, "big.bin"), Buffer.alloc(2000, 1));
    mkdirSync(join(work, "data"));
    writeFileSync(join(work, "data/# big [1] *.csv "), Buffer.alloc(3000, 2));
    const s = await storeOf(work, state, { maxFileBytes: 1000 });
    const a = await take(s);
    expect(stored(s, a)).toEqual(["small.txt"]);
    expect(Object.keys(a.large).sort()).toEqual(["big.bin", "data/# big [1] *.csv "]);
    expect(a.large["big.bin"]!.size).toBe(2000);
    expect(await s.fileAt(a, "big.bin")).toMatchObject({ kind: "large", size: 2000 });
    writeFileSync(join(work, "big.bin"), Buffer.alloc(2500, 1));
    writeFileSync(join(work, "small.txt"), "small\nchanged\n");
    const b = await take(s);
    expect(await s.changes(a, b)).toEqual([
      { path: "big.bin", status: "modified", added: 0, removed: 0, large: true },
      { path: "small.txt", status: "modified", added: 1, removed: 0 },
    ]);
    // Under the limit again: stored; the odd name's exclude pattern is gone with it.
    writeFileSync(join(work, "data/# big [1] *.csv "), "a,b\n");
    const c = await take(s);
    expect(Object.keys(c.large)).toEqual(["big.bin"]);
    expect(((await s.fileAt(c, "data/# big [1] *.csv ")) as { bytes: Buffer }).bytes.toString()).toBe("a,b\n");
    expect(stored(s, c)).toEqual(["data/# big [1] *.csv ", "small.txt"]);
  });

  it("a large file's name never excludes other files (its exclude pattern matches it alone)", async () => {
    const { work, state } = folders();
    writeFileSync(join(work, "notes.md"), "notes\n");
    writeFileSync(join(work, "big*"), Buffer.alloc(2000, 1));
    writeFileSync(join(work, "big-one.txt"), "not large\n");
    writeFileSync(join(work, "!important"), Buffer.alloc(2000, 1));
    writeFileSync(join(work, "important"), "kept\n");
    // A newline in a large file's name: its second line must not become a pattern of its own.
    writeFileSync(join(work, "big\nnotes.md"), Buffer.alloc(2000, 1));
    const s = await storeOf(work, state, { maxFileBytes: 1000 });
    const a = await take(s);
    expect(stored(s, a)).toEqual(["big-one.txt", "important", "notes.md"]);
    expect(Object.keys(a.large).sort()).toEqual(["!important", "big\nnotes.md", "big*"]);
    writeFileSync(join(work, "big-one.txt"), "changed\n");
    mkdirSync(join(work, "sub"));
    writeFileSync(join(work, "sub/notes.md"), "made after\n");
    writeFileSync(join(work, "sub/important"), "made after\n");
    const b = await take(s);
    expect((await s.changes(a, b)).map((c) => c.path)).toEqual(["big-one.txt", "sub/important", "sub/notes.md"]);
    expect(Object.keys(b.large).sort()).toEqual(["!important", "big\nnotes.md", "big*"]);
    expect(stored(s, b)).toEqual(["big-one.txt", "important", "notes.md", "sub/important", "sub/notes.md"]);
  });

  it("a folder over maxFiles is refused: no checkpoint, checkpoints off with the reason", async () => {
    const { work, state } = folders();
    for (let i = 0; i < 30; i++) writeFileSync(join(work, `f${i}`), `${i}\n`);
    const s = await storeOf(work, state, { maxFiles: 20 });
    expect(await s.take("first")).toBeUndefined();
    expect(s.state).toEqual({
      on: false,
      why: "the folder has more than 20 files (checkpoints.max_files), too many to snapshot cheaply",
    });
    expect(await s.take("again")).toBeUndefined();
    expect(s.checkpoints).toHaveLength(0);
    // At the limit: fine.
    const t = folders();
    for (let i = 0; i < 20; i++) writeFileSync(join(t.work, `f${i}`), `${i}\n`);
    const ok = await storeOf(t.work, t.state, { maxFiles: 20 });
    expect(stored(ok, await take(ok))).toHaveLength(20);
  });

  it("any file name: spaces, a newline, unicode, *, [, #, !, leading and trailing spaces", async () => {
    const { work, state } = folders();
    const names = [
      "with space.txt",
      "new\nline.txt",
      "ünïcødé 日本.txt",
      "star*.txt",
      "[bracket].txt",
      "#hash.txt",
      "!bang.txt",
      " leading.txt",
      "trailing.txt ",
      "back\\slash.txt",
      "tab\there.txt",
      'quote".txt',
    ];
    mkdirSync(join(work, "d ir [x]"));
    const all = [...names, ...names.map((n) => join("d ir [x]", n))];
    for (const n of all) writeFileSync(join(work, n), `content of ${n}\n`);
    const s = await storeOf(work, state);
    const a = await take(s);
    expect(stored(s, a)).toEqual([...all].sort());
    for (const n of all)
      expect(((await s.fileAt(a, n)) as { bytes: Buffer }).bytes.toString(), n).toBe(`content of ${n}\n`);
    for (const n of names) writeFileSync(join(work, n), `changed ${n}\n`);
    unlinkSync(join(work, "d ir [x]", "star*.txt"));
    const b = await take(s);
    const changes = await s.changes(a, b);
    expect(changes.map((c) => c.path).sort()).toEqual([...names, join("d ir [x]", "star*.txt")].sort());
    expect(changes.find((c) => c.path === "new\nline.txt")).toEqual({
      path: "new\nline.txt",
      status: "modified",
      added: 1,
      removed: 1,
    });
    // The wildcard name changed alone: the literal path, not a pattern (star*.txt must not match star-other).
    writeFileSync(join(work, "star-other.txt"), "x\n");
    const c = await take(s);
    expect(await s.fileAt(c, "star*.txt")).toEqual({
      kind: "file",
      mode: "100644",
      bytes: Buffer.from("changed star*.txt\n"),
    });
    expect((await s.changes(b, c)).map((x) => x.path)).toEqual(["star-other.txt"]);
  });

  it("every kind of file comes back byte for byte through fileAt: CRLF, BOM, Latin-1, no final newline, binary, mode 0755, a symlink", async () => {
    const { work, state } = folders();
    const files: Record<string, Buffer> = {
      "crlf.txt": Buffer.from("one\r\ntwo\r\n"),
      "mixed.txt": Buffer.from("a\r\nb\nc\r"),
      "bom.txt": Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("bom\n")]),
      "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("hi\n", "utf16le")]),
      "latin1.txt": Buffer.from("caf\xe9 cr\xe8me\n", "latin1"),
      "noeol.txt": Buffer.from("no final newline"),
      "blob.bin": Buffer.from([0, 1, 2, 255, 254, 0, 13, 10, 7]),
      "empty.txt": Buffer.alloc(0),
      "run.sh": Buffer.from("#!/bin/sh\necho hi\n"),
    };
    for (const [n, b] of Object.entries(files)) writeFileSync(join(work, n), b);
    chmodSync(join(work, "run.sh"), 0o755);
    symlinkSync("crlf.txt", join(work, "link"));
    symlinkSync("../outside/none", join(work, "dangling"));
    const s = await storeOf(work, state);
    const a = await take(s);
    for (const [n, b] of Object.entries(files)) {
      const f = await s.fileAt(a, n);
      expect(f?.kind, n).toBe("file");
      expect((f as { bytes: Buffer }).bytes.equals(b), n).toBe(true);
      expect((f as { mode: string }).mode, n).toBe(n === "run.sh" ? "100755" : "100644");
    }
    expect(await s.fileAt(a, "link")).toEqual({ kind: "link", target: "crlf.txt" });
    expect(await s.fileAt(a, "dangling")).toEqual({ kind: "link", target: "../outside/none" });
    // Changes of mode and link target are listed as such.
    chmodSync(join(work, "run.sh"), 0o644);
    unlinkSync(join(work, "link"));
    symlinkSync("bom.txt", join(work, "link"));
    const b = await take(s);
    expect(await s.changes(a, b)).toEqual([
      { path: "link", status: "modified", added: 1, removed: 1, link: true },
      { path: "run.sh", status: "modified", added: 0, removed: 0, modeChange: "755 -> 644" },
    ]);
  });

  it("the user's .gitattributes (text=auto eol=crlf, a filter, an encoding) and git config change no stored byte", async () => {
    const { work, state } = folders();
    git(work, "init", "-q");
    // A clean filter in the user's config that would upper-case everything, if it ran.
    git(work, "config", "filter.upper.clean", "tr a-z A-Z");
    git(work, "config", "filter.upper.smudge", "tr A-Z a-z");
    git(work, "config", "filter.upper.required", "true");
    git(work, "config", "core.autocrlf", "true");
    writeFileSync(
      join(work, ".gitattributes"),
      "* text=auto eol=crlf filter=upper ident\n*.u16 working-tree-encoding=UTF-16\n",
    );
    const files: Record<string, Buffer> = {
      "lf.txt": Buffer.from("lower case\nlf only\n"),
      "crlf.txt": Buffer.from("lower\r\ncrlf\r\n"),
      "ident.txt": Buffer.from("$Id$\n"),
      "plain.u16": Buffer.from("not utf-16 at all\n"),
    };
    for (const [n, b] of Object.entries(files)) writeFileSync(join(work, n), b);
    const s = await storeOf(work, state);
    const a = await take(s);
    for (const [n, b] of Object.entries(files))
      expect(((await s.fileAt(a, n)) as { bytes: Buffer }).bytes.toString("latin1"), n).toBe(b.toString("latin1"));
    // And the blob itself (what a restore would write) is the file's bytes: no smudge on the way out.
    writeFileSync(join(work, "lf.txt"), "lower case\nlf only\nmore\n");
    const b = await take(s);
    expect(await s.changes(a, b)).toEqual([{ path: "lf.txt", status: "modified", added: 1, removed: 0 }]);
  });

  it("the user's repository is byte-identical after snapshots, changes, fileAt and prune; no hook of theirs runs", async () => {
    const { work, state } = folders();
    writeFileSync(join(work, "a.txt"), "a\n");
    writeFileSync(join(work, ".gitignore"), "*.log\n");
    git(work, "init", "-q");
    git(work, "add", "-A");
    git(work, "commit", "-qm", "first");
    writeFileSync(join(work, "a.txt"), "a\nstashed\n");
    git(work, "stash", "-q");
    writeFileSync(join(work, "a.txt"), "a\nwork in progress\n");
    writeFileSync(join(work, "staged.txt"), "staged\n");
    git(work, "add", "staged.txt");
    const marker = join(work, "..", "HOOK-RAN");
    for (const h of [
      "post-index-change",
      "pre-commit",
      "post-checkout",
      "reference-transaction",
      "fsmonitor-watchman",
    ]) {
      writeFileSync(join(work, ".git/hooks", h), `#!/bin/sh\necho ${h} >> ${marker}\n`);
      chmodSync(join(work, ".git/hooks", h), 0o755);
    }
    git(work, "config", "core.fsmonitor", join(work, ".git/hooks/fsmonitor-watchman"));
    const before = fingerprint(join(work, ".git"), { times: true });
    const s = await storeOf(work, state);
    const a = await take(s);
    writeFileSync(join(work, "a.txt"), "changed by the agent\n");
    writeFileSync(join(work, "new.txt"), "new\n");
    const b = await take(s);
    expect((await s.changes(a, b)).map((c) => c.path)).toEqual(["a.txt", "new.txt"]);
    expect(((await s.fileAt(a, "a.txt")) as { bytes: Buffer }).bytes.toString()).toBe("a\nwork in progress\n");
    // A second chat of the project (warm start), and pruning.
    const s2 = await storeOf(work, state);
    await take(s2);
    await s2.prune();
    expect(fingerprint(join(work, ".git"), { times: true })).toEqual(before);
    expect(() => readFileSync(marker)).toThrow();
    expect(git(work, "stash", "list")).toContain("stash@{0}");
    expect(git(work, "diff", "--cached", "--name-only")).toBe("staged.txt\n");
  });

  it("prune while this chat's first snapshot runs (warm from the chat being pruned): the snapshot's objects survive", async () => {
    const { work, state } = folders();
    mkdirSync(join(work, "src"));
    for (let i = 0; i < 1500; i++) writeFileSync(join(work, "src", `f${i}.txt`), `file ${i}\n`.repeat(20));
    const old = new CheckpointStore({ stateDir: state, cwd: work, chat: "old", maxAgeDays: 0 });
    await take(old);
    await old.dispose(); // closed: its checkpoints may go
    // Many files change before the next chat opens (a pull, a branch switch): its first snapshot takes a while.
    for (let i = 0; i < 1500; i += 2) writeFileSync(join(work, "src", `f${i}.txt`), `changed ${i}\n`);
    await new Promise((r) => setTimeout(r, 20));
    const s = new CheckpointStore({ stateDir: state, cwd: work, chat: "new", maxAgeDays: 0 });
    const first = s.take("first");
    const pruned = s.prune();
    const cp = await first;
    expect(await pruned).toEqual({ removed: 1 });
    expect(s.state).toEqual({ on: true });
    expect(cp).toBeDefined();
    // Every object of the snapshot is there: unchanged files (their blobs were the old chat's) and changed ones.
    const gitDir = join(state, readdirSync(state)[0]!, "git");
    expect(() =>
      execFileSync("git", ["--git-dir", gitDir, "fsck", "--connectivity-only", "--no-dangling"], { stdio: "pipe" }),
    ).not.toThrow();
    expect(((await s.fileAt(cp!, "src/f1.txt")) as { bytes: Buffer }).bytes.toString()).toBe("file 1\n".repeat(20));
    expect(((await s.fileAt(cp!, "src/f0.txt")) as { bytes: Buffer }).bytes.toString()).toBe("changed 0\n");
    writeFileSync(join(work, "src/f3.txt"), "later\n");
    expect(await s.take("next")).toBeDefined();
  });

  it("prune leaves objects written moments ago (another chat of the project between its git add and its ref)", async () => {
    const { work, state } = folders();
    writeFileSync(join(work, "a.txt"), "a\n");
    const old = new CheckpointStore({ stateDir: state, cwd: work, chat: "old", maxAgeDays: 0 });
    await take(old);
    await old.dispose(); // closed: its checkpoints may go
    await new Promise((r) => setTimeout(r, 20));
    const s = new CheckpointStore({ stateDir: state, cwd: work, chat: "live", maxAgeDays: 0 });
    await take(s);
    const gitDir = join(state, readdirSync(state)[0]!, "git");
    // What another chat's `git add` just wrote: a blob no ref reaches yet.
    const oid = execFileSync("git", ["--git-dir", gitDir, "hash-object", "-w", "--stdin"], {
      input: "in flight\n",
      encoding: "utf8",
    }).trim();
    expect(await s.prune()).toEqual({ removed: 1 });
    expect(execFileSync("git", ["--git-dir", gitDir, "cat-file", "-p", oid], { encoding: "utf8" })).toBe("in flight\n");
  });

  it("prune: chats older than maxAgeDays lose their refs and files; the live chat's checkpoints stay readable", async () => {
    const { work, state } = folders();
    writeFileSync(join(work, "a.txt"), "a\n");
    const old = new CheckpointStore({ stateDir: state, cwd: work, chat: "old", maxAgeDays: 0 });
    await take(old);
    writeFileSync(join(work, "a.txt"), "b\n");
    await take(old);
    await old.dispose(); // closed: its checkpoints may go
    await new Promise((r) => setTimeout(r, 20));
    const live = new CheckpointStore({ stateDir: state, cwd: work, chat: "live", maxAgeDays: 0 });
    const cp = await take(live);
    expect(await live.prune()).toEqual({ removed: 1 });
    expect(((await live.fileAt(cp, "a.txt")) as { bytes: Buffer }).bytes.toString()).toBe("b\n");
    const project = readdirSync(state)[0]!;
    expect(readdirSync(join(state, project, "chats")).map((c) => c.replace(/^\d+-/, ""))).toEqual(["live"]);
    rmSync(join(state, project), { recursive: true, force: true });
  });
});
