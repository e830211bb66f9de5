import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointStore } from "../../src/checkpoints/store.js";
import { TurnCheckpoints } from "../../src/checkpoints/turns.js";
import type { LiveFiles } from "../../src/checkpoints/apply.js";
import { PathBoundary } from "../../src/workspace/path-boundary.js";
import { cpuWithChildrenMs } from "../support/cpu-time.js";

const noBuffers: LiveFiles = {
  buffer: async () => undefined,
  setBuffer: async () => "changed",
  reload: async () => undefined,
};

async function setup(limits?: { maxFileBytes?: number; maxFiles?: number }) {
  const root = mkdtempSync(join(tmpdir(), "acpchat-hostile-"));
  const work = join(root, "work");
  mkdirSync(work);
  return {
    root,
    work,
    start: async () => {
      const store = new CheckpointStore({ stateDir: join(root, "state"), cwd: work, chat: "c", limits });
      const cp = new TurnCheckpoints(store, work);
      const boundary = new PathBoundary(work);
      return { store, cp, check: (abs: string) => void boundary.check(abs, "rewind") };
    },
  };
}

async function turn(cp: TurnCheckpoints, n: number, act: () => void) {
  // The chat's first snapshot is done (a busy machine may take longer than a prompt waits).
  while (cp.store.checkpoints.length === 0) await new Promise((r) => setTimeout(r, 20));
  const step = await cp.beginTurn(n);
  act();
  await cp.endTurn(step);
  return step;
}

describe("checkpoints, hostile", () => {
  it("a file that became a folder: the rewind puts the file back", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "a"), "file a\n");
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      rmSync(join(s.work, "a"));
      mkdirSync(join(s.work, "a"));
      writeFileSync(join(s.work, "a", "x"), "inside\n");
    });
    const out = await cp.rewind(step, noBuffers, check, "rewind");
    expect(out.map((o) => [o.path, o.applied])).toEqual([
      ["a", { done: true, how: "restored" }],
      ["a/x", { done: true, how: "removed" }],
    ]);
    expect(lstatSync(join(s.work, "a")).isFile()).toBe(true);
    expect(readFileSync(join(s.work, "a"), "utf8")).toBe("file a\n");
  });

  it("a folder that became a file: the rewind puts the folder's files back", async () => {
    const s = await setup();
    mkdirSync(join(s.work, "d"));
    writeFileSync(join(s.work, "d/x"), "x\n");
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      rmSync(join(s.work, "d"), { recursive: true });
      writeFileSync(join(s.work, "d"), "now a file\n");
    });
    const out = await cp.rewind(step, noBuffers, check, "rewind");
    expect(out.map((o) => [o.path, o.applied])).toEqual([
      ["d", { done: true, how: "removed" }],
      ["d/x", { done: true, how: "restored" }],
    ]);
    expect(readFileSync(join(s.work, "d/x"), "utf8")).toBe("x\n");
  });

  it("a folder made a link to outside after the turn: the rewind refuses that file, puts back the others, and finishes", async () => {
    const s = await setup();
    mkdirSync(join(s.work, "sub"));
    writeFileSync(join(s.work, "sub/x"), "x\n");
    writeFileSync(join(s.work, "y"), "y\n");
    const outside = join(s.root, "outside");
    mkdirSync(outside);
    writeFileSync(join(outside, "x"), "x2\n");
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      writeFileSync(join(s.work, "sub/x"), "x2\n");
      writeFileSync(join(s.work, "y"), "y2\n");
    });
    rmSync(join(s.work, "sub"), { recursive: true });
    symlinkSync(outside, join(s.work, "sub"));
    let out;
    try {
      out = await cp.rewind(step, noBuffers, check, "rewind");
    } catch (e) {
      out = e;
    }
    expect(readFileSync(join(outside, "x"), "utf8")).toBe("x2\n");
    expect(out).toBeInstanceOf(Array);
    expect(readFileSync(join(s.work, "y"), "utf8")).toBe("y\n");
  });

  it("a large file whose name has a newline does not hide other files from snapshots", async () => {
    const s = await setup({ maxFileBytes: 100 });
    writeFileSync(join(s.work, "big\nnew.txt"), Buffer.alloc(1000, 1));
    writeFileSync(join(s.work, "small.txt"), "one\n");
    const { cp } = await s.start();
    const step = await turn(cp, 1, () => {
      writeFileSync(join(s.work, "small.txt"), "two\n");
      writeFileSync(join(s.work, "new.txt"), "new\n");
    });
    expect(step.changes.map((c) => c.path)).toEqual(["new.txt", "small.txt"]);
  });

  it("a session folder inside a repository: the root's **/ patterns still apply", async () => {
    const s = await setup();
    execFileSync("git", ["init", "-q"], { cwd: s.work });
    writeFileSync(join(s.work, ".gitignore"), "**/generated\n**/cache/*.bin\np*/out/\nother/src.txt\n");
    mkdirSync(join(s.work, "pkg/generated"), { recursive: true });
    mkdirSync(join(s.work, "pkg/cache"), { recursive: true });
    writeFileSync(join(s.work, "pkg/src.txt"), "a\n");
    const sub = join(s.work, "pkg");
    const store = new CheckpointStore({ stateDir: join(s.root, "state2"), cwd: sub, chat: "c" });
    const cp = new TurnCheckpoints(store, sub);
    const step = await turn(cp, 1, () => {
      writeFileSync(join(sub, "generated/g.txt"), "g\n");
      writeFileSync(join(sub, "cache/c.bin"), "c\n");
      mkdirSync(join(sub, "out"));
      writeFileSync(join(sub, "out/o.txt"), "o\n");
      writeFileSync(join(sub, "src.txt"), "b\n");
    });
    expect(step.changes.map((c) => c.path)).toEqual(["src.txt"]);
  });
});

