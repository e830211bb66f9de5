/**
 * Hostile classes against the real store and a real git: a folder swapped for a
 * link between the check and the write, hard links, ignored files the agent un-ignores, the
 * first turn before the first snapshot is done, a slow git, a rewind's buffer half undone, and
 * FIFOs where the store reads small files.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  chmodSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import type { LiveFiles } from "../../src/checkpoints/apply.js";
import { CheckpointStore } from "../../src/checkpoints/store.js";
import { TurnCheckpoints } from "../../src/checkpoints/turns.js";
import type { Text } from "../../src/workspace/text-codec.js";
import { PathBoundary } from "../../src/workspace/path-boundary.js";

const noBuffers: LiveFiles = {
  buffer: async () => undefined,
  setBuffer: async () => "changed",
  reload: async () => undefined,
};

function setup(opts: { git?: string; gitTimeoutMs?: number } = {}) {
  const root = mkdtempSync(join(tmpdir(), "acpchat-races-"));
  const work = join(root, "work");
  mkdirSync(work);
  return {
    root,
    work,
    start: () => {
      const store = new CheckpointStore({ stateDir: join(root, "state"), cwd: work, chat: "c", ...opts });
      const cp = new TurnCheckpoints(store, work);
      const boundary = new PathBoundary(work);
      return { store, cp, check: (abs: string) => void boundary.check(abs, "rewind") };
    },
  };
}

async function turn(cp: TurnCheckpoints, n: number, act: () => void, waitFirst = true) {
  // (The first-turn test sends its prompt at once; the others test something else.)
  while (waitFirst && cp.store.checkpoints.length === 0) await new Promise((r) => setTimeout(r, 20));
  const step = await cp.beginTurn(n);
  act();
  await cp.endTurn(step);
  return step;
}

/** Every object of the private repository, as text (what the store keeps). */
function storedText(root: string): string {
  const state = join(root, "state");
  const project = execFileSync("ls", [state], { encoding: "utf8" }).trim().split("\n")[0]!;
  return execFileSync("git", ["cat-file", "--batch-all-objects", "--batch"], {
    env: { ...process.env, GIT_DIR: join(state, project, "git") },
    encoding: "latin1",
    maxBuffer: 64 * 1024 * 1024,
  });
}

const lines = (s: string): Text => ({ lines: s.split("\n").slice(0, -1), eol: true });
const textOf = (t: Text) => t.lines.join("\n") + (t.eol ? "\n" : "");

