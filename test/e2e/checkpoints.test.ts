/**
 * Turn checkpoints end to end, in a real Neovim with the fake agent writing files
 * itself (shell commands: no fs/write_text_file): every change is listed at the end of the
 * turn, in the quickfix list, can be taken back hunk by hunk, and a rewind puts every file back
 * byte for byte; the user's own repository is never touched, and their edits survive.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../support/fingerprint.js";
import { nvimBins } from "../support/nvim.js";
import {
  call,
  checkpointsReady,
  nvim,
  openChat,
  sendAndWait,
  sendAndWaitChanges,
  setAgents,
  type Chat,
  shareNvim,
} from "../support/chat.js";
import type { TestNvim } from "../support/nvim.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const lines = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", ...args], { cwd, encoding: "utf8" });
}

/** A project with files of every kind the checkpoints must put back byte for byte. */
function project(work: string): void {
  writeFileSync(join(work, "a.txt"), text(lines(30)));
  writeFileSync(join(work, "latin1.txt"), Buffer.from("caf\xe9 cr\xe8me\n", "latin1"));
  writeFileSync(join(work, "crlf.txt"), "one\r\ntwo\r\nthree\r\n");
  writeFileSync(
    join(work, "bom.txt"),
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("bom first\nsecond\n")]),
  );
  writeFileSync(join(work, "noeol.txt"), "no final newline");
  writeFileSync(join(work, "run.sh"), "#!/bin/sh\necho hi\n");
  chmodSync(join(work, "run.sh"), 0o755);
  symlinkSync("a.txt", join(work, "link"));
  writeFileSync(join(work, "blob.bin"), Buffer.from([0, 1, 2, 3, 255, 254, 0, 7]));
  writeFileSync(join(work, "gone.txt"), "to be deleted\n");
  writeFileSync(join(work, "old-name.txt"), text(lines(12, "moved")));
  writeFileSync(join(work, ".gitignore"), "ignored.log\n");
  writeFileSync(join(work, "ignored.log"), "not snapshotted\n");
}

/** What the agent does in its turn, with its own processes. */
const AGENT_EDITS = [
  "sed -i 's/^line 10$/line ten/; s/^line 20$/line twenty/' a.txt",
  "printf 'new file\\n' > new.txt",
  "rm gone.txt",
  "mv old-name.txt new-name.txt",
  "printf 'x' >> latin1.txt",
  "printf 'four\\r\\n' >> crlf.txt",
  "printf 'added' > bom.txt",
  "printf '\\n' >> noeol.txt",
  "chmod 644 run.sh",
  "rm link && ln -s crlf.txt link",
  "printf '\\377\\000' >> blob.bin",
  "printf 'changed\\n' > ignored.log",
].join(" && ");

const tool = (id: string, title: string) => [
  { update: { sessionUpdate: "tool_call", toolCallId: id, title, kind: "execute", status: "in_progress" } },
];
const done = (id: string) => ({ update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } });

async function chatWith(t: TestNvim, turns: unknown[][]): Promise<Chat> {
  await setAgents(t, { fake: { turns } });
  const c = await openChat(t);
  await c.ready();
  await checkpointsReady(t);
  return c;
}