describe("checkpoint pruning, hostile", () => {
  it("a chat still open (another Neovim in the same folder) is never pruned: its checkpoints keep working", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "a.txt"), "one\n");
    const state = join(s.root, "state");
    const live = new CheckpointStore({ stateDir: state, cwd: s.work, chat: "1", maxAgeDays: 0 });
    expect(await live.take("start")).toBeDefined();
    await new Promise((r) => setTimeout(r, 50));
    const other = new CheckpointStore({
      stateDir: state,
      cwd: s.work,
      chat: "2",
      maxAgeDays: 0,
      maxBytes: 1,
      pruneGraceSeconds: 0,
    });
    await other.take("start");
    expect((await other.prune()).removed).toBe(0);
    writeFileSync(join(s.work, "a.txt"), "two\n");
    const next = await live.take("later");
    expect(live.state).toEqual({ on: true });
    expect(next).toBeDefined();
    const first = live.checkpoints[0]!;
    expect((await live.fileAt(first, "a.txt")) as { bytes: Buffer }).toMatchObject({ bytes: Buffer.from("one\n") });
    // Closed, it goes at the next prune.
    await live.dispose();
    expect((await other.prune()).removed).toBe(1);
  });
});

describe("the state folder inside the session's folder", () => {
  it("(a home folder as cwd): the private repository is never snapshotted, so a rewind never touches it", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "a.txt"), "one\n");
    const state = join(s.work, ".local/state/nvim/acpchat/checkpoints");
    const store = new CheckpointStore({ stateDir: state, cwd: s.work, chat: "c" });
    const cp = new TurnCheckpoints(store, s.work);
    const boundary = new PathBoundary(s.work);
    const step = await turn(cp, 1, () => writeFileSync(join(s.work, "a.txt"), "two\n"));
    expect(step.changes.map((c) => c.path)).toEqual(["a.txt"]);
    const out = await cp.rewind(step, noBuffers, (abs) => void boundary.check(abs, "rewind"), "rewind");
    expect(out.map((o) => o.path)).toEqual(["a.txt"]);
    expect(readFileSync(join(s.work, "a.txt"), "utf8")).toBe("one\n");
    expect(store.state).toEqual({ on: true });
  });
});

describe("files over max_file_bytes", () => {
  it("one the agent created is removed by a rewind (its size is all that is known, and enough)", async () => {
    const s = await setup({ maxFileBytes: 100 });
    writeFileSync(join(s.work, "a.txt"), "one\n");
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => writeFileSync(join(s.work, "big.bin"), Buffer.alloc(1000, 7)));
    expect(step.changes).toMatchObject([{ path: "big.bin", status: "added", large: true }]);
    const out = await cp.rewind(step, noBuffers, check, "rewind");
    expect(out).toEqual([{ path: "big.bin", applied: { done: true, how: "removed" } }]);
    expect(existsSync(join(s.work, "big.bin"))).toBe(false);
  });
});

