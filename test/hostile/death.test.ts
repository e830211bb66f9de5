/** Death: the agent exits, is killed, closes its output, or crashes while a question or review is open. */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { groupAlive } from "../../src/agent/process-group.js";
import { start } from "./harness.js";

describe("agent death", () => {
  for (const [name, step, expected] of [
    ["exits mid-turn", { exit: 9 }, /exited with code 9/],
    ["is killed by a signal", { signal: "SIGKILL" }, /killed by SIGKILL/],
    ["closes stdout while it keeps running", { closeStdout: true }, /closed its output/],
  ] as const) {
    it(`${name}: the turn ends visibly, the transcript stays, no process is left`, async () => {
      const h = await start({ spawnChild: true, turns: [[{ text: "partial answer" }, { sleep: 50 }, step]] });
      await h.ready();
      const pid = await h.agentPid();
      await h.send("go");
      await h.turns(1);
      expect(await h.lastStop()).toBe("error");
      const text = await h.text();
      expect(text).toContain("partial answer");
      expect(text).toMatch(expected);
      await h.t.waitFor(async () => !groupAlive(pid), "the agent's process group to be gone");
    });
  }

  it("crash while a permission question is open: the question closes, the turn ends", async () => {
    const h = await start({
      turns: [
        [
          {
            request: "session/request_permission",
            params: {
              toolCall: { toolCallId: "x", title: "Dangerous" },
              options: [{ optionId: "ok", name: "OK", kind: "allow_once" }],
            },
          },
        ],
      ],
    });
    await h.t.lua("_G.asked = 0; vim.ui.select = function() _G.asked = _G.asked + 1 end");
    await h.ready();
    const pid = await h.agentPid();
    await h.send("go");
    await h.t.waitFor(async () => (await h.t.lua<number>("return _G.asked")) === 1, "the question");
    process.kill(-pid, "SIGKILL");
    await h.turns(1);
    expect(await h.lastStop()).toBe("error");
    expect(await h.t.lua("return vim.tbl_count(require('acpchat.ask.questions').open)")).toBe(0);
  });

  it("crash while a review is open: the review closes and nothing is written", async () => {
    const h = await start({ turns: [[]] }, { write: "review" });
    const file = join(h.t.dir, "work", "keep.txt");
    writeFileSync(file, "original\n");
    await h.t.lua(
      "require('acpchat.config').options.agents.bad.env.FAKE_AGENT_SCENARIO = vim.json.encode({ turns = { { { request = 'fs/write_text_file', params = { path = ..., content = 'EVIL\\n' } } } } })",
      [file],
    );
    await h.t.nvim.command("AcpChatClose");
    await h.t.nvim.command("AcpChat");
    const id = await h.t.lua<number>("return require('acpchat.chat.registry').current().id");
    await h.t.waitFor(
      async () =>
        (await h.t.lua<string>("return require('acpchat.chat.registry').get(...).status.state", [id])) === "ready",
      "ready",
    );
    const pid = (
      await h.t.lua<{ chat: number; pid: number }[]>("return require('acpchat.host.bridge').call_sync('chats', {})")
    ).find((c) => c.chat === id)!.pid;
    await h.t.lua("require('acpchat.app.chats').send(require('acpchat.chat.registry').get(...), 'write')", [id]);
    await h.t.waitFor(
      async () => (await h.t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")) === 1,
      "the review",
    );
    process.kill(-pid, "SIGKILL");
    await h.t.waitFor(
      async () => (await h.t.lua<number>("return vim.tbl_count(require('acpchat.ask.review').open_reviews)")) === 0,
      "the review to close",
    );
    await h.t.waitFor(
      async () => (await h.t.lua<number>("return vim.fn.tabpagenr('$')")) === 1,
      "the review tab to close",
    );
    expect(readFileSync(file, "utf8")).toBe("original\n");
    expect(existsSync(file)).toBe(true);
  });
});
