/**
 * A snapshot of a folder that did not change since the last one is that one again, found
 * without running git (src/checkpoints/quiet.ts): every prompt waits for its turn's start
 * snapshot. Any change a snapshot stores still makes a real one, the sly ones included: the
 * same size and an mtime set back, a mode, a removal, a rename, a new empty folder's file.
 */
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CheckpointStore, type Checkpoint } from "../../src/checkpoints/store.js";
import { QUIET_MAX_ENTRIES, QUIET_SLACK_MS, unchangedSince } from "../../src/checkpoints/quiet.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A folder, its state folder, and a git that counts its runs (a line per run in `log`). */
function setup(): { work: string; state: string; git: string; runs: () => number } {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-cpquiet-")));
  made.push(d);
  mkdirSync(join(d, "work"));
  const log = join(d, "runs.log");
  writeFileSync(log, "");
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const git = join(d, "git");
  writeFileSync(git, `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  const runs = () => readFileSync(log, "utf8").split("\n").filter(Boolean).length;
  return { work: join(d, "work"), state: join(d, "state"), git, runs };
}

let chats = 0;
async function storeOf(s: ReturnType<typeof setup>): Promise<CheckpointStore> {
  const store = new CheckpointStore({ stateDir: s.state, cwd: s.work, chat: `q${++chats}`, git: s.git });
  expect(await store.ready).toEqual({ on: true });
  return store;
}

async function take(s: CheckpointStore, label = "x"): Promise<Checkpoint> {
  const cp = await s.take(label);
  if (!cp) throw new Error(`no checkpoint: ${JSON.stringify(s.state)}`);
  return cp;
}

/** Past the clock slack: a change made now is after the last snapshot's start by more than it. */
const settle = () => new Promise((r) => setTimeout(r, QUIET_SLACK_MS + 50));

describe("checkpoints of an unchanged folder", () => {
  it("a second snapshot of an unchanged folder runs no git and is the same tree; an ignored file's change keeps it so", async () => {
    const s = setup();
    writeFileSync(join(s.work, ".gitignore"), "*.log\n");
    writeFileSync(join(s.work, "a.txt"), "one\n");
    mkdirSync(join(s.work, "src"));
    writeFileSync(join(s.work, "src", "b.txt"), "two\n");
    writeFileSync(join(s.work, "build.log"), "x\n");
    const store = await storeOf(s);
    const first = await take(store);
    await settle();
    const before = s.runs();
    const again = await take(store);
    expect(s.runs()).toBe(before);
    expect(again.tree).toBe(first.tree);
    expect(again.n).toBe(first.n + 1);
    // The ignored log grows (the folder's entries stay): still no git.
    writeFileSync(join(s.work, "build.log"), "x\ny\n");
    expect((await take(store)).tree).toBe(first.tree);
    expect(s.runs()).toBe(before);
  });

  it("every kind of change after the last snapshot makes a real one: same size with the mtime set back, a mode, a removal, a rename, a file in a new folder", async () => {
    const s = setup();
    writeFileSync(join(s.work, "a.txt"), "one\n");
    writeFileSync(join(s.work, "b.txt"), "two\n");
    const store = await storeOf(s);
    let last = await take(store);
    const changes: [string, () => void][] = [
      [
        "same size, mtime set back",
        () => {
          const st = statSync(join(s.work, "a.txt"));
          writeFileSync(join(s.work, "a.txt"), "ONE\n");
          utimesSync(join(s.work, "a.txt"), st.atime, st.mtime);
        },
      ],
      ["a mode", () => chmodSync(join(s.work, "a.txt"), 0o755)],
      ["a removal", () => unlinkSync(join(s.work, "b.txt"))],
      ["a rename", () => renameSync(join(s.work, "a.txt"), join(s.work, "c.txt"))],
      [
        "a file in a new folder",
        () => {
          mkdirSync(join(s.work, "new"));
          writeFileSync(join(s.work, "new", "d.txt"), "four\n");
        },
      ],
    ];
    for (const [what, change] of changes) {
      await settle();
      change();
      const cp = await take(store);
      expect(cp.tree, what).not.toBe(last.tree);
      expect((await store.changes(last, cp)).length, what).toBeGreaterThan(0);
      last = cp;
    }
  });

  it("a change made while the snapshot before it listed is caught by the next (its time is after that start)", async () => {
    const s = setup();
    writeFileSync(join(s.work, "a.txt"), "one\n");
    const store = await storeOf(s);
    const first = await take(store);
    await settle();
    // Asked for, and the file written before the walk or git looks: caught either way.
    const p = store.take("during");
    writeFileSync(join(s.work, "a.txt"), "two\n");
    await p;
    const after = await take(store, "after");
    expect(await store.fileAt(after, "a.txt")).toMatchObject({ kind: "file", bytes: Buffer.from("two\n") });
    expect(after.tree).not.toBe(first.tree);
  });

  it(`a folder of more than ${QUIET_MAX_ENTRIES.toLocaleString("en")} entries is not walked again: git lists it`, async () => {
    const s = setup();
    for (let d = 0; d < 60; d++) {
      mkdirSync(join(s.work, `d${d}`));
      for (let i = 0; i < 90; i++) writeFileSync(join(s.work, `d${d}`, `f${i}`), "");
    }
    const store = await storeOf(s);
    const first = await take(store);
    await settle();
    let before = s.runs();
    expect((await take(store)).tree).toBe(first.tree);
    expect(s.runs()).toBeGreaterThan(before);
    before = s.runs();
    expect((await take(store)).tree).toBe(first.tree);
    expect(s.runs()).toBeGreaterThan(before);
  });
});

describe("when ctimes cannot be trusted, the walk says changed", () => {
  it("a wall clock set back since the last snapshot began (NTP, a restored VM): changed, not unchanged", async () => {
    const d = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-cpquiet-")));
    made.push(d);
    writeFileSync(join(d, "a.txt"), "a\n");
    const walk = { root: d, skip: () => false };
    // Long after every ctime here, and not in the future: unchanged.
    await new Promise((r) => setTimeout(r, QUIET_SLACK_MS + 50));
    expect(await unchangedSince(walk, Date.now())).toBe("unchanged");
    // "Since" a moment the clock has not reached yet: the clock stepped back.
    expect(await unchangedSince(walk, Date.now() + 60_000)).toBe("changed");
  });
});