describe("a file that vanishes while a snapshot runs", () => {
  it("(an agent's temporary file, renamed away after it was listed): the snapshot still succeeds, and checkpoints stay on", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "a.txt"), "one\n");
    const { cp, store } = await s.start();
    while (cp.store.checkpoints.length === 0) await new Promise((r) => setTimeout(r, 20));
    const { PrivateGit } = await import("../../src/checkpoints/git.js");
    const run = PrivateGit.prototype.run;
    // Listed, then gone before it is stored: what an atomic write (tmp file, rename) does to a
    // snapshot taken while the agent keeps working.
    PrivateGit.prototype.run = function (
      this: InstanceType<typeof PrivateGit>,
      args: string[],
      opts?: Parameters<typeof run>[1],
    ) {
      if (args[0] === "add" || args[0] === "update-index") rmSync(join(s.work, "a.txt.tmp"), { force: true });
      return run.call(this, args, opts);
    };
    try {
      const step = await turn(cp, 1, () => {
        writeFileSync(join(s.work, "a.txt.tmp"), "two\n");
        writeFileSync(join(s.work, "b.txt"), "b\n");
      });
      expect(store.state).toEqual({ on: true });
      expect(step.changes.map((c) => c.path)).toEqual(["b.txt"]);
    } finally {
      PrivateGit.prototype.run = run;
    }
  });
});

describe("the user undid part of the agent's change by hand", () => {
  it("a rewind then puts the rest back: the same change on both sides is no conflict", async () => {
    const s = await setup();
    const orig = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    writeFileSync(join(s.work, "f.txt"), orig.join("\n") + "\n");
    const { cp, check } = await s.start();
    const agent = orig.map((l) => (l === "line 3" ? "AGENT 3" : l === "line 15" ? "AGENT 15" : l));
    const step = await turn(cp, 1, () => writeFileSync(join(s.work, "f.txt"), agent.join("\n") + "\n"));
    // The user puts line 3 back themselves, and edits line 10.
    const user = agent.map((l) => (l === "AGENT 3" ? "line 3" : l === "line 10" ? "USER 10" : l));
    writeFileSync(join(s.work, "f.txt"), user.join("\n") + "\n");
    const out = await cp.rewind(step, noBuffers, check, "rewind");
    expect(out[0]!.applied).toEqual({ done: true, how: "merged" });
    expect(readFileSync(join(s.work, "f.txt"), "utf8")).toBe(
      orig.map((l) => (l === "line 10" ? "USER 10" : l)).join("\n") + "\n",
    );
  });
});

describe("ignore files above a session folder inside a repository", () => {
  it("a nearer folder's negation wins over the root's pattern, and the repository's info/exclude applies", async () => {
    const s = await setup();
    execFileSync("git", ["init", "-q"], { cwd: s.work });
    writeFileSync(join(s.work, ".gitignore"), "*.log\n");
    writeFileSync(join(s.work, ".git/info/exclude"), "secret.txt\n");
    mkdirSync(join(s.work, "pkg/app"), { recursive: true });
    writeFileSync(join(s.work, "pkg/.gitignore"), "!keep.log\n");
    const sub = join(s.work, "pkg/app");
    writeFileSync(join(sub, "src.txt"), "a\n");
    const store = new CheckpointStore({ stateDir: join(s.root, "state2"), cwd: sub, chat: "c" });
    const cp = new TurnCheckpoints(store, sub);
    const step = await turn(cp, 1, () => {
      writeFileSync(join(sub, "keep.log"), "k\n");
      writeFileSync(join(sub, "other.log"), "o\n");
      writeFileSync(join(sub, "secret.txt"), "s\n");
    });
    // What git itself says of these files, from the repository's root.
    const ignored = execFileSync(
      "git",
      ["check-ignore", "pkg/app/keep.log", "pkg/app/other.log", "pkg/app/secret.txt"],
      { cwd: s.work, encoding: "utf8" },
    )
      .split("\n")
      .filter(Boolean);
    expect(ignored).toEqual(["pkg/app/other.log", "pkg/app/secret.txt"]);
    expect(step.changes.map((c) => c.path)).toEqual(["keep.log"]);
  });
});