describe("checkpoints, races and links", () => {
  it("a folder swapped for a link to outside while the rewind asks the editor: nothing is written outside", async () => {
    const s = setup();
    const outside = join(s.root, "outside");
    mkdirSync(outside);
    mkdirSync(join(s.work, "sub"));
    const text = (first: string, last: string) => `${first}\n2\n3\n4\n5\n6\n${last}\n`;
    for (let i = 0; i < 5; i++) writeFileSync(join(s.work, "sub", `f${i}`), text("old", "old"));
    const { cp, check } = s.start();
    const step = await turn(cp, 1, () => {
      for (let i = 0; i < 5; i++) writeFileSync(join(s.work, "sub", `f${i}`), text("agent", "old"));
    });
    // The user's own edit below the agent's: each file is a three-way merge.
    for (let i = 0; i < 5; i++) writeFileSync(join(s.work, "sub", `f${i}`), text("agent", "user"));
    for (let i = 0; i < 5; i++) writeFileSync(join(outside, `f${i}`), `outside ${i}\n`);
    // The agent flips the folder during the round trip to Neovim of the first write (after the
    // five files' plans are made, each of which asks for its buffer too).
    let flipped = false;
    let calls = 0;
    const live: LiveFiles = {
      ...noBuffers,
      buffer: async () => {
        if (++calls === 6) {
          flipped = true;
          renameSync(join(s.work, "sub"), join(s.root, "moved-sub"));
          symlinkSync(outside, join(s.work, "sub"));
        }
        return undefined;
      },
    };
    const out = await cp.rewind(step, live, check, "rewind");
    expect(flipped).toBe(true);
    for (let i = 0; i < 5; i++) expect(readFileSync(join(outside, `f${i}`), "utf8")).toBe(`outside ${i}\n`);
    expect(out.every((o) => !o.applied.done)).toBe(true);
  });

  it("a file replaced by a hard link to a file outside: the rewind replaces the entry, the outside file keeps its text and mode", async () => {
    const s = setup();
    writeFileSync(join(s.work, "f"), "project text\n");
    chmodSync(join(s.work, "f"), 0o640);
    const secret = join(s.root, "secret");
    writeFileSync(secret, "private key\n");
    chmodSync(secret, 0o600);
    const { cp, check } = s.start();
    // The agent's turn: `rm f && ln ~/secret f`.
    const step = await turn(cp, 1, () => {
      rmSync(join(s.work, "f"));
      linkSync(secret, join(s.work, "f"));
    });
    const out = await cp.rewind(step, noBuffers, check, "rewind");
    expect(out.map((o) => o.applied)).toEqual([{ done: true, how: "restored" }]);
    expect(readFileSync(secret, "utf8")).toBe("private key\n");
    expect(statSync(secret).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(s.work, "f"), "utf8")).toBe("project text\n");
    expect(statSync(join(s.work, "f")).nlink).toBe(1);
  });

  it("a restore keeps the mode of the project's file it replaces, and leaves no temporary file", async () => {
    const s = setup();
    writeFileSync(join(s.work, "f"), "one\n");
    chmodSync(join(s.work, "f"), 0o600);
    const { cp, check } = s.start();
    const step = await turn(cp, 1, () => writeFileSync(join(s.work, "f"), "two\n"));
    await cp.rewind(step, noBuffers, check, "rewind");
    expect(readFileSync(join(s.work, "f"), "utf8")).toBe("one\n");
    expect(lstatSync(join(s.work, "f")).mode & 0o777).toBe(0o600);
    expect(execFileSync("ls", ["-a", s.work], { encoding: "utf8" }).split("\n").filter(Boolean).sort()).toEqual([
      ".",
      "..",
      "f",
    ]);
  });

  it("an agent that rewrites .gitignore: the user's ignored .env survives the rewind and is never stored", async () => {
    const s = setup();
    writeFileSync(join(s.work, ".gitignore"), ".env\n");
    writeFileSync(join(s.work, ".env"), "API_KEY=sk-very-secret-1234\n");
    writeFileSync(join(s.work, "a.txt"), "a\n");
    const { cp, check } = s.start();
    const step = await turn(cp, 1, () => {
      writeFileSync(join(s.work, ".gitignore"), "node_modules\n");
      writeFileSync(join(s.work, "a.txt"), "a2\n");
    });
    expect(step.changes.map((c) => c.path).sort()).toEqual([".gitignore", "a.txt"]);
    // A later turn too: what was ignored once stays out of this chat's snapshots.
    await turn(cp, 2, () => writeFileSync(join(s.work, "a.txt"), "a3\n"));
    await cp.rewind(step, noBuffers, check, "rewind");
    expect(readFileSync(join(s.work, ".env"), "utf8")).toBe("API_KEY=sk-very-secret-1234\n");
    expect(readFileSync(join(s.work, ".gitignore"), "utf8")).toBe(".env\n");
    expect(storedText(s.root)).not.toContain("sk-very-secret-1234");
  });

  it("a file ignored under a negation the agent writes ('!.env') stays out too", async () => {
    const s = setup();
    writeFileSync(join(s.work, ".gitignore"), "*.env\n");
    writeFileSync(join(s.work, "prod.env"), "TOKEN=tok-very-secret-5678\n");
    const { cp, check } = s.start();
    const step = await turn(cp, 1, () => writeFileSync(join(s.work, ".gitignore"), "!prod.env\n"));
    await cp.rewind(step, noBuffers, check, "rewind");
    expect(readFileSync(join(s.work, "prod.env"), "utf8")).toBe("TOKEN=tok-very-secret-5678\n");
    expect(storedText(s.root)).not.toContain("tok-very-secret-5678");
  });

  it("the first turn before the first snapshot is done (a slow git): its changes are recorded", async () => {
    const slow = join(mkdtempSync(join(tmpdir(), "acpchat-slowgit-")), "git");
    writeFileSync(slow, '#!/bin/sh\nsleep 0.3\nexec git "$@"\n');
    chmodSync(slow, 0o755);
    const s = setup({ git: slow });
    writeFileSync(join(s.work, "a.txt"), "before\n");
    const { cp } = s.start();
    // No wait for the first snapshot: the prompt goes at once.
    const step = await turn(cp, 1, () => writeFileSync(join(s.work, "a.txt"), "after\n"), false);
    expect(step.changes.map((c) => c.path)).toEqual(["a.txt"]);
  }, 60_000);

  it("a git call that hangs times out: the snapshot fails and says so", async () => {
    const hang = join(mkdtempSync(join(tmpdir(), "acpchat-hanggit-")), "git");
    writeFileSync(hang, '#!/bin/sh\ncase "$*" in *ls-files*) exec sleep 30;; esac\nexec git "$@"\n');
    chmodSync(hang, 0o755);
    const s = setup({ git: hang, gitTimeoutMs: 500 });
    const { store } = s.start();
    const t0 = Date.now();
    expect(await store.take("x")).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(store.state).toMatchObject({ on: false });
    expect((store.state as { why: string }).why).toMatch(/timed out/);
  }, 30_000);

  it(":AcpChatRewind undo puts back what the rewind merged into a buffer with unsaved edits", async () => {
    const s = setup();
    writeFileSync(join(s.work, "a.txt"), "one\ntwo\nthree\n");
    writeFileSync(join(s.work, "b.txt"), "b\n");
    const { cp, check } = s.start();
    const step = await turn(cp, 1, () => {
      writeFileSync(join(s.work, "a.txt"), "ONE\ntwo\nthree\n");
      writeFileSync(join(s.work, "b.txt"), "B\n");
    });
    // The user's buffer of a.txt: the agent's text plus an unsaved line.
    const bufs = new Map<string, { modified: boolean; text: Text; tick: number }>();
    bufs.set(join(s.work, "a.txt"), { modified: true, text: lines("ONE\ntwo\nthree\nmine\n"), tick: 1 });
    const live: LiveFiles = {
      buffer: async (p) => bufs.get(p),
      setBuffer: async (p, tick, _from, text, save) => {
        const b = bufs.get(p);
        if (!b || b.tick !== tick) return "changed";
        bufs.set(p, { modified: !save, text, tick: tick + 1 });
        if (save) writeFileSync(p, textOf(text));
        return "done";
      },
      reload: async () => undefined,
    };
    await cp.rewind(step, live, check, "rewind to before turn 1");
    expect(textOf(bufs.get(join(s.work, "a.txt"))!.text)).toBe("one\ntwo\nthree\nmine\n");
    expect(readFileSync(join(s.work, "b.txt"), "utf8")).toBe("b\n");
    const last = [...cp.steps].reverse().find((x) => x.kind === "rewind" && x.end)!;
    expect(cp.rewindPlan(last).map((p) => p.path)).toEqual(["a.txt", "b.txt"]);
    const out = await cp.rewind(last, live, check, "undo of the rewind");
    expect(out.map((o) => [o.path, o.applied.done])).toEqual([
      ["a.txt", true],
      ["b.txt", true],
    ]);
    expect(textOf(bufs.get(join(s.work, "a.txt"))!.text)).toBe("ONE\ntwo\nthree\nmine\n");
    expect(readFileSync(join(s.work, "b.txt"), "utf8")).toBe("B\n");
  });
});

