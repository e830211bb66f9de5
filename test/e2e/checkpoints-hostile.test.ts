/**
 * Turn checkpoints under attack, in a real Neovim with the fake agent changing files
 * with its own processes: what the user does while a turn runs, and what their environment holds.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fingerprint } from "../support/fingerprint.js";
import { nvimBins } from "../support/nvim.js";
import {
  checkpointsReady,
  nvim,
  openChat,
  recordNotes,
  notes,
  reviews,
  sendAndWait,
  sendAndWaitChanges,
  setAgents,
  shareNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();
const lines = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`);
const text = (ls: string[]) => ls.join("\n") + "\n";
const tool = (id: string, title: string) => ({
  update: { sessionUpdate: "tool_call", toolCallId: id, title, kind: "execute", status: "in_progress" },
});
const done = (id: string) => ({ update: { sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" } });

describe.each(bins)("Neovim $version", (bin) => {
  it("GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE of another repository in Neovim's environment: checkpoints record the session's folder, that repository is untouched", async () => {
    const other = mkdtempSync(join(tmpdir(), "acpchat-user-repo-"));
    execFileSync("git", ["init", "-q"], { cwd: other });
    writeFileSync(join(other, "o.txt"), "other\n");
    execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", "add", "-A"], { cwd: other });
    execFileSync("git", ["-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "o"], { cwd: other });
    const before = fingerprint(join(other, ".git"));
    const t = await nvim(
      bin,
      {},
      {
        GIT_DIR: join(other, ".git"),
        GIT_WORK_TREE: other,
        GIT_INDEX_FILE: join(other, ".git", "index"),
        GIT_CONFIG_PARAMETERS: "'core.hooksPath'='/nonexistent'",
      },
    );
    const work = join(t.dir, "work");
    writeFileSync(join(work, "f.txt"), text(lines(10)));
    await setAgents(t, {
      fake: {
        turns: [[tool("t1", "sed"), { sh: "sed -i 's/^line 3$/AGENT 3/' f.txt" }, done("t1"), { text: "edited" }]],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWaitChanges(c, "edit");
    expect(await c.text()).toContain("M f.txt  +1 -1");
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note");
    expect(readFileSync(join(work, "f.txt"), "utf8")).toBe(text(lines(10)));
    expect(fingerprint(join(other, ".git"))).toEqual(before);
  });

  it("a rewind while a turn runs is refused: the turn's block never claims the user's rewind as the agent's change", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "f.txt"), text(lines(10)));
    await setAgents(t, {
      fake: {
        turns: [
          [tool("t1", "sed"), { sh: "sed -i 's/^line 3$/AGENT 3/' f.txt" }, done("t1"), { text: "edited" }],
          [tool("t2", "think hard"), { sleep: 2500 }, done("t2"), { text: "thought" }],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWait(c, "edit");
    await recordNotes(t);
    await c.send("think");
    await t.waitFor(async () => (await c.text()).includes("think hard"), "turn 2's tool call");
    await t.nvim.command("AcpChatRewind! 1");
    await c.turns(2);
    await t.waitFor(async () => (await notes(t)).some((n) => n.msg.includes("turn")), "the rewind's answer");
    const tr = await c.text();
    expect(tr).not.toMatch(/◆ Turn 2 changed/);
    expect(readFileSync(join(work, "f.txt"), "utf8")).toContain("AGENT 3");
    expect((await notes(t)).map((n) => n.msg).join("\n")).toContain("a turn is running");
    // Once the turn is over, the rewind works.
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note");
    expect(readFileSync(join(work, "f.txt"), "utf8")).toBe(text(lines(10)));
  });
});

/** The permission question for one tool call that edits two files (whole-file diffs, no old text). */
function askTwo(a: string, b: string, newA: string, newB: string) {
  const content = [
    { type: "diff", path: a, oldText: null, newText: newA },
    { type: "diff", path: b, oldText: null, newText: newB },
  ];
  return [
    {
      update: {
        sessionUpdate: "tool_call",
        toolCallId: "w1",
        title: "Patch two files",
        kind: "edit",
        status: "pending",
        content,
        locations: [{ path: a }, { path: b }],
      },
    },
    {
      request: "session/request_permission",
      params: {
        toolCall: { toolCallId: "w1" },
        options: [
          { optionId: "yes", name: "Yes", kind: "allow_once" },
          { optionId: "no", name: "No", kind: "reject_once" },
        ],
      },
      echo: true,
    },
  ];
}