describe("max_files", () => {
  it("counts the files of nested repositories too (a folder of many checkouts is refused like a home folder)", async () => {
    const s = await setup({ maxFiles: 10 });
    writeFileSync(join(s.work, "top.txt"), "t\n");
    for (const r of ["one", "two"]) {
      mkdirSync(join(s.work, r));
      execFileSync("git", ["init", "-q"], { cwd: join(s.work, r) });
      for (let i = 0; i < 8; i++) writeFileSync(join(s.work, r, `f${i}.txt`), `${i}\n`);
    }
    const store = new CheckpointStore({
      stateDir: join(s.root, "state"),
      cwd: s.work,
      chat: "c",
      limits: { maxFiles: 10 },
    });
    expect(await store.take("start")).toBeUndefined();
    expect(store.state).toMatchObject({ on: false, why: expect.stringContaining("more than 10 files") });
  });
});

describe("a rewind merged with the user's later edit stays byte-exact elsewhere", () => {
  const cases: [string, Buffer, (s: string) => string][] = [
    ["no final newline, the agent appends a line", Buffer.from("one\ntwo\nthree"), (s) => s + "\nfour"],
    ["no final newline, the agent adds it", Buffer.from("one\ntwo\nthree"), (s) => s + "\n"],
    ["CRLF with a BOM", Buffer.from("\ufeffone\r\ntwo\r\nthree\r\n"), (s) => s.replace("three", "THREE")],
    ["Latin-1", Buffer.from("caf\xe9\ntwo\nthree\n", "latin1"), (s) => s.replace("three", "THREE")],
  ];
  for (const [name, bytes, agentEdit] of cases) {
    it(name, async () => {
      const s = await setup();
      writeFileSync(join(s.work, "f.txt"), bytes);
      const { cp, check } = await s.start();
      const latin = name === "Latin-1";
      const enc = latin ? "latin1" : "utf8";
      const step = await turn(cp, 1, () =>
        writeFileSync(join(s.work, "f.txt"), Buffer.from(agentEdit(bytes.toString(enc)), enc)),
      );
      // The user edits the first line afterwards.
      const now = readFileSync(join(s.work, "f.txt")).toString(enc);
      writeFileSync(join(s.work, "f.txt"), Buffer.from(now.replace(/one|caf\xe9/, "USER"), enc));
      const out = await cp.rewind(step, noBuffers, check, "rewind");
      expect(out[0]!.applied).toMatchObject({ done: true });
      expect(readFileSync(join(s.work, "f.txt"))).toEqual(
        Buffer.from(bytes.toString(enc).replace(/one|caf\xe9/, "USER"), enc),
      );
    });
  }
});

describe("file names git and ignore files treat specially", () => {
  it("a dash first, a line break, trailing spaces, glob characters, a backslash, non-ASCII: recorded and put back", async () => {
    const s = await setup({ maxFileBytes: 50 });
    const names = ["-rf", "a\nb", "trail  ", "*?[x]", "back\\slash", "ünï cödé", "#hash", "!bang"];
    for (const n of names) writeFileSync(join(s.work, n), `${n}\n`);
    writeFileSync(join(s.work, "big *?[x]"), Buffer.alloc(100, 1));
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      for (const n of names) writeFileSync(join(s.work, n), `changed ${n}\n`);
      writeFileSync(join(s.work, "bigger"), "new\n");
    });
    expect(step.changes.map((c) => c.path).sort()).toEqual([...names, "bigger"].sort());
    const out = await cp.rewind(step, noBuffers, check, "rewind");
    expect(out.filter((o) => !o.applied.done)).toEqual([]);
    for (const n of names) expect(readFileSync(join(s.work, n), "utf8")).toBe(`${n}\n`);
    expect(existsSync(join(s.work, "bigger"))).toBe(false);
  });
});

describe("taking back one hunk where the agent also changed the final newline", () => {
  for (const [which, want] of [
    [0, "a\nb\nc\nd\ne\nf\ng\nh\nI\n"],
    [1, "A\nb\nc\nd\ne\nf\ng\nh\ni"],
  ] as const) {
    it(`hunk ${which}`, async () => {
      const s = await setup();
      writeFileSync(join(s.work, "f.txt"), "a\nb\nc\nd\ne\nf\ng\nh\ni");
      const { cp, check } = await s.start();
      const step = await turn(cp, 1, () => writeFileSync(join(s.work, "f.txt"), "A\nb\nc\nd\ne\nf\ng\nh\nI\n"));
      const h = await cp.hunks(step, "f.txt");
      expect(h!.hunks).toHaveLength(2);
      const out = await cp.takeBack(step, "f.txt", [which], noBuffers, check);
      expect(out[0]!.applied.done).toBe(true);
      expect(readFileSync(join(s.work, "f.txt"), "utf8")).toBe(want);
    });
  }
});

