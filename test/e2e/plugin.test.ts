/** The plugin's surface in a real Neovim: text builder, config, completion, context, health, loading. */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LUA_METHODS, NODE_EVENTS, NODE_REQUESTS } from "../../src/nvim/contract.js";
import { wireName } from "../../src/nvim/wire.js";
import { readRecord } from "../support/conformance.js";
import { nvimBins, ROOT } from "../support/nvim.js";
import { notes, nvim, openChat, recordNotes, setAgents, withAgents } from "../support/chat.js";

const bins = nvimBins();

it("the Lua mirror of the contract lists exactly the methods of src/nvim/contract.ts", () => {
  const lua = readFileSync(join(ROOT, "lua/acpchat/host/contract.lua"), "utf8");
  const section = (name: string) =>
    [...(new RegExp(`${name} = \\{([^}]*)\\}`).exec(lua)?.[1] ?? "").matchAll(/"(\w+)"/g)].map((m) => m[1]);
  expect(section("calls")).toEqual(LUA_METHODS.map(wireName));
  expect(section("events")).toEqual(NODE_EVENTS.map(wireName));
  expect(section("requests")).toEqual(NODE_REQUESTS.map(wireName));
});

describe.each(bins)("Neovim $version", (bin) => {
  it("text builder: blocks to lines and highlights, without a window", async () => {
    const t = await nvim(bin);
    const r = await t.lua<unknown[]>(`
      local text = require("acpchat.transcript.text")
      local out = {}
      local function add(v) local l, h, lh = text.block(v); table.insert(out, { lines = l, hls = h, line_hl = lh or false }) end
      add({ type = "turn", turn = 3 })
      add({ type = "user", text = "a\\nb" })
      add({ type = "thought", text = "hm" })
      add({ type = "tool", tool_call_id = "x", title = "Edit f", kind = "edit", status = "failed",
            locations = { { path = "f.lua", line = 3 } }, input = '{"a":1}',
            content = { { type = "diff", path = "f.lua", added = 2, removed = 1, is_new = false },
                        { type = "terminal", id = "t", tail = "ok", exit = "exit 0" },
                        { type = "text", text = "note" } } })
      add({ type = "plan", entries = { { content = "one", status = "completed" }, { content = "two", status = "in_progress" } } })
      add({ type = "note", text = "careful", level = "warn" })
      return out
    `);
    expect(r).toEqual([
      { lines: ["## You · turn 3"], hls: [[0, 0, -1, "AcpChatTurn"]], line_hl: false },
      { lines: ["> a", "> b"], hls: [], line_hl: "AcpChatUser" },
      { lines: ["  ┆ hm"], hls: [], line_hl: "AcpChatThought" },
      {
        lines: [
          "✗ failed · edit · Edit f",
          "  ↳ f.lua:3",
          '  {"a":1}',
          "  +2 -1 f.lua",
          "  │ ok",
          "  │ [exit 0]  (gt: full output)",
          "  note",
        ],
        hls: [
          [0, 0, -1, "AcpChatToolTitle"],
          [0, 0, 10, "AcpChatToolFailed"],
          [1, 0, -1, "AcpChatLocation"],
          [2, 0, -1, "AcpChatToolInput"],
          [3, 0, -1, "AcpChatDiffSummary"],
          [3, 2, 4, "AcpChatDiffAdd"],
          [3, 5, 7, "AcpChatDiffDelete"],
          [4, 0, -1, "AcpChatTerminal"],
          [5, 0, -1, "AcpChatTerminalStatus"],
        ],
        line_hl: false,
      },
      {
        lines: ["Plan", "  ✓ one", "  ◐ two"],
        hls: [
          [0, 0, -1, "AcpChatPlanTitle"],
          [1, 0, -1, "AcpChatPlanDone"],
          [2, 0, -1, "AcpChatPlanActive"],
        ],
        line_hl: false,
      },
      { lines: ["! careful"], hls: [[0, 0, -1, "AcpChatWarn"]], line_hl: false },
    ]);
    const status = {
      agent: "claude",
      title: "Fix",
      mode: "Ask",
      model: "Opus",
      state: "running",
      activity: "streaming",
      queued: [{ id: 1, text: "next" }],
      usage: { used: 1500, size: 200000, cost: { amount: 0.25, currency: "USD" } },
    };
    const bar = (width?: number) =>
      t.lua<string>(
        `return require("acpchat.transcript.status_text").winbar(...)`,
        width === undefined ? [status] : [status, width],
      );
    // Agent and state first; details follow while they fit, and go first in a narrow window.
    expect(await bar()).toBe(
      "claude │ streaming… · 1 queued │ Fix │ mode: Ask │ model: Opus │ ctx 2k/200k (0%%) 0.25 USD",
    );
    expect(await bar(40)).toBe("claude │ streaming… · 1 queued │ Fix");
    expect(await bar(20)).toBe("claude │ streaming……");
    const crashed = await t.lua<string>(`return require("acpchat.transcript.status_text").winbar(...)`, [
      { agent: "x", state: "crashed", reason: "exit 3\nmore" },
    ]);
    expect(crashed).toBe("x │ crashed: exit 3");
  });

  it("validates setup() with dotted-path messages and keeps working without setup()", async () => {
    const t = await nvim(bin);
    const msgs = await t.lua<string[]>(`
      local c = require("acpchat.config")
      return {
        c.validate({ agents = { claude = { command = 42 } } }),
        c.validate({ agents = { x = { command = "x", args = { "a", 3 } } } }),
        c.validate({ layout = { position = "diagonal" } }),
        c.validate({ keymaps = { send = 1 } }),
        c.validate({ nonsense = true }),
        c.validate({ timeouts = { initialize_ms = "soon" } }),
        c.validate({ agents = { ok = { command = "ok", env = { A = "b" } } }, default_agent = "ok" }) or "valid",
      }
    `);
    expect(msgs).toEqual([
      "acpchat: setup(): agents.claude.command: expected non-empty string, got number",
      "acpchat: setup(): agents.x.args[2]: expected string, got number",
      'acpchat: setup(): layout.position: expected one of "right", "left", "top", "bottom", "float", got "diagonal"',
      "acpchat: setup(): keymaps.send: expected string or false, got number",
      "acpchat: setup(): nonsense: unknown option",
      "acpchat: setup(): timeouts.initialize_ms: expected number > 0, got string",
      "valid",
    ]);
    // Without any agent, :AcpChat says what to install.
    await recordNotes(t);
    await t.nvim.command("AcpChat");
    await t.waitFor(async () => (await notes(t)).length > 0, "a notification");
    const [m] = await notes(t);
    expect(m!.msg).toMatch(/no agent found[\s\S]*claude-agent-acp/);
  });

  it("completes / commands and @ files; @ mentions and :AcpChatAdd become resources in the prompt", async () => {
    const t = await withAgents(bin, {
      fake: {
        record: "$DIR/record.jsonl",
        commands: [
          { name: "review", description: "Review the diff", input: { hint: "branch" } },
          { name: "init", description: "Set up" },
        ],
      },
    });
    const record = join(t.dir, "record.jsonl");
    writeFileSync(join(t.dir, "work", "main.py"), "print('hi')\nx = 1\ny = 2\n");
    writeFileSync(join(t.dir, "work", "README.md"), "# readme\n");
    await t.nvim.command("edit main.py");
    const c = await openChat(t);
    await t.waitFor(
      async () => (((await c.status()).commands as unknown[] | undefined) ?? []).length === 2,
      "commands",
    );
    expect(await c.complete("/re")).toEqual([
      { word: "/review", abbr: "/review branch", menu: "Review the diff", kind: "cmd" },
    ]);
    expect((await c.complete("@ma")).map((f) => f.word)).toEqual(["@main.py"]);
    // :AcpChatAdd from the source window, with a range.
    await t.nvim.command("wincmd t");
    await t.nvim.command("2,3AcpChatAdd");
    expect(await c.promptWinbar()).toBe("context: main.py:2-3");
    await t.nvim.command("AcpChatSend look at @README.md please");
    await t.waitFor(
      async () => readRecord(record).received.some((m) => m.method === "session/prompt"),
      "the prompt to reach the agent",
    );
    const prompt = readRecord(record).received.find((m) => m.method === "session/prompt")!.params as {
      prompt: Record<string, unknown>[];
    };
    expect(prompt.prompt[0]).toEqual({ type: "text", text: "look at @README.md please" });
    expect(prompt.prompt[1]).toMatchObject({
      type: "resource",
      resource: { uri: `file://${join(t.dir, "work", "README.md")}`, text: "# readme\n" },
    });
    expect(prompt.prompt[2]).toMatchObject({
      type: "resource",
      resource: { uri: `file://${join(t.dir, "work", "main.py")}#L2-L3`, text: "x = 1\ny = 2" },
    });
    expect(await c.promptWinbar()).toBe("");
  });

  it(":checkhealth acpchat reports Node, the host, the build, registration and agents", async () => {
    const t = await withAgents(bin, { fake: {} });
    await t.nvim.command("checkhealth acpchat");
    const text = (await t.lines(0)).join("\n");
    expect(text).toMatch(/OK.*Node v\d+/);
    expect(text).toMatch(/OK.*node host: .*dist\/host\.cjs/);
    expect(text).toMatch(/OK.*remote plugin built/);
    expect(text).toMatch(/OK.*Node host answers \(pid \d+/);
    // How processes are contained: a cgroup each where the host can make them, else the limit said.
    const { cgroupSupport } = await import("../../src/agent/cgroup.js");
    if (cgroupSupport().available)
      expect(text).toMatch(/OK.*processes: each agent and terminal in its own cgroup under /);
    else expect(text).toMatch(/WARNING.*processes: no cgroup[\s\S]*clears ACPCHAT_PROC_COOKIE[\s\S]*outlives the chat/);
    expect(text).toMatch(/OK.*fake: `.*node` found/);
    expect(text).not.toMatch(/ERROR/);
  });

  it("needs no :UpdateRemotePlugins, and still works after one (the manifest is not used)", async () => {
    const first = await withAgents(bin, { fake: { turns: [[{ text: "classic" }]] } });
    await first.nvim.command("UpdateRemotePlugins");
    await first.quit();
    // The next Neovim shares the data folder, where the manifest was written.
    const t = await withAgents(
      bin,
      { fake: { turns: [[{ text: "classic" }]] } },
      {},
      { XDG_DATA_HOME: join(first.dir, "data") },
    );
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend hi");
    await t.waitFor(async () => (await c.lines()).at(-1) === "classic", "the answer");
  });

  it("loads lazily, the way lazy.nvim's cmd = 'AcpChat' does: on the rtp only when first used", async () => {
    const bare = join(tmpdir(), `acpchat-bare-init-${process.pid}.lua`);
    writeFileSync(bare, "vim.opt.swapfile = false\n");
    const t = await nvim(bin, {}, {}, bare);
    expect(await t.lua("return vim.fn.exists(':AcpChat')")).toBe(0);
    // What a plugin manager does on the first :AcpChat: add to the rtp, source plugin/.
    await t.lua("vim.opt.rtp:prepend(...); vim.cmd('runtime plugin/acpchat.lua')", [ROOT]);
    await setAgents(t, { lazy: { turns: [[{ text: "loaded late" }]] } });
    const c = await openChat(t);
    await c.ready();
    await t.nvim.command("AcpChatSend hi");
    await t.waitFor(async () => (await c.lines()).at(-1) === "loaded late", "the answer");
  });

  it("presets: an agent whose command is on PATH is offered (the claude adapter under its older name too)", async () => {
    const t0 = await nvim(bin);
    const binDir = join(t0.dir, "bin");
    await t0.quit();
    mkdirSync(binDir, { recursive: true });
    for (const name of ["claude-code-acp", "goose"]) {
      writeFileSync(join(binDir, name), "#!/bin/sh\nexit 0\n");
      chmodSync(join(binDir, name), 0o755);
    }
    // Only the planted commands: the dev dependencies' node_modules/.bin (npm puts it on PATH)
    // holds real adapters (claude-agent-acp would win the claude preset).
    const system = (process.env.PATH ?? "").split(":").filter((d) => !d.includes("node_modules"));
    const t = await nvim(bin, {}, { PATH: [binDir, ...system].join(":") });
    expect(await t.lua("return require('acpchat.config').agent_names()")).toEqual(["claude", "goose"]);
    expect(await t.lua("return require('acpchat.config').agents().claude.command")).toBe("claude-code-acp");
    expect(await t.lua("return require('acpchat.config').agents().goose.args")).toEqual(["acp"]);
    expect(await t.lua("return vim.fn.getcompletion('AcpChat ', 'cmdline')")).toEqual(["claude", "goose"]);
  });
});