async function reviewWindow(t: Awaited<ReturnType<typeof nvim>>, path: string): Promise<number> {
  return t.waitFor(
    async () =>
      t.lua<number | null>(
        "for _, r in pairs(require('acpchat.ask.review').open_reviews) do if r.lw and vim.api.nvim_win_is_valid(r.lw) and (r.path or ''):find(..., 1, true) then return r.lw end end return nil",
        [path],
      ),
    `the review of ${path}`,
  );
}

describe.each(bins)("Neovim $version: the state folder removed while the chat runs", (bin) => {
  it("the chat goes on, one note says checkpoints are off and why", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "f.txt"), text(lines(5)));
    const sed = (n: number) => [
      tool(`t${n}`, "sed"),
      { sh: `sed -i 's/^line ${n}$/AGENT ${n}/' f.txt` },
      done(`t${n}`),
      { text: `turn ${n} done` },
    ];
    await setAgents(t, { fake: { turns: [sed(1), sed(2), sed(3)] } });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWaitChanges(c, "one");
    await new Promise((r) => setTimeout(r, 300)); // the turn's background ref writes
    rmSync(join(t.dir, "state", "nvim", "acpchat"), { recursive: true, force: true, maxRetries: 5 });
    await sendAndWait(c, "two");
    await sendAndWait(c, "three");
    const tr = await c.text();
    expect(tr).toContain("turn 3 done");
    expect(tr.match(/Checkpoints are off for this chat/g)?.length).toBe(1);
    expect(readFileSync(join(work, "f.txt"), "utf8")).toContain("AGENT 3");
  });
});