describe("a rewind of many files", () => {
  it("250 files (read as whole trees), a link and an executable among them: all put back, fast", async () => {
    const s = await setup();
    for (let i = 0; i < 250; i++) writeFileSync(join(s.work, `f${i}.txt`), `file ${i}\n`.repeat(20));
    symlinkSync("f1.txt", join(s.work, "link"));
    writeFileSync(join(s.work, "run.sh"), "#!/bin/sh\n");
    chmodSync(join(s.work, "run.sh"), 0o755);
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      for (let i = 0; i < 250; i++) writeFileSync(join(s.work, `f${i}.txt`), `changed ${i}\n`);
      rmSync(join(s.work, "link"));
      symlinkSync("f2.txt", join(s.work, "link"));
      writeFileSync(join(s.work, "run.sh"), "#!/bin/sh\necho\n");
    });
    // CPU with git's (test/support/cpu-time.ts): one git per file would cost seconds of it.
    const t0 = cpuWithChildrenMs();
    const out = await cp.rewind(step, noBuffers, check, "rewind");
    const ms = cpuWithChildrenMs() - t0;
    expect(out.filter((o) => !o.applied.done)).toEqual([]);
    for (let i = 0; i < 250; i++)
      expect(readFileSync(join(s.work, `f${i}.txt`), "utf8")).toBe(`file ${i}\n`.repeat(20));
    expect(readlinkSync(join(s.work, "link"))).toBe("f1.txt");
    expect(lstatSync(join(s.work, "run.sh")).mode & 0o777).toBe(0o755);
    expect(readFileSync(join(s.work, "run.sh"), "utf8")).toBe("#!/bin/sh\n");
    expect(ms).toBeLessThan(3000);
  });
});

describe("a hostile .gitattributes", () => {
  it("eol conversion, a filter, an encoding and ident change no byte of what a rewind puts back", async () => {
    const s = await setup();
    execFileSync("git", ["init", "-q"], { cwd: s.work });
    execFileSync("git", ["config", "filter.evil.clean", "sh -c 'touch EVIL-RAN; cat'"], { cwd: s.work });
    writeFileSync(
      join(s.work, ".gitattributes"),
      "* text eol=crlf ident\n*.txt filter=evil\n*.u16 working-tree-encoding=UTF-16\n",
    );
    const files: Record<string, Buffer> = {
      "a.txt": Buffer.from("lf only\nsecond\n$Id$\n"),
      "b.dat": Buffer.from("mixed\r\nends\nhere"),
      "c.u16": Buffer.from("not utf-16 at all\n"),
    };
    for (const [n, b] of Object.entries(files)) writeFileSync(join(s.work, n), b);
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      for (const n of Object.keys(files)) writeFileSync(join(s.work, n), "changed\n");
    });
    await cp.rewind(step, noBuffers, check, "rewind");
    for (const [n, b] of Object.entries(files)) expect(readFileSync(join(s.work, n))).toEqual(b);
    expect(existsSync(join(s.work, "EVIL-RAN"))).toBe(false);
  });
});

describe("a prompt sent while a rewind runs", () => {
  it("its turn starts after the rewind: the rewind's changes are not counted as the agent's", async () => {
    const s = await setup();
    for (let i = 0; i < 150; i++) writeFileSync(join(s.work, `f${i}.txt`), `file ${i}\n`);
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      for (let i = 0; i < 150; i++) writeFileSync(join(s.work, `f${i}.txt`), `agent ${i}\n`);
    });
    const rewinding = cp.rewind(step, noBuffers, check, "rewind");
    await new Promise((r) => setTimeout(r, 30));
    // The user's next prompt, while the rewind writes files; its agent changes nothing.
    const next = await cp.beginTurn(2);
    await rewinding;
    const changes = await cp.endTurn(next);
    expect(changes.map((c) => c.path)).toEqual([]);
  });
});

