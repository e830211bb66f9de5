/**
 * Checkpoints in a real Neovim with the fake agent: the first prompt sent before the folder's
 * first snapshot is done (a slow git), and an agent that rewrites .gitignore in the user's own
 * repository before a rewind.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../support/fingerprint.js";
import { nvimBins } from "../support/nvim.js";
import { checkpointsReady, nvim, openChat, sendAndWaitChanges, setAgents } from "../support/chat.js";

const bins = nvimBins();
const tool = (id: string, title: string) => ({
  update: { sessionUpdate: "tool_call", toolCallId: id, title, kind: "execute", status: "in_progress" },
});
const done = (id: string) => ({ update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } });
const REAL_GIT = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();

describe.each(bins)("Neovim $version", (bin) => {
  it("a prompt sent before the folder's first snapshot is done waits for it (the winbar says so); the turn is recorded", async () => {
    // A git that takes a while for every call while `slow/on` exists: the first snapshot takes
    // seconds. Once the winbar said so, git is fast again (the rest of the test needs no wait).
    const slow = mkdtempSync(join(tmpdir(), "acpchat-slowgit-"));
    writeFileSync(join(slow, "on"), "");
    writeFileSync(join(slow, "git"), `#!/bin/sh\n[ -e '${slow}/on' ] && sleep 0.7\nexec ${REAL_GIT} "$@"\n`);
    chmodSync(join(slow, "git"), 0o755);
    const t = await nvim(bin, {}, { PATH: `${slow}:${process.env.PATH}` });
    const work = join(t.dir, "work");
    writeFileSync(join(work, "f.txt"), "before\n");
    await setAgents(t, {
      fake: { turns: [[tool("t1", "sed"), { sh: "sed -i 's/before/AGENT/' f.txt" }, done("t1"), { text: "edited" }]] },
    });
    const c = await openChat(t);
    // Sent at once (queued until the agent is ready, then until the snapshot is done).
    await c.send("edit");
    await t.waitFor(
      async () => (await c.promptWinbar()).includes("waiting for the folder's first snapshot"),
      "the winbar to say what the prompt waits for",
      20_000,
    );
    expect(readFileSync(join(work, "f.txt"), "utf8")).toBe("before\n");
    rmSync(join(slow, "on"));
    await c.turns(1, 60_000);
    await t.waitFor(async () => (await c.text()).includes("M f.txt"), "the turn's changes block", 30_000);
    const tr = await c.text();
    expect(tr).not.toMatch(/may miss what the agent changed|Checkpoints are off/);
    expect(await c.promptWinbar()).not.toContain("waiting for");
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note", 30_000);
    expect(readFileSync(join(work, "f.txt"), "utf8")).toBe("before\n");
  }, 120_000);

  it("an agent that rewrites .gitignore: the rewind keeps the user's ignored .env, and the user's .git is untouched", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    execFileSync("git", ["init", "-q"], { cwd: work });
    writeFileSync(join(work, ".gitignore"), ".env\n");
    writeFileSync(join(work, ".env"), "API_KEY=sk-e2e-secret-4242\n");
    writeFileSync(join(work, "f.txt"), "one\n");
    execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", "add", ".gitignore", "f.txt"], { cwd: work });
    execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "o"], { cwd: work });
    const before = fingerprint(join(work, ".git"));
    await setAgents(t, {
      fake: {
        turns: [
          [
            tool("t1", "rewrite"),
            { sh: "printf 'node_modules\\n' > .gitignore && printf 'two\\n' > f.txt" },
            done("t1"),
            { text: "edited" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWaitChanges(c, "edit");
    const tr = await c.text();
    expect(tr).toContain("M f.txt");
    expect(tr).toContain("M .gitignore");
    expect(tr).not.toContain(".env");
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note");
    expect(readFileSync(join(work, ".env"), "utf8")).toBe("API_KEY=sk-e2e-secret-4242\n");
    expect(readFileSync(join(work, "f.txt"), "utf8")).toBe("one\n");
    expect(readFileSync(join(work, ".gitignore"), "utf8")).toBe(".env\n");
    expect(fingerprint(join(work, ".git"))).toEqual(before);
    // Never stored: no object of the plugin's repository holds the secret.
    const state = join(t.dir, "state", "nvim", "acpchat", "checkpoints");
    const stored = execFileSync(
      "sh",
      ["-c", 'for g in "$1"/*/git; do GIT_DIR="$g" git cat-file --batch-all-objects --batch; done', "sh", state],
      { encoding: "latin1", maxBuffer: 64 * 1024 * 1024 },
    );
    expect(stored).not.toContain("sk-e2e-secret-4242");
  }, 60_000);
});
