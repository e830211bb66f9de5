/**
 * Data safety: a symlink swapped in after the check, a write that fails half way, unsaved edits
 * and undo history, and planted secrets searched for in every output.
 */
import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { start } from "./harness.js";

function canMountTmpfs(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = `/tmp/acpchat-mount-probe-${process.pid}`;
  mkdirSync(dir, { recursive: true });
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
    execFileSync("umount", [dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("data safety", () => {
  it("a symlink swapped in after the check (during the review) is caught: nothing written outside", async () => {
    const h = await start({ turns: [[]] }, { write: "review" });
    const work = join(h.t.dir, "work");
    const outside = join(h.t.dir, "outside");
    mkdirSync(outside);
    mkdirSync(join(work, "sub"));
    await h.t.lua(
      "require('acpchat.config').options.agents.bad.env.FAKE_AGENT_SCENARIO = vim.json.encode({ turns = { { ... } } })",
      [
        {
          request: "fs/write_text_file",
          params: { path: join(work, "sub", "f.txt"), content: "payload\n" },
          echo: true,
        },
      ],
    );
    await h.t.nvim.command("AcpChatClose");
    await h.t.nvim.command("AcpChat");
    const id = await h.t.lua<number>("return require('acpchat.chat.registry').current().id");
    await h.t.waitFor(
      async () =>
        (await h.t.lua<string>("return require('acpchat.chat.registry').get(...).status.state", [id])) === "ready",
      "ready",
    );
    await h.t.lua("require('acpchat.app.chats').send(require('acpchat.chat.registry').get(...), 'go')", [id]);
    await h.t.waitFor(async () => (await h.t.lua<number>("return vim.fn.tabpagenr('$')")) === 2, "the review");
    // The swap: sub/ becomes a link to a folder outside the cwd.
    renameSync(join(work, "sub"), join(work, "sub-old"));
    symlinkSync(outside, join(work, "sub"));
    await h.t.nvim.input("gAZZ");
    await h.t.waitFor(
      async () =>
        (await h.t.lua<number>("return require('acpchat.chat.registry').get(...).turn_ended or 0", [id])) >= 1,
      "the turn",
    );
    const text = (
      await h.t.lines(await h.t.lua<number>("return require('acpchat.chat.registry').get(...).buf", [id]))
    ).join("\n");
    expect(text).toMatch(/Access denied: .*sub changed \(a symlink was swapped in\)/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it.skipIf(!canMountTmpfs())(
    "a write that fails half way (disk full) leaves the old file intact and no temp file",
    async () => {
      const h = await start({
        turns: [
          [
            {
              request: "fs/write_text_file",
              params: { path: "$DIR/work/small/f.txt", content: "$repeat:200000:x" },
              echo: true,
            },
          ],
        ],
      });
      const small = join(h.t.dir, "work", "small");
      mkdirSync(small);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", small]);
      try {
        writeFileSync(join(small, "f.txt"), "old content\n");
        await h.ready();
        await h.send("go");
        await h.turns(1);
        const text = await h.text();
        expect(text).toMatch(/could not write .*f\.txt: .*ENOSPC/);
        expect(readFileSync(join(small, "f.txt"), "utf8")).toBe("old content\n");
        expect(readdirSync(small)).toEqual(["f.txt"]);
      } finally {
        execFileSync("umount", [small]);
      }
    },
  );

  it("the user's unsaved edits and undo history survive an agent write (reviewed, one hunk accepted)", async () => {
    const h = await start(
      {
        turns: [
          [
            {
              request: "fs/write_text_file",
              params: { path: "$DIR/work/u.txt", content: "a\nb\nc\nd\nAGENT\n" },
              echo: true,
            },
          ],
        ],
      },
      { write: "buffer" },
    );
    const file = join(h.t.dir, "work", "u.txt");
    writeFileSync(file, "a\nb\nc\nd\ne\n");
    await h.t.nvim.command("wincmd t");
    await h.t.nvim.command(`edit ${file}`);
    for (const [row, text] of [
      [0, "A1"],
      [1, "B1"],
      [2, "C1"],
    ] as const) {
      await h.t.lua("vim.api.nvim_buf_set_lines(0, ..., select(1, ...) + 1, false, { select(2, ...) })", [row, text]);
      await h.t.lua("vim.cmd('let &undolevels = &undolevels')"); // close the undo block
    }
    const id = h.id;
    await h.ready();
    await h.send("go");
    await h.t.waitFor(
      async () => (await h.t.lua<number>("return vim.fn.tabpagenr('$')")) === 2,
      "the review of the conflicting write",
    );
    // Accept only the agent's hunk at the end, not the ones that would undo the user's edits.
    await h.t.lua("vim.api.nvim_win_set_cursor(0, { 5, 0 })");
    await h.t.nvim.input("gaZZ");
    await h.t.waitFor(
      async () =>
        (await h.t.lua<number>("return require('acpchat.chat.registry').get(...).turn_ended or 0", [id])) >= 1,
      "the turn",
    );
    const buf = await h.t.lua<number>("return vim.fn.bufnr(...)", [file]);
    expect(await h.t.lines(buf)).toEqual(["A1", "B1", "C1", "d", "AGENT"]);
    // One undo removes the agent's change; the user's own history is still there below it.
    await h.t.lua("vim.api.nvim_buf_call(..., function() vim.cmd('undo') end)", [buf]);
    expect(await h.t.lines(buf)).toEqual(["A1", "B1", "C1", "d", "e"]);
    await h.t.lua("vim.api.nvim_buf_call(..., function() vim.cmd('undo') end)", [buf]);
    expect((await h.t.lines(buf))[2]).toBe("c");
    expect(readFileSync(file, "utf8")).toBe("a\nb\nc\nd\ne\n");
  });

  it("planted secrets never show: transcript, tool calls, notes, errors, the log buffer, the trace file", async () => {
    const SECRET = "sk-planted-3f9a8b7c6d5e";
    const h = await start(
      {
        turns: [
          [
            { text: "my key is $env.PLANTED_API_KEY, see" },
            { text: " and split: sk-planted-3f9a" },
            { text: "8b7c6d5e end" },
            {
              update: {
                sessionUpdate: "tool_call",
                toolCallId: "t1",
                title: "curl -H 'Authorization: $env.PLANTED_API_KEY'",
                kind: "fetch",
                rawInput: { apiKey: "$env.PLANTED_API_KEY", url: "http://x" },
              },
            },
            { stderr: "debug: using key $env.PLANTED_API_KEY" },
            {
              request: "session/request_permission",
              params: {
                toolCall: { toolCallId: "t2", title: "Use $env.PLANTED_API_KEY" },
                options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
              },
            },
            { exit: 1 },
          ],
        ],
      },
      {},
      { PLANTED_API_KEY: SECRET },
    );
    await h.t.lua(
      "_G.prompts = {}; vim.ui.select = function(items, opts, cb) table.insert(_G.prompts, opts.prompt); cb(items[1]) end",
    );
    await h.ready();
    await h.send("go");
    await h.turns(1);
    const transcript = await h.text();
    expect(transcript).toContain("my key is [REDACTED], see");
    await h.t.nvim.command("AcpChatLog");
    await h.t.waitFor(async () => (await h.t.lua<number>("return vim.fn.tabpagenr('$')")) === 2, "the log tab");
    const logBuf = (await h.t.lines(0)).join("\n");
    await h.t.nvim.command("tabclose");
    const prompts = JSON.stringify(await h.t.lua("return _G.prompts"));
    const notes = JSON.stringify(await h.notes());
    const messages = await h.t.lua<string>("return vim.fn.execute('messages')");
    await h.t.nvim.command("AcpChatClose");
    const logs = join(h.t.dir, "state/nvim/acpchat");
    const disk = await h.t.waitFor(async () => {
      const files = existsSync(logs) ? readdirSync(logs).filter((f) => f.endsWith(".jsonl")) : [];
      const text = files.map((f) => readFileSync(join(logs, f), "utf8")).join("");
      return text.includes('"closed"') ? text : undefined;
    }, "the trace file");
    for (const [where, text] of Object.entries({ transcript, logBuf, prompts, notes, messages, disk })) {
      expect(text.includes(SECRET), `${where} holds the secret`).toBe(false);
    }
    expect(disk).toContain("[REDACTED]");
  });
});