describe("a linked worktree (its .git is a file)", () => {
  it("the repository's info/exclude applies there too", async () => {
    const s = await setup();
    const main = join(s.root, "main");
    mkdirSync(main);
    const g = (cwd: string, ...a: string[]) =>
      execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", ...a], { cwd, stdio: "pipe" });
    g(main, "init", "-q");
    writeFileSync(join(main, "a.txt"), "a\n");
    g(main, "add", "-A");
    g(main, "commit", "-qm", "a");
    writeFileSync(join(main, ".git/info/exclude"), "secret.txt\n");
    const wt = join(s.root, "wt");
    g(main, "worktree", "add", "-q", wt);
    const store = new CheckpointStore({ stateDir: join(s.root, "state"), cwd: wt, chat: "c" });
    const cp = new TurnCheckpoints(store, wt);
    const step = await turn(cp, 1, () => {
      writeFileSync(join(wt, "secret.txt"), "s\n");
      writeFileSync(join(wt, "a.txt"), "b\n");
    });
    expect(execFileSync("git", ["check-ignore", "secret.txt"], { cwd: wt, encoding: "utf8" }).trim()).toBe(
      "secret.txt",
    );
    expect(step.changes.map((c) => c.path)).toEqual(["a.txt"]);
  });
});

describe("pruning other folders' checkpoints", () => {
  it("a folder never opened again loses its repository once its chats are old, unless one is open", async () => {
    const s = await setup();
    const state = join(s.root, "state");
    const other = join(s.root, "other");
    const third = join(s.root, "third");
    mkdirSync(other);
    mkdirSync(third);
    writeFileSync(join(other, "o.txt"), "o\n");
    writeFileSync(join(third, "t.txt"), "t\n");
    const closed = new CheckpointStore({ stateDir: state, cwd: other, chat: "1" });
    await closed.take("start");
    await closed.dispose();
    const open = new CheckpointStore({ stateDir: state, cwd: third, chat: "1" });
    await open.take("start");
    await new Promise((r) => setTimeout(r, 50));
    expect(readdirSync(state)).toHaveLength(2);
    writeFileSync(join(s.work, "w.txt"), "w\n");
    const now = new CheckpointStore({ stateDir: state, cwd: s.work, chat: "2", maxAgeDays: 0 });
    await now.take("start");
    await now.prune();
    const left = readdirSync(state)
      .map((p) => readFileSync(join(state, p, "folder"), "utf8").trim())
      .sort();
    expect(left).toEqual([s.work, third].sort());
  });
});

describe("max_files after the first snapshot", () => {
  it("an agent that makes the folder too large (npm install with no .gitignore yet): checkpoints go off, nothing hashed past the limit", async () => {
    const s = await setup({ maxFiles: 10 });
    writeFileSync(join(s.work, "package.json"), "{}\n");
    const { cp, store } = await s.start();
    await turn(cp, 1, () => {
      mkdirSync(join(s.work, "node_modules/x"), { recursive: true });
      for (let i = 0; i < 30; i++) writeFileSync(join(s.work, "node_modules/x", `f${i}.js`), `${i}\n`);
    });
    expect(store.state).toMatchObject({ on: false, why: expect.stringContaining("more than 10 files") });
  });
});

describe("a file already as the rewind would leave it", () => {
  it("created by the agent and removed by the user since: nothing to do, no conflict", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "keep.txt"), "k\n");
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => writeFileSync(join(s.work, "new.bin"), Buffer.from([0, 1, 2])));
    rmSync(join(s.work, "new.bin"));
    const out = await cp.rewind(step, noBuffers, check, "rewind");
    expect(out).toEqual([{ path: "new.bin", applied: { done: true, how: "restored" } }]);
  });
});

describe("file modes git does not keep", () => {
  it("a private file (0600) the agent changed stays private after the rewind", async () => {
    const s = await setup();
    writeFileSync(join(s.work, ".env"), "TOKEN=1\n");
    chmodSync(join(s.work, ".env"), 0o600);
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => writeFileSync(join(s.work, ".env"), "TOKEN=2\n"));
    await cp.rewind(step, noBuffers, check, "rewind");
    expect(readFileSync(join(s.work, ".env"), "utf8")).toBe("TOKEN=1\n");
    expect(lstatSync(join(s.work, ".env")).mode & 0o777).toBe(0o600);
  });
});