describe.each(bins)("Neovim $version", (bin) => {
  it("an agent's shell command: the turn's block lists every file, :AcpChatChanges its hunks, :AcpChatRewind! puts all back byte-exact; the user's .git is untouched", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    project(work);
    git(work, "init", "-q");
    git(work, "add", "-A");
    git(work, "commit", "-qm", "first");
    git(work, "stash", "list");
    // A hook of the user's that would leave a mark if any git of ours ran it.
    writeFileSync(join(work, ".git/hooks/post-index-change"), `#!/bin/sh\ntouch ${join(t.dir, "HOOK-RAN")}\n`);
    chmodSync(join(work, ".git/hooks/post-index-change"), 0o755);
    const before = fingerprint(work);
    const gitBefore = fingerprint(join(work, ".git"));
    const c = await chatWith(t, [[...tool("t1", "edit files"), { sh: AGENT_EDITS }, done("t1"), { text: "done" }]]);
    await sendAndWaitChanges(c, "change things");
    const transcript = await c.text();
    expect(transcript).toMatch(/◆ Turn 1 changed 11 files/);
    for (const line of [
      "M a.txt  +2 -2",
      "A new.txt  +1 -0",
      "D gone.txt  +0 -1",
      "R new-name.txt ← old-name.txt",
      "M blob.bin  (binary)",
      "M run.sh  +0 -0 (mode 755 -> 644)",
      "M link  (link)",
      "M noeol.txt",
      "M crlf.txt",
      "M bom.txt",
      "M latin1.txt",
    ]) {
      expect(transcript).toContain(line);
    }
    expect(transcript).not.toContain("ignored.log");
    // The quickfix list: one item per hunk of a.txt, at the agent's lines.
    await t.nvim.command("AcpChatChanges");
    const qf = await t.waitFor(async () => {
      const l = await t.lua<{ text: string; lnum: number; bufnr: number }[]>("return vim.fn.getqflist()");
      return l.length > 0 && l;
    }, "the quickfix list");
    const aItems = await t.lua<{ lnum: number; text: string }[]>(
      "return vim.tbl_filter(function(i) return vim.api.nvim_buf_get_name(i.bufnr):match('a%.txt$') end, vim.fn.getqflist())",
    );
    expect(aItems.map((i) => i.lnum)).toEqual([10, 20]);
    expect(aItems[0]!.text).toContain("+1 -1: line ten");
    expect(qf.length).toBeGreaterThanOrEqual(11);
    // Rewind without asking: every file as it was, byte for byte, mode and link included.
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note");
    const after = fingerprint(work);
    expect(after).toEqual({ ...before, "ignored.log": after["ignored.log"] });
    expect(readFileSync(join(work, "ignored.log"), "utf8")).toBe("changed\n"); // ignored: never recorded, never put back
    // The rewind is a step of its own: its block lists what it changed, and it can be undone.
    expect(await c.text()).toMatch(/◆ Rewind to before turn 1 changed 11 files/);
    await t.nvim.command("AcpChatRewind! undo");
    await t.waitFor(async () => (await c.text()).includes("Undid the rewind to before turn 1"), "the undo's note");
    expect(readFileSync(join(work, "a.txt"), "utf8")).toContain("line twenty");
    expect(existsSync(join(work, "gone.txt"))).toBe(false);
    // The user's repository: byte-identical, and no hook of theirs ran.
    expect(fingerprint(join(work, ".git"))).toEqual(gitBefore);
    expect(existsSync(join(t.dir, "HOOK-RAN"))).toBe(false);
    expect(git(work, "status", "--porcelain")).toContain("new.txt");
  });

  it("gd on a changed file: take back one hunk (the user's later edit elsewhere kept); the next prompt tells the agent", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "f.txt"), text(lines(40)));
    const c = await chatWith(t, [
      [
        ...tool("t1", "sed"),
        { sh: "sed -i 's/^line 5$/FIVE/; s/^line 30$/THIRTY/' f.txt" },
        done("t1"),
        { text: "edited" },
      ],
      [{ text: "ok" }],
    ]);
    await sendAndWaitChanges(c, "edit f");
    expect(await c.text()).toContain("M f.txt  +2 -2");
    // The user edits the file afterwards (in a buffer, saved), far from the agent's lines.
    await t.nvim.command(`edit ${join(work, "f.txt")}`);
    await t.lua("vim.api.nvim_buf_set_lines(0, 17, 18, false, { 'USER 18' }); vim.cmd('silent write')");
    // gd on the file's line of the changes block opens the review.
    await c.focus();
    const row = (await c.lines()).findIndex((l) => l.includes("M f.txt"));
    await t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row + 1]);
    await t.nvim.command("stopinsert");
    await t.nvim.input("gd");
    const win = await t.waitFor(
      async () =>
        t.lua<number | null>(
          "local r = next(require('acpchat.ask.review').open_reviews); return r and require('acpchat.ask.review').open_reviews[r].lw",
        ),
      "the review to open",
    );
    // gr on the first hunk (line 5), then ZZ.
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 5, 0 })", [win]);
    await t.nvim.input("gr");
    await t.nvim.input("ZZ");
    await t.waitFor(async () => (await c.text()).includes("Took back 1 of 2 hunks"), "the take-back's note");
    const now = readFileSync(join(work, "f.txt"), "utf8").split("\n");
    expect(now[4]).toBe("line 5");
    expect(now[29]).toBe("THIRTY");
    expect(now[17]).toBe("USER 18");
    // The buffer shows it, unmodified, and one u undoes the take-back.
    const b = await t.lua<number>("return vim.fn.bufnr(...)", [join(work, "f.txt")]);
    expect((await t.lines(b))[4]).toBe("line 5");
    expect(await t.lua("return vim.bo[...].modified", [b])).toBe(false);
    // The agent hears about it with the next prompt, and the transcript shows the note.
    await sendAndWait(c, "next");
    expect(await c.text()).toContain("Told the agent:");
    const prompts = (
      await call<{ dir: string; method?: string; payload_json: string }[]>(t, "trace", { chat: c.id })
    ).filter((e) => e.method === "session/prompt" && e.dir === "out");
    const last = JSON.parse(prompts[prompts.length - 1]!.payload_json) as { params: { prompt: { text?: string }[] } };
    expect(last.params.prompt[0]!.text).toContain("took back f.txt (1 of 2 hunks of turn 1)");
  });

  it("a prompt queued behind a turn starts after that turn's end snapshot: each turn's block lists its own change only", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "a.txt"), text(lines(5)));
    writeFileSync(join(work, "b.txt"), text(lines(5)));
    const c = await chatWith(t, [
      [
        ...tool("t1", "sed a"),
        { sleep: 300 },
        { sh: "sed -i 's/^line 1$/AGENT A/' a.txt" },
        done("t1"),
        { text: "a done" },
      ],
      [...tool("t2", "sed b"), { sh: "sed -i 's/^line 2$/AGENT B/' b.txt" }, done("t2"), { text: "b done" }],
    ]);
    await c.send("one");
    await t.waitFor(async () => (await c.text()).includes("sed a"), "turn 1's tool call");
    // Queued: sent the moment turn 1 ends, while its end snapshot may still be running.
    await c.send("two");
    await c.turns(2);
    await t.waitFor(async () => ((await c.text()).match(/^◆ /gm) ?? []).length >= 2, "both turns' changes blocks");
    const tr = await c.text();
    const block = (n: number) => tr.slice(tr.indexOf(`◆ Turn ${n} changed`)).split("\n\n")[0]!;
    expect(block(1)).toContain("M a.txt  +1 -1");
    expect(block(1)).not.toContain("b.txt");
    expect(block(2)).toContain("M b.txt  +1 -1");
    expect(block(2)).not.toContain("a.txt");
    // Each block sits in its own turn: turn 1's before turn 2's header.
    expect(tr.indexOf("◆ Turn 1 changed")).toBeLessThan(tr.indexOf("## You · turn 2"));
  });

  it("a shell command's change reaches the buffers showing the file (reloaded, no question)", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "s.txt"), text(lines(5)));
    await t.nvim.command(`edit ${join(work, "s.txt")}`);
    const b = await t.lua<number>("return vim.api.nvim_get_current_buf()");
    const c = await chatWith(t, [
      [...tool("t1", "sed"), { sh: "sed -i 's/^line 2$/TWO/' s.txt" }, done("t1"), { text: "ok" }],
    ]);
    await sendAndWait(c, "edit");
    await t.waitFor(async () => (await t.lines(b))[1] === "TWO", "the buffer to show the command's change");
    expect(await t.lua("return vim.bo[...].modified", [b])).toBe(false);
  });

  it("a rewind keeps the user's edits made after the agent (three-way), and says which files it left", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "m.txt"), text(lines(30)));
    writeFileSync(join(work, "c.txt"), text(lines(10)));
    const c = await chatWith(t, [
      [...tool("t1", "sed"), { sh: "sed -i 's/^line 3$/AGENT 3/' m.txt c.txt" }, done("t1"), { text: "ok" }],
    ]);
    await sendAndWaitChanges(c, "edit");
    // The user edits m.txt elsewhere (unsaved, in a buffer), and c.txt on the agent's own line.
    await t.nvim.command(`edit ${join(work, "m.txt")}`);
    await t.lua("vim.api.nvim_buf_set_lines(0, 24, 25, false, { 'USER 25' })");
    writeFileSync(join(work, "c.txt"), readFileSync(join(work, "c.txt"), "utf8").replace("AGENT 3", "USER 3"));
    await t.lua("vim.ui.select = function(items, opts, cb) cb(items[2], 2) end"); // leave the conflict as it is
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note");
    const m = await t.lua<string[]>("return vim.api.nvim_buf_get_lines(0, 0, -1, false)");
    expect(m[2]).toBe("line 3");
    expect(m[24]).toBe("USER 25");
    expect(readFileSync(join(work, "c.txt"), "utf8")).toContain("USER 3");
    const tr = await c.text();
    expect(tr).toContain("c.txt: left as it is: it was edited after the agent's change, in the same lines");
    expect(tr).toContain("m.txt: merged into the buffer (unsaved)");
  });

  it("a conflict is asked about: yes puts both sides in the buffer with markers (unsaved, undoable); the disk keeps the user's text", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "c.txt"), text(lines(10)));
    const c = await chatWith(t, [
      [...tool("t1", "sed"), { sh: "sed -i 's/^line 3$/AGENT 3/' c.txt" }, done("t1"), { text: "ok" }],
    ]);
    await sendAndWaitChanges(c, "edit");
    writeFileSync(join(work, "c.txt"), readFileSync(join(work, "c.txt"), "utf8").replace("AGENT 3", "USER 3"));
    await t.lua(
      "_G.asked = {}; vim.ui.select = function(items, opts, cb) table.insert(_G.asked, opts.prompt); cb(items[1], 1) end",
    );
    await t.nvim.command("AcpChatRewind! 1");
    const b = await t.waitFor(async () => {
      const n = await t.lua<number>("return vim.fn.bufnr(...)", [join(work, "c.txt")]);
      return n > 0 && (await t.lines(n)).some((l) => l.startsWith("<<<<<<< yours (now)")) && n;
    }, "the conflict markers in c.txt's buffer");
    const shown = await t.lines(b);
    expect(shown).toContain("USER 3");
    expect(shown).toContain("line 3");
    expect(shown.some((l) => l.startsWith(">>>>>>> before turn 1"))).toBe(true);
    expect((await t.lua<string[]>("return _G.asked"))[0]).toContain(
      "c.txt: your edits touch the lines the agent changed",
    );
    expect(readFileSync(join(work, "c.txt"), "utf8")).toContain("USER 3");
    expect(readFileSync(join(work, "c.txt"), "utf8")).not.toContain("<<<<<<<");
    expect(await t.lua("return vim.bo[...].modified", [b])).toBe(true);
    await t.lua("vim.api.nvim_buf_call(..., function() vim.cmd('silent undo') end)", [b]);
    expect((await t.lines(b)).some((l) => l.startsWith("<<<<<<<"))).toBe(false);
  });

  it("a write through the client (Latin-1, CRLF) is in the turn's block; taking back one hunk keeps the file's bytes otherwise", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const f = join(work, "w.txt");
    const orig = lines(12, "caf\xe9");
    writeFileSync(f, Buffer.from(orig.join("\r\n") + "\r\n", "latin1"));
    const next = orig.map((l, i) =>
      (i === 1 ? "second, changed" : i === 9 ? "tenth, changed" : l).replace("\xe9", "é"),
    );
    await setAgents(
      t,
      {
        fake: {
          turns: [
            [
              { request: "fs/write_text_file", params: { path: f, content: next.join("\n") + "\n" } },
              { text: "wrote" },
            ],
          ],
        },
      },
      { write: "save" },
    );
    const c = await openChat(t);
    await c.ready();
    await sendAndWaitChanges(c, "write");
    expect(await c.text()).toContain("M w.txt  +2 -2");
    await t.nvim.command("stopinsert");
    await c.focus();
    const row = (await c.lines()).findIndex((l) => l.includes("M w.txt"));
    await t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row + 1]);
    await t.nvim.input("gd");
    const win = await t.waitFor(
      async () =>
        t.lua<number | null>(
          "local r = next(require('acpchat.ask.review').open_reviews); return r and require('acpchat.ask.review').open_reviews[r].lw",
        ),
      "the review to open",
    );
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 10, 0 })", [win]);
    await t.nvim.input("grZZ");
    await t.waitFor(async () => (await c.text()).includes("Took back 1 of 2 hunks"), "the take-back's note");
    const want = orig.map((l, i) => (i === 1 ? "second, changed" : l));
    expect(readFileSync(f)).toEqual(Buffer.from(want.join("\r\n") + "\r\n", "latin1"));
  });

  it("a folder that is not a git repository, a nested repository and a submodule-like folder: their files are recorded", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    mkdirSync(join(work, "nested"));
    writeFileSync(join(work, "nested/n.txt"), "nested\n");
    git(join(work, "nested"), "init", "-q");
    mkdirSync(join(work, "empty-repo"));
    git(join(work, "empty-repo"), "init", "-q");
    writeFileSync(join(work, "empty-repo/e.txt"), "e\n");
    const nestedGit = fingerprint(join(work, "nested/.git"));
    const c = await chatWith(t, [
      [
        ...tool("t1", "sh"),
        { sh: "printf 'changed\\n' > nested/n.txt && printf 'x\\n' >> empty-repo/e.txt" },
        done("t1"),
        { text: "ok" },
      ],
    ]);
    await sendAndWaitChanges(c, "edit nested");
    const tr = await c.text();
    expect(tr).toContain("M nested/n.txt  +1 -1");
    expect(tr).toContain("M empty-repo/e.txt  +1 -0");
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note");
    expect(readFileSync(join(work, "nested/n.txt"), "utf8")).toBe("nested\n");
    expect(readFileSync(join(work, "empty-repo/e.txt"), "utf8")).toBe("e\n");
    expect(fingerprint(join(work, "nested/.git"))).toEqual(nestedGit);
  });

  it("a folder with more files than checkpoints.max_files: one note, the chat works", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    for (let i = 0; i < 12; i++) writeFileSync(join(work, `f${i}.txt`), `${i}\n`);
    await setAgents(
      t,
      { fake: { turns: [[{ sh: "printf 'x' >> f1.txt" }, { text: "fine" }]] } },
      { checkpoints: { max_files: 5 } },
    );
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "hi");
    await sendAndWait(c, "again");
    const tr = await c.text();
    expect(
      tr.match(/Checkpoints are off for this chat: the folder has more than 5 files \(checkpoints.max_files\)/g)
        ?.length,
    ).toBe(1);
    expect(tr).not.toContain("◆");
  });

  it("git missing from PATH: the chat works, one note says checkpoints are off and why", async () => {
    // Every program of /usr/bin but git, and node.
    const noGit = join(tmpdirOf(), `acpchat-nogit-${process.pid}-${Date.now()}`);
    mkdirSync(noGit);
    for (const name of readdirSync("/usr/bin"))
      if (!name.startsWith("git")) symlinkSync(join("/usr/bin", name), join(noGit, name));
    if (!existsSync(join(noGit, "node"))) symlinkSync(process.execPath, join(noGit, "node"));
    const t = await nvim(bin, {}, { PATH: noGit });
    await setAgents(t, { fake: { turns: [[{ text: "fine" }]] } });
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "hi");
    await sendAndWait(c, "again");
    const tr = await c.text();
    expect(tr).toContain("fine");
    expect(tr.match(/Checkpoints are off for this chat: git is not installed/g)?.length).toBe(1);
  });
});

function tmpdirOf(): string {
  return process.env.TMPDIR ?? "/tmp";
}
