// The pinned earlier revision the user-clock bench compares against: the last release's build
// (5937a17), checked out with `git worktree add` into .cache/bench/ and built as a user builds
// it (npm ci, npm run build) in the same run; reused while its build is there. Nothing of it
// is committed.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { root } from "./nvim.mjs";

export const PINNED = "5937a17";

const say = (s) => process.stderr.write(`${s}\n`);

/** The folder of `commit`'s build (made when missing). */
export function pinnedBuild(commit = process.env.ACPCHAT_PINNED ?? PINNED) {
  const dir = join(root, ".cache/bench", `base-${commit}`);
  const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ["ignore", "ignore", "inherit"] });
  if (!existsSync(join(dir, ".git"))) {
    mkdirSync(join(root, ".cache/bench"), { recursive: true });
    say(`pinned: git worktree add ${dir} ${commit}`);
    run("git", ["worktree", "add", "--detach", dir, commit], root);
  }
  if (!existsSync(join(dir, "node_modules"))) {
    say(`pinned: npm ci in ${dir}`);
    run("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], dir);
  }
  if (!existsSync(join(dir, "dist/acpchat.cjs"))) {
    say(`pinned: npm run build in ${dir}`);
    run("npm", ["run", "build"], dir);
  }
  return dir;
}