describe.each(bins)("Neovim $version: what the agent is told", (bin) => {
  it("a rewind merged into a buffer with unsaved edits: the agent hears that the disk still has its change", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    writeFileSync(join(work, "m.txt"), text(lines(30)));
    writeFileSync(join(work, "d.txt"), text(lines(5)));
    await setAgents(t, {
      fake: {
        turns: [
          [tool("t1", "sed"), { sh: "sed -i 's/^line 3$/AGENT 3/' m.txt d.txt" }, done("t1"), { text: "ok" }],
          [{ text: "fine" }],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await sendAndWaitChanges(c, "edit");
    await t.nvim.command(`edit ${join(work, "m.txt")}`);
    await t.lua("vim.api.nvim_buf_set_lines(0, 24, 25, false, { 'USER 25' })");
    await t.nvim.command("AcpChatRewind! 1");
    await t.waitFor(async () => (await c.text()).includes("Rewound to before turn 1"), "the rewind's note");
    expect(readFileSync(join(work, "m.txt"), "utf8")).toContain("AGENT 3");
    expect(readFileSync(join(work, "d.txt"), "utf8")).toBe(text(lines(5)));
    await sendAndWait(c, "next");
    const prompts = (await c.trace()).filter((e) => e.method === "session/prompt" && e.dir === "out");
    const told = (JSON.parse(prompts[prompts.length - 1]!.payload_json) as { params: { prompt: { text?: string }[] } })
      .params.prompt[0]!.text!;
    expect(told).toContain(
      "d.txt, m.txt (only in the user's unsaved buffer so far: the file on disk still has your version until they save)",
    );
  });
});

/**
 * Every permission question is answered "Show the diff first" (its last choice); ZZ with no hunk
 * accepted asks before it rejects (closing that list keeps the review open), and is answered
 * with its reject (the first choice).
 */
const SHOW_DIFF_THEN_REJECT_EMPTY = `vim.ui.select = function(items, opts, on_choice)
  on_choice(opts.kind == "acpchat_review_done" and items[1] or items[#items])
end`;

describe.each(bins)("Neovim $version: per-hunk permission review", (bin) => {
  it("two files in one tool call, one accepted and one rejected whole: the agent's own write of the rejected file is put back", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const a = join(work, "a.txt");
    const b = join(work, "b.txt");
    writeFileSync(a, text(lines(10, "a")));
    writeFileSync(b, text(lines(10, "b")));
    const newA = text(lines(10, "a").map((l) => (l === "a 2" ? "AGENT a2" : l)));
    const newB = text(lines(10, "b").map((l) => (l === "b 7" ? "AGENT b7" : l)));
    writeFileSync(join(t.dir, "a.new"), newA);
    writeFileSync(join(t.dir, "b.new"), newB);
    await setAgents(t, {
      fake: {
        turns: [
          [
            ...askTwo(a, b, newA, newB),
            { sh: `cp $DIR/a.new ${a} && cp $DIR/b.new ${b}` },
            done("w1"),
            { text: "patched" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await t.lua(SHOW_DIFF_THEN_REJECT_EMPTY);
    await c.send("patch");
    const la = await reviewWindow(t, "a.txt");
    await t.nvim.command("stopinsert");
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 2, 0 })", [la]);
    await t.nvim.input("ga");
    await t.nvim.input("ZZ");
    const lb = await reviewWindow(t, "b.txt");
    await t.lua("vim.api.nvim_set_current_win(...)", [lb]);
    await t.nvim.input("ZZ");
    await c.turns(1, 20_000);
    expect(await c.text()).toContain('"optionId":"yes"');
    expect(readFileSync(a, "utf8")).toBe(newA);
    expect(readFileSync(b, "utf8")).toBe(text(lines(10, "b")));
    expect(await c.text()).toContain("The user rejected the whole edit to");
  });

  it("two files in one tool call, one rejected whole: the agent's write of it through the client is refused", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const a = join(work, "a.txt");
    const b = join(work, "b.txt");
    writeFileSync(a, text(lines(10, "a")));
    writeFileSync(b, text(lines(10, "b")));
    const newA = text(lines(10, "a").map((l) => (l === "a 2" ? "AGENT a2" : l)));
    const newB = text(lines(10, "b").map((l) => (l === "b 7" ? "AGENT b7" : l)));
    await setAgents(
      t,
      {
        fake: {
          turns: [
            [
              ...askTwo(a, b, newA, newB),
              { request: "fs/write_text_file", params: { path: a, content: newA }, echo: true },
              { request: "fs/write_text_file", params: { path: b, content: newB }, echo: true },
              done("w1"),
              { text: "patched" },
            ],
          ],
        },
      },
      { write: "save" },
    );
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await t.lua(SHOW_DIFF_THEN_REJECT_EMPTY);
    await c.send("patch");
    const la = await reviewWindow(t, "a.txt");
    await t.nvim.command("stopinsert");
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 2, 0 })", [la]);
    await t.nvim.input("ga");
    await t.nvim.input("ZZ");
    const lb = await reviewWindow(t, "b.txt");
    await t.lua("vim.api.nvim_set_current_win(...)", [lb]);
    await t.nvim.input("ZZ");
    await c.turns(1, 20_000);
    expect(readFileSync(a, "utf8")).toBe(newA);
    expect(readFileSync(b, "utf8")).toBe(text(lines(10, "b")));
    expect(await c.text()).toContain("The user rejected the change to");
    expect(await reviews(t)).toBe(0);
  });

  it("an agent that writes itself a file whose buffer holds unsaved edits: the rejected hunk leaves the disk, the user's edits stay in the buffer", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const a = join(work, "a.txt");
    const b = join(work, "b.txt");
    writeFileSync(a, text(lines(20, "a")));
    writeFileSync(b, text(lines(5, "b")));
    const newA = text(lines(20, "a").map((l) => (l === "a 3" ? "AGENT a3" : l === "a 15" ? "AGENT a15" : l)));
    const newB = text(lines(5, "b").map((l) => (l === "b 2" ? "AGENT b2" : l)));
    writeFileSync(join(t.dir, "a.new"), newA);
    await setAgents(t, {
      fake: { turns: [[...askTwo(a, b, newA, newB), { sh: `cp $DIR/a.new ${a}` }, done("w1"), { text: "patched" }]] },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    // The user's unsaved edit of a.txt, far from the agent's lines.
    await t.nvim.command(`edit ${a}`);
    await t.lua("vim.api.nvim_buf_set_lines(0, 9, 10, false, { 'USER 10' })");
    const ab = await t.lua<number>("return vim.api.nvim_get_current_buf()");
    await t.lua(SHOW_DIFF_THEN_REJECT_EMPTY);
    await c.send("patch");
    const la = await reviewWindow(t, "a.txt");
    await t.nvim.command("stopinsert");
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 3, 0 })", [la]);
    await t.nvim.input("ga");
    await t.nvim.input("ZZ");
    const lb = await reviewWindow(t, "b.txt");
    await t.lua("vim.api.nvim_set_current_win(...)", [lb]);
    await t.nvim.input("ZZ");
    await c.turns(1, 20_000);
    // The agent's whole-file text was made from the disk: the review showed it against the disk
    // (two hunks, none about the user's line 10), and the disk gets only the accepted one.
    await t.waitFor(async () => (await c.text()).includes("The user kept 1 of the 2 hunks"), "the note");
    const disk = readFileSync(a, "utf8").split("\n");
    expect(disk[2]).toBe("AGENT a3");
    expect(disk[14]).toBe("a 15");
    expect(disk[9]).toBe("a 10");
    // The buffer keeps the user's line; the agent's accepted change is offered on top of it
    // (a question held while the user types: opened with :AcpChatAnswer).
    expect((await t.lines(ab))[9]).toBe("USER 10");
    const merged = await t.waitFor(async () => {
      // Held while the user types (the prompt is in Insert mode): opened as a user would.
      if ((await t.lua<number>("return #require('acpchat.chat.waiting').held")) > 0) {
        await t.nvim.command("stopinsert");
        await t.nvim.command("AcpChatAnswer");
      }
      return t.lua<{ lw: number; n: number; reason: string } | null>(
        "for _, r in pairs(require('acpchat.ask.review').open_reviews) do if r.reason == 'merged' and r.lw and vim.api.nvim_win_is_valid(r.lw) then return { lw = r.lw, n = #r.hunks, reason = r.reason } end end return vim.NIL",
      );
    }, "the buffer's review");
    expect(merged).toMatchObject({ n: 1, reason: "merged" });
    await t.lua("vim.api.nvim_set_current_win(...)", [merged.lw]);
    await t.nvim.command("stopinsert");
    await t.nvim.input("gA");
    await t.nvim.input("ZZ");
    await t.waitFor(async () => (await t.lines(ab))[2] === "AGENT a3", "the agent's line in the buffer");
    expect((await t.lines(ab))[9]).toBe("USER 10");
    expect((await t.lines(ab))[14]).toBe("a 15");
    expect(await t.lua("return vim.bo[...].modified", [ab])).toBe(true);
  });

  it("an agent that writes through the client more than it proposed: the extra change is reviewed, not written unseen", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const a = join(work, "a.txt");
    const b = join(work, "b.txt");
    writeFileSync(a, text(lines(20, "a")));
    writeFileSync(b, text(lines(5, "b")));
    const agentA = lines(20, "a").map((l) => (l === "a 3" ? "AGENT a3" : l === "a 15" ? "AGENT a15" : l));
    const newB = text(lines(5, "b").map((l) => (l === "b 2" ? "AGENT b2" : l)));
    const sneaky = text(agentA.map((l) => (l === "a 10" ? "SNEAKY 10" : l)));
    await setAgents(t, {
      fake: {
        turns: [
          [
            ...askTwo(a, b, text(agentA), newB),
            { request: "fs/write_text_file", params: { path: a, content: sneaky }, echo: true },
            done("w1"),
            { text: "patched" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await t.lua(SHOW_DIFF_THEN_REJECT_EMPTY);
    await c.send("patch");
    const la = await reviewWindow(t, "a.txt");
    await t.nvim.command("stopinsert");
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 3, 0 })", [la]);
    await t.nvim.input("ga");
    await t.nvim.input("ZZ");
    const lb = await reviewWindow(t, "b.txt");
    await t.lua("vim.api.nvim_set_current_win(...)", [lb]);
    await t.nvim.input("ZZ");
    // The write carries a change the user never saw: it is asked about.
    await t.waitFor(
      async () =>
        (await reviews(t)) === 1 &&
        (await t.lua<boolean>(
          "local k = next(require('acpchat.ask.review').open_reviews); local r = require('acpchat.ask.review').open_reviews[k]; return r.reason ~= 'permission' and r.lw ~= nil and vim.api.nvim_win_is_valid(r.lw)",
        )),
      "a review of the write",
    );
    const shown = await t.lua<string[]>(
      "local k = next(require('acpchat.ask.review').open_reviews); local r = require('acpchat.ask.review').open_reviews[k]; return vim.api.nvim_buf_get_lines(r.right, 0, -1, false)",
    );
    expect(shown).toContain("SNEAKY 10");
    expect(shown).not.toContain("AGENT a15");
    await t.nvim.input("ZQ");
    await c.turns(1, 20_000);
    expect(readFileSync(a, "utf8")).not.toContain("SNEAKY");
  });

  it("a partly accepted edit whose tool call fails, writing nothing: nothing is put back and nothing untrue is said", async () => {
    const t = await nvim(bin);
    const work = join(t.dir, "work");
    const a = join(work, "a.txt");
    const b = join(work, "b.txt");
    writeFileSync(a, text(lines(10, "a")));
    writeFileSync(b, text(lines(10, "b")));
    const newA = text(lines(10, "a").map((l) => (l === "a 2" ? "AGENT a2" : l === "a 8" ? "AGENT a8" : l)));
    const newB = text(lines(10, "b").map((l) => (l === "b 7" ? "AGENT b7" : l)));
    await setAgents(t, {
      fake: {
        turns: [
          [
            ...askTwo(a, b, newA, newB),
            { update: { sessionUpdate: "tool_call_update", toolCallId: "w1", status: "failed" } },
            { text: "it failed" },
          ],
        ],
      },
    });
    const c = await openChat(t);
    await c.ready();
    await checkpointsReady(t);
    await t.lua(SHOW_DIFF_THEN_REJECT_EMPTY);
    await c.send("patch");
    const la = await reviewWindow(t, "a.txt");
    await t.nvim.command("stopinsert");
    await t.lua("vim.api.nvim_set_current_win(...); vim.api.nvim_win_set_cursor(0, { 2, 0 })", [la]);
    await t.nvim.input("ga");
    await t.nvim.input("ZZ");
    const lb = await reviewWindow(t, "b.txt");
    await t.lua("vim.api.nvim_set_current_win(...)", [lb]);
    await t.nvim.input("ZZ");
    await c.turns(1, 20_000);
    const tr = await c.text();
    expect(tr).toContain("it failed");
    expect(tr).not.toMatch(/The user (kept|rejected)/);
    expect(readFileSync(a, "utf8")).toBe(text(lines(10, "a")));
    expect(readFileSync(b, "utf8")).toBe(text(lines(10, "b")));
  });
});
