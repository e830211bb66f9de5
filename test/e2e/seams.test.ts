/**
 * The seams a hostile review found open: a save that Vim would have asked about, a second
 * :AcpChat during a restart, the Node host dying with prompts queued and questions open, a cancel
 * while a prompt is being prepared, secrets in a session listing's error.
 */
import { utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import {
  call,
  nvim,
  openChat,
  received,
  recordNotes,
  setAgents,
  startChat,
  shareNvim,
  ownNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

describe.each(bins)("Neovim $version", (bin) => {
  it('write = "save" on a file whose time changed but not its content: saved, no y/n question stops the editor', async () => {
    const t = await nvim(bin);
    const f = join(t.dir, "work/f.txt");
    writeFileSync(f, "a\n");
    await t.nvim.command(`edit ${f}`);
    const later = new Date(Date.now() + 5000);
    utimesSync(f, later, later);
    await setAgents(
      t,
      { fake: { turns: [[{ request: "fs/write_text_file", params: { path: f, content: "b\n" }, echo: true }]] } },
      { write: "save" },
    );
    const c = await openChat(t);
    await c.ready();
    await c.send("save");
    await c.turns(1);
    expect((await t.lua<{ blocking: boolean }>("return vim.api.nvim_get_mode()")).blocking).toBe(false);
    expect(await c.text()).toContain('"saved":true');
  });

  it("a second :AcpChat while a restart is starting does not restart it again (the load goes on)", async () => {
    const c = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true },
      record: "$DIR/record.jsonl",
      byText: { hello: [{ text: "first answer" }], boom: [{ exit: 3 }] },
    });
    await c.ready();
    await c.send("hello");
    await c.turns(1);
    await c.send("boom");
    await c.waitState("crashed");
    await c.t.nvim.command("AcpChat");
    expect(await c.state()).toBe("starting");
    await c.t.nvim.command("AcpChat");
    await c.ready();
    await c.t.waitFor(async () => (await c.text()).includes("first answer"), "the loaded conversation");
    expect(received(c.t.dir, "session/load")).toHaveLength(1);
    expect(received(c.t.dir, "session/new")).toHaveLength(1);
  });

  it("the dead agent's last status, drawn after :AcpChat restarted it, does not show it crashed again", async () => {
    const c = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true },
      byText: { hello: [{ text: "first answer" }], boom: [{ exit: 3 }] },
    });
    await c.ready();
    await c.send("hello");
    await c.turns(1);
    // :AcpChat as soon as the chat shows crashed (a user quick on the key): Node's next status
    // of the dead agent (its broken turn ended) is still on its way. Every state drawn after it
    // is noted, and every "stopped" warning.
    await c.t.lua(`
      local render, registry = require('acpchat.chat.render'), require('acpchat.chat.registry')
      local apply, notify = render.apply, vim.notify
      _G.after_restart, _G.stopped = nil, 0
      vim.notify = function(msg, ...)
        if tostring(msg):find('stopped', 1, true) then _G.stopped = _G.stopped + 1 end
        return notify(msg, ...)
      end
      render.apply = function(id, ops)
        apply(id, ops)
        local state = registry.get(id).status.state
        if _G.after_restart then
          table.insert(_G.after_restart, state)
        elseif state == 'crashed' then
          _G.after_restart = {}
          vim.cmd('AcpChat')
        end
      end`);
    await c.send("boom");
    const states = await c.t.waitFor(
      () => c.t.lua<string[] | null>("local s = _G.after_restart; return s and s[#s] == 'ready' and s or nil"),
      "the restarted chat ready",
    );
    expect(states).not.toContain("crashed");
    expect(await c.t.lua<number>("return _G.stopped")).toBe(1);
  });

  it("the Node host dies: queued prompts come back into the prompt, open questions close, and :AcpChat draws the session once", async () => {
    ownNvim(); // kills the Node host
    const c = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true },
      delays: { initialize: 300 },
      byText: {
        hello: [{ text: "kept once" }],
        ask: [
          {
            request: "session/request_permission",
            params: {
              toolCall: { toolCallId: "p1", title: "Do it", kind: "edit" },
              options: [{ optionId: "ok", name: "Allow", kind: "allow_once" }],
            },
          },
        ],
      },
    });
    await c.ready();
    await c.send("hello");
    await c.turns(1);
    // A question open, and a prompt queued behind the running turn.
    await c.t.lua("_G.asked = 0; vim.ui.select = function() _G.asked = _G.asked + 1 end");
    await c.send("ask");
    await c.t.waitFor(async () => (await c.t.lua<number>("return _G.asked")) === 1, "the question");
    await c.type("my precious prompt");
    await c.t.waitFor(async () => ((await c.status()).queued ?? []).length === 1, "the prompt queued");
    const host = (await call<{ pid: number }>(c.t, "ping")).pid;
    process.kill(host, "SIGKILL");
    await c.waitState("crashed");
    await c.t.waitFor(
      async () => (await c.promptLines()).join("\n") === "my precious prompt",
      "the queued prompt back",
    );
    expect(await c.t.lua<number>("return vim.tbl_count(require('acpchat.ask.questions').open)")).toBe(0);
    // Started again in a new host: the conversation is shown once, not twice.
    await c.t.nvim.command("AcpChat");
    await c.ready();
    await c.t.waitFor(async () => (await c.text()).includes("kept once"), "the session again");
    await new Promise((r) => setTimeout(r, 300));
    expect((await c.text()).split("kept once").length - 1).toBe(1);
  });

  it("a cancel while a queued prompt's files are read takes it back instead of sending it", async () => {
    const c = await startChat(bin, {
      record: "$DIR/record.jsonl",
      agentCapabilities: { promptCapabilities: { embeddedContext: true } },
    });
    await c.ready();
    writeFileSync(join(c.t.dir, "work/ctx.txt"), "context\n");
    await c.t.lua(
      "local c = require('acpchat.chat.registry').get(...); table.insert(c.context, { type = 'file', path = select(2, ...) })",
      [c.id, join(c.t.dir, "work/ctx.txt")],
    );
    await c.t.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, { 'never sent' })", [c.promptBuf]);
    await c.t.lua(
      "local c = require('acpchat.chat.registry').get(...); require('acpchat.app.chats').send_prompt(c); require('acpchat.app.chats').cancel(c)",
      [c.id],
    );
    await c.t.waitFor(async () => (await c.promptLines()).join("\n").includes("never sent"), "the prompt back");
    await new Promise((r) => setTimeout(r, 500));
    expect(received(c.t.dir, "session/prompt")).toHaveLength(0);
  });

  it("a session listing that fails shows its error without the agent's secrets", async () => {
    const t = await nvim(bin);
    await t.lua("require('acpchat').setup(...)", [
      {
        agents: {
          bad: {
            command: "sh",
            args: ["-c", "echo cred is $MY_SERVICE_CRED >&2; exit 3", "x", "--key", "argsecret123456"],
            env: { MY_SERVICE_CRED: "envsecret987654" },
          },
        },
        default_agent: "bad",
      },
    ]);
    await recordNotes(t);
    await t.nvim.command("AcpChatSessions bad");
    await t.waitFor(
      async () => (await t.lua<{ msg: string }[]>("return _G.notes")).some((n) => n.msg.includes("could not list")),
      "the error",
    );
    const notes = JSON.stringify(await t.lua("return _G.notes"));
    expect(notes).not.toContain("envsecret987654");
    expect(notes).not.toContain("argsecret123456");
  });
});