describe("the private repository holds copies of the user's files", () => {
  it("so only its owner can read it (a 0600 key's copy is not left readable by others)", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "id_key"), "SECRET\n");
    chmodSync(join(s.work, "id_key"), 0o600);
    const state = join(s.root, "state");
    const store = new CheckpointStore({ stateDir: state, cwd: s.work, chat: "c" });
    await store.take("start");
    for (const d of [state, join(state, readdirSync(state)[0]!)]) expect(lstatSync(d).mode & 0o077).toBe(0);
  });
});

describe("two chats in the same folder", () => {
  it("one chat's rewind waits while the other's turn runs (its agent may be writing the same files)", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "f.txt"), "one\n");
    const a = await s.start();
    const step = await turn(a.cp, 1, () => writeFileSync(join(s.work, "f.txt"), "two\n"));
    const bStore = new CheckpointStore({ stateDir: join(s.root, "state"), cwd: s.work, chat: "b" });
    const b = new TurnCheckpoints(bStore, s.work);
    while (bStore.checkpoints.length === 0) await new Promise((r) => setTimeout(r, 20));
    const running = await b.beginTurn(1);
    await expect(a.cp.rewind(step, noBuffers, a.check, "rewind")).rejects.toThrow(/a turn is running/);
    expect(await b.endTurn(running)).toEqual([]);
  });
});

describe("a file replaced by something git cannot store", () => {
  it("(a fifo or socket where a file was): recorded as gone, checkpoints stay on", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "app.sock"), "was a file\n");
    writeFileSync(join(s.work, "b.txt"), "b\n");
    const { cp, store } = await s.start();
    const step = await turn(cp, 1, () => {
      rmSync(join(s.work, "app.sock"));
      execFileSync("mkfifo", [join(s.work, "app.sock")]);
      writeFileSync(join(s.work, "b.txt"), "c\n");
    });
    expect(store.state).toEqual({ on: true });
    expect(step.changes.map((c) => [c.path, c.status])).toEqual([
      ["app.sock", "deleted"],
      ["b.txt", "modified"],
    ]);
    // The rewind replaces the fifo (writing into it would block the host for ever).
    await cp.rewind(step, noBuffers, (abs) => void new PathBoundary(s.work).check(abs, "rewind"), "rewind");
    expect(readFileSync(join(s.work, "app.sock"), "utf8")).toBe("was a file\n");
  }, 10_000);
});

describe("the note to the agent after a large rewind", () => {
  it("stays short: some of the files by name, the rest counted", async () => {
    const s = await setup();
    for (let i = 0; i < 200; i++)
      writeFileSync(join(s.work, `some/long/folder/name/file-number-${i}.txt`.replace(/\//g, "_")), `${i}\n`);
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      for (let i = 0; i < 200; i++)
        writeFileSync(join(s.work, `some/long/folder/name/file-number-${i}.txt`.replace(/\//g, "_")), `changed ${i}\n`);
    });
    await cp.rewind(step, noBuffers, check, "rewind to before turn 1");
    const note = cp.takeNotes()!;
    expect(note.length).toBeLessThan(2500);
    expect(note).toContain("and 170 more");
  });
});

describe("a renamed and edited file", () => {
  const orig = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  const edited = orig.map((l) => (l === "line 3" ? "AGENT 3" : l === "line 15" ? "AGENT 15" : l));
  it("one hunk taken back: the new name keeps the other; the rewind of the turn brings the old name back", async () => {
    const s = await setup();
    writeFileSync(join(s.work, "old.txt"), orig.join("\n") + "\n");
    const { cp, check } = await s.start();
    const step = await turn(cp, 1, () => {
      rmSync(join(s.work, "old.txt"));
      writeFileSync(join(s.work, "new.txt"), edited.join("\n") + "\n");
    });
    expect(step.changes).toMatchObject([{ path: "new.txt", status: "renamed", from: "old.txt" }]);
    await cp.takeBack(step, "new.txt", [0], noBuffers, check);
    expect(readFileSync(join(s.work, "new.txt"), "utf8")).toBe(
      edited.map((l) => (l === "AGENT 3" ? "line 3" : l)).join("\n") + "\n",
    );
    // The whole change now: the rewind of the turn (which undoes the take-back too).
    await cp.rewind(step, noBuffers, check, "rewind");
    expect(existsSync(join(s.work, "new.txt"))).toBe(false);
    expect(readFileSync(join(s.work, "old.txt"), "utf8")).toBe(orig.join("\n") + "\n");
  });
});