describe("checkpoints, FIFOs where small files are read", () => {
  it("a FIFO named .git in the folder or a folder above does not hang the host", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-fifo-"));
    const bundle = join(dir, "store.mjs");
    await build({
      entryPoints: [join(import.meta.dirname, "..", "..", "src", "checkpoints", "store.ts")],
      bundle: true,
      platform: "node",
      format: "esm",
      outfile: bundle,
      logLevel: "silent",
      banner: { js: 'import { createRequire } from "node:module"; const require = createRequire(import.meta.url);' },
    });
    const root = join(dir, "root");
    mkdirSync(join(root, "work", "sub"), { recursive: true });
    execFileSync("mkfifo", [join(root, ".git")]);
    execFileSync("mkfifo", [join(root, "work", ".git")]);
    writeFileSync(join(root, "work", "sub", "a.txt"), "a\n");
    const script = `
      import { CheckpointStore } from ${JSON.stringify(bundle)};
      for (const cwd of [${JSON.stringify(join(root, "work"))}, ${JSON.stringify(join(root, "work", "sub"))}]) {
        const store = new CheckpointStore({ stateDir: ${JSON.stringify(join(dir, "state"))}, cwd, chat: "c" });
        const cp = await store.take("x");
        if (!cp) throw new Error("no snapshot: " + JSON.stringify(store.state));
      }
      console.log("done");
    `;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: join(import.meta.dirname, "..", ".."),
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(out.trim()).toBe("done");
  }, 40_000);
});

