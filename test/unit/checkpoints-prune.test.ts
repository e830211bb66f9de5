/**
 * Pruning the private checkpoint repository (src/checkpoints/store.ts): old chats' refs and
 * folders go by age and by size, never the running chat's, and their objects with them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CheckpointStore } from "../../src/checkpoints/store.js";

function refs(gitDir: string): string[] {
  return execFileSync("git", ["--git-dir", gitDir, "for-each-ref", "--format=%(refname)", "refs/acpchat/"], {
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
}

describe("checkpoint pruning", () => {
  it("by age: an older chat's refs, folder and objects go; the running chat's stay", async () => {
    const root = mkdtempSync(join(tmpdir(), "acpchat-prune-"));
    const work = join(root, "work");
    mkdirSync(work);
    writeFileSync(join(work, "a.txt"), "first chat's file\n");
    const state = join(root, "state");
    const old = new CheckpointStore({ stateDir: state, cwd: work, chat: "1" });
    const first = await old.take("start");
    expect(first).toBeDefined();
    await new Promise((r) => setTimeout(r, 50));
    const project = readdirSync(state)[0]!;
    const gitDir = join(state, project, "git");
    await new Promise((r) => setTimeout(r, 100)); // its ref is written off the waiting path
    expect(refs(gitDir)).toHaveLength(1);
    await old.dispose(); // closed: its checkpoints may go
    writeFileSync(join(work, "b.txt"), "second chat's file\n");
    const now = new CheckpointStore({ stateDir: state, cwd: work, chat: "2", maxAgeDays: 0, pruneGraceSeconds: 0 });
    await now.take("start");
    await new Promise((r) => setTimeout(r, 100));
    expect(refs(gitDir)).toHaveLength(2);
    expect(await now.prune()).toEqual({ removed: 1 });
    const left = refs(gitDir);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/-2\/0$/);
    expect(readdirSync(join(state, project, "chats"))).toHaveLength(1);
    // The first chat's tree is gone with its ref; the running chat's is still readable.
    expect(() =>
      execFileSync("git", ["--git-dir", gitDir, "cat-file", "-e", first!.tree], { stdio: "ignore" }),
    ).toThrow();
    expect(existsSync(gitDir)).toBe(true);
  });

  it("by size: past maxBytes the oldest chats go first", async () => {
    const root = mkdtempSync(join(tmpdir(), "acpchat-prune-"));
    const work = join(root, "work");
    mkdirSync(work);
    const state = join(root, "state");
    for (let i = 0; i < 3; i++) {
      writeFileSync(join(work, `f${i}.bin`), Buffer.alloc(200_000, i + 1));
      const closed = new CheckpointStore({
        stateDir: state,
        cwd: work,
        chat: `c${i}`,
        limits: { maxFileBytes: 10_000_000 },
      });
      await closed.take("start");
      await closed.dispose();
      await new Promise((r) => setTimeout(r, 30));
    }
    await new Promise((r) => setTimeout(r, 100));
    const gitDir = join(state, readdirSync(state)[0]!, "git");
    expect(refs(gitDir)).toHaveLength(3);
    const now = new CheckpointStore({ stateDir: state, cwd: work, chat: "now", maxBytes: 1, pruneGraceSeconds: 0 });
    await now.take("start");
    const r = await now.prune();
    expect(r.removed).toBe(3);
    expect(refs(gitDir).every((x) => x.includes("-now/"))).toBe(true);
  });
});