describe("checkpoints, a folder flipped to a link while a rewind writes", () => {
  it("an agent process flipping the folder to a link to outside, again and again: nothing is written outside", async () => {
    const s = setup();
    const outside = join(s.root, "outside");
    mkdirSync(outside);
    mkdirSync(join(s.work, "sub"));
    const text = (i: number, first: string, last: string) => `${first} ${i}\n2\n3\n4\n5\n6\n${last}\n`;
    for (let i = 0; i < 40; i++) writeFileSync(join(s.work, "sub", `f${i}`), text(i, "old", "old"));
    const { cp, check } = s.start();
    const step = await turn(cp, 1, () => {
      for (let i = 0; i < 40; i++) writeFileSync(join(s.work, "sub", `f${i}`), text(i, "agent", "old"));
    });
    // The user's edits below the agent's (each file a three-way merge); outside, the same text.
    for (let i = 0; i < 40; i++) writeFileSync(join(s.work, "sub", `f${i}`), text(i, "agent", "user"));
    for (let i = 0; i < 40; i++) writeFileSync(join(outside, `f${i}`), text(i, "agent", "user"));
    // The agent's daemon: sub is a link to outside half of the time.
    const flipper = spawn(
      "sh",
      [
        "-c",
        'cd "$1" && while :; do mv sub sub.real && ln -s "$2" sub && rm sub && mv sub.real sub; done',
        "sh",
        s.work,
        outside,
      ],
      { stdio: "ignore" },
    );
    try {
      await new Promise((r) => setTimeout(r, 50));
      // Each question to the editor takes a round trip, as with Neovim.
      const roundTrip: LiveFiles = {
        ...noBuffers,
        buffer: () => new Promise((r) => setTimeout(() => r(undefined), 3)),
      };
      await cp.rewind(step, roundTrip, check, "rewind");
    } finally {
      flipper.kill("SIGKILL");
      await new Promise((r) => flipper.once("exit", r));
    }
    for (let i = 0; i < 40; i++) expect(readFileSync(join(outside, `f${i}`), "utf8")).toBe(text(i, "agent", "user"));
    expect(execFileSync("ls", ["-A", outside], { encoding: "utf8" }).split("\n").filter(Boolean)).toHaveLength(40);
  }, 60_000);
});
