/**
 * The unstable additions of ACP v1 (option `unstable`), with the scripted agent, on both
 * Neovims, each with the option on and off: plans by id, subagents (child sessions nested and
 * folded in the transcript, opened in their own view), messages between sessions, :AcpChatFork
 * (session/fork) and renaming from the sessions picker (session/set_title).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { editorLateness, nvimBins } from "../support/nvim.js";
import {
  answerKinds,
  chatCount,
  chatHandle,
  openChat,
  received,
  recordNotes,
  replies,
  sendAndWait,
  setScenario,
  startChat,
  withAgents,
  type Chat,
  shareNvim,
  ownNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

const plans = [
  {
    update: {
      sessionUpdate: "plan_update",
      plan: {
        type: "items",
        planId: "p1",
        entries: [
          { content: "read the parser", priority: "high", status: "in_progress" },
          { content: "fix it", priority: "medium", status: "pending" },
        ],
      },
    },
  },
  { text: "working" },
  {
    update: {
      sessionUpdate: "plan_update",
      plan: {
        type: "items",
        planId: "p1",
        entries: [
          { content: "read the parser", priority: "high", status: "completed" },
          { content: "fix it", priority: "medium", status: "in_progress" },
        ],
      },
    },
  },
  {
    update: {
      sessionUpdate: "plan_update",
      plan: { type: "markdown", planId: "p2", content: "# Later\n- write tests" },
    },
  },
  { update: { sessionUpdate: "plan_update", plan: { type: "file", planId: "p3", uri: "file://$DIR/work/PLAN.md" } } },
  { update: { sessionUpdate: "plan_removed", planId: "p2" } },
  { notify: "auth/status_update", params: { state: "unauthenticated", accounts: [{ label: "Fake Max" }] } },
];

const child = "child-1";
const subagentTurn = [
  {
    update: {
      sessionUpdate: "subagent_update",
      sessionId: child,
      title: "Researcher",
      description: "reads the docs",
      state: { state: "running" },
      capabilities: { cancel: {} },
    },
  },
  {
    update: {
      sessionUpdate: "session_message",
      messageId: "m1",
      recipientSessionId: child,
      content: [{ type: "text", text: "look up the API" }],
    },
  },
  {
    session: child,
    update: { sessionUpdate: "user_message_chunk", content: { type: "text", text: "look up the API" } },
  },
  // Apart (render batches of their own): the block is redrawn, its fold stays closed.
  {
    delay: 80,
    session: child,
    update: {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "child says hi, key $env.ACP_CHILD_KEY" },
    },
  },
  {
    delay: 80,
    session: child,
    update: { sessionUpdate: "tool_call", toolCallId: "c1", title: "Read docs", kind: "read", status: "completed" },
  },
  // The subagent asks a permission for a tool call of its own: shown in its transcript, not the parent's.
  {
    request: "session/request_permission",
    params: {
      sessionId: child,
      toolCall: { toolCallId: "c2", title: "Write notes", kind: "edit" },
      options: [
        { optionId: "ok", name: "Allow", kind: "allow_once" },
        { optionId: "no", name: "Reject", kind: "reject_once" },
      ],
    },
    echo: true,
  },
  { update: { sessionUpdate: "session_message", messageId: "m2", senderSessionId: child } },
  { update: { sessionUpdate: "session_message_chunk", messageId: "m2", content: { type: "text", text: "found " } } },
  { update: { sessionUpdate: "session_message_chunk", messageId: "m2", content: { type: "text", text: "it" } } },
  { update: { sessionUpdate: "subagent_update", sessionId: child, state: { state: "idle", stopReason: "end_turn" } } },
  { text: "parent done" },
];

/** 1-based row of the first transcript line that starts with `prefix`. */
async function rowOf(c: Chat, prefix: string): Promise<number> {
  const i = (await c.lines()).findIndex((l) => l.startsWith(prefix));
  expect(i, `a line starting with ${JSON.stringify(prefix)}`).toBeGreaterThanOrEqual(0);
  return i + 1;
}

/** foldclosed() of a transcript row in its window (-1: not in a closed fold). */
async function foldClosed(c: Chat, row: number): Promise<number> {
  return c.t.lua<number>(
    "local win, row = ...; return vim.api.nvim_win_call(win, function() return vim.fn.foldclosed(row) end)",
    [await c.win(), row],
  );
}

describe.each(bins)("Neovim $version", (bin) => {
  it("off (the default): nothing unstable is advertised, unstable updates are unknown notes, :AcpChatFork and renaming say why not", async () => {
    const c = await startChat(bin, {
      record: "$DIR/record.jsonl",
      agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, fork: {}, title: {} } },
      turns: [
        [
          plans[0],
          subagentTurn[0],
          {
            session: child,
            update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "orphan" } },
          },
          plans.at(-1)!,
          { text: "done" },
        ],
      ],
    });
    await c.ready();
    const init = received(c.t.dir, "initialize")[0] as { clientCapabilities: Record<string, unknown> };
    expect(init.clientCapabilities.plan).toBeUndefined();
    expect(init.clientCapabilities.subagents).toBeUndefined();
    await sendAndWait(c, "go");
    const text = await c.text();
    expect(text).toContain('! unknown session/update variant "plan_update"');
    expect(text).toContain('! unknown session/update variant "subagent_update"');
    expect(text).not.toContain("orphan");
    expect(text).not.toContain("⑂");
    expect(text).not.toContain("auth/status_update"); // not registered: ignored, as any unknown notification
    await recordNotes(c.t);
    await c.t.nvim.command("AcpChatFork");
    expect((await c.notes()).map((n) => n.msg)).toEqual([
      expect.stringContaining(":AcpChatFork needs `unstable = true`"),
    ]);
    expect(received(c.t.dir, "session/fork")).toEqual([]);
    // The sessions picker offers no renaming.
    await c.t.lua(
      "_G.items = nil; vim.ui.select = function(items, opts, cb) _G.items = vim.tbl_map(opts.format_item, items); cb(nil) end",
    );
    await c.t.nvim.command("AcpChatSessions");
    const items = await c.t.waitFor(() => c.t.lua<string[] | null>("return _G.items"), "the sessions picker");
    expect(items.length).toBeGreaterThan(0);
    expect(items.some((l) => l.includes("Rename"))).toBe(false);
  });

  it("on: plans by id are drawn, redrawn in place, removed; a file plan's location opens with gf", async () => {
    const c = await startChat(bin, { record: "$DIR/record.jsonl", turns: [plans] }, { unstable: true });
    writeFileSync(join(c.t.dir, "work", "PLAN.md"), "# The plan\n");
    await c.ready();
    const init = received(c.t.dir, "initialize")[0] as { clientCapabilities: Record<string, unknown> };
    expect(init.clientCapabilities).toMatchObject({ plan: {}, subagents: {} });
    await sendAndWait(c, "go");
    const lines = await c.lines();
    const text = lines.join("\n");
    expect(lines.filter((l) => l === "Plan · p1")).toHaveLength(1);
    expect(text).toContain("Plan · p1\n  ✓ read the parser\n  ◐ fix it");
    expect(text).toContain("Plan · p2 (removed by the agent)");
    expect(text).not.toContain("write tests");
    expect(text).toContain(`Plan · p3\n  ↳ ${join(c.t.dir, "work", "PLAN.md")}`);
    expect(text).not.toContain("unknown session/update");
    expect(text).toContain("! fake needs you to sign in again (auth/status_update).");
    expect(await c.problems()).toEqual([]);
    // gf on the file plan's line opens it.
    await c.focus();
    await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [await rowOf(c, "  ↳ ")]);
    await c.t.lua("vim.api.nvim_feedkeys('gf', 'x', false)");
    await c.t.waitFor(
      async () => (await c.t.lua<string>("return vim.api.nvim_buf_get_name(0)")).endsWith("PLAN.md"),
      "PLAN.md to open",
    );
  });

  it("on: a subagent's session is nested in a folded block, its messages are blocks, gs opens its own view, which follows it", async () => {
    const c = await startChat(
      bin,
      {
        record: "$DIR/record.jsonl",
        turns: [
          subagentTurn,
          [
            {
              session: child,
              update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "and more" } },
            },
            { text: "second" },
          ],
        ],
      },
      { unstable: true },
      { agentExtra: { env: { ACP_CHILD_KEY: "child-secret-55aa77" } } },
    );
    await c.ready();
    await answerKinds(c.t, ["allow_once"]);
    await sendAndWait(c, "go");
    const text = await c.text();
    expect(text).toContain("⑂ subagent · Researcher · idle  (gs: open)\n  reads the docs\n");
    // The subagent's permission question: its tool call is in its transcript, answered allow.
    expect(text).toContain("  │ ○ pending · edit · Write notes");
    // Once (the answer's own line aside).
    expect(text.split("\n").filter((l) => l.includes("Write notes") && !l.includes("you chose"))).toHaveLength(1);
    expect(text).toContain('Allowed "Write notes": you chose');
    expect(await replies(c)).toEqual([
      { jsonrpc: "2.0", id: expect.any(Number), result: { outcome: { outcome: "selected", optionId: "ok" } } },
    ]);
    expect(text).toContain("  │ > look up the API");
    expect(text).toContain("  │ child says hi, key [REDACTED]");
    expect(text).toContain("  │ ● done · read · Read docs");
    expect(text).toContain("→ message to Researcher\n  look up the API");
    expect(text).toContain("← message from Researcher\n  found it");
    expect(text).toContain("parent done");
    expect(text).not.toContain("child-secret-55aa77");
    expect(await c.problems()).toEqual([]);
    // Folded under its header and description.
    const head = await rowOf(c, "⑂ subagent");
    const nested = await rowOf(c, "  │ child says hi");
    expect(await foldClosed(c, head)).toBe(-1);
    expect(await foldClosed(c, head + 1)).toBe(-1);
    expect(await foldClosed(c, nested)).toBe(head + 2);
    // gs on the block: the child's whole session in a view of its own.
    await c.focus();
    await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [head]);
    await c.t.lua("vim.api.nvim_feedkeys('gs', 'x', false)");
    const viewBuf = await c.t.waitFor(
      () => c.t.lua<number>("local b = vim.fn.bufnr('acpchat://*/subagent/child-1'); return b > 0 and b or nil"),
      "the subagent's view",
    );
    await c.t.waitFor(
      async () => (await c.t.lines(viewBuf)).join("\n").includes("Read docs"),
      "the view to show the child's session",
    );
    const view = (await c.t.lines(viewBuf)).join("\n");
    expect(view).toContain("⑂ subagent · Researcher · idle  (<C-c>: stop it)");
    // <C-c> in its view stops its work: session/cancel with the child's id (the agent allowed it).
    await c.t.lua(
      "vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1]); vim.api.nvim_feedkeys(vim.keycode('<C-c>'), 'x', false)",
      [viewBuf],
    );
    await c.t.waitFor(async () => received(c.t.dir, "session/cancel").length > 0, "session/cancel for the subagent");
    expect(received(c.t.dir, "session/cancel")).toEqual([{ sessionId: child }]);
    await c.t.waitFor(
      async () => (await c.text()).includes("! Asked Researcher to stop its current work (session/cancel)."),
      "the note",
    );
    expect(view).toContain("child says hi, key [REDACTED]");
    expect(await c.t.lua<number>("return #vim.fn.win_findbuf(...)", [viewBuf])).toBe(1);
    // The user opens the fold; the next turn redraws the block and the fold stays open, and the view follows.
    await c.t.lua("local win, row = ...; vim.api.nvim_win_call(win, function() vim.cmd(row .. 'foldopen') end)", [
      await c.win(),
      nested,
    ]);
    await sendAndWait(c, "again");
    // After its tool call, the child's words are a block of their own.
    expect(await c.text()).toContain("  │ ○ pending · edit · Write notes\n  │\n  │ and more\n");
    expect(await foldClosed(c, await rowOf(c, "  │ child says hi"))).toBe(-1);
    await c.t.waitFor(
      async () => (await c.t.lines(viewBuf)).join("\n").includes("\nand more"),
      "the view to follow the child",
    );
  });

  it("on: :AcpChatFork starts a new chat from session/fork of this one (the source's transcript above); an agent without fork says so", async () => {
    const c = await startChat(
      bin,
      {
        record: "$DIR/record.jsonl",
        store: "$DIR/store.json",
        agentCapabilities: { loadSession: true, sessionCapabilities: { fork: {} } },
      },
      { unstable: true },
    );
    await c.ready();
    await sendAndWait(c, "first question");
    const source = (await c.status()).session_id as string;
    await c.t.nvim.command("AcpChatFork");
    await c.t.waitFor(async () => (await chatCount(c.t)) === 2, "a second chat");
    const f = await chatHandle(c.t);
    expect(f.id).not.toBe(c.id);
    await f.ready();
    const forked = received(c.t.dir, "session/fork");
    expect(forked).toEqual([
      expect.objectContaining({ sessionId: source, cwd: expect.any(String), mcpServers: expect.any(Array) }),
    ]);
    expect((await f.status()).session_id).toMatch(/^fork-/);
    const lines = await f.lines();
    expect(lines[0]).toMatch(/^── forked from sess-\w+: the conversation so far/);
    expect(lines.join("\n")).toContain("echo: first question");
    await sendAndWait(f, "second question");
    expect(await f.text()).toContain("echo: second question");
    // The source chat is untouched.
    expect(await c.text()).not.toContain("second question");

    // An agent that cannot fork: a clear note, no new chat.
    const d = await startChat(bin, { agentCapabilities: { loadSession: true } }, { unstable: true });
    await d.ready();
    await recordNotes(d.t);
    await d.t.nvim.command("AcpChatFork");
    await d.t.waitFor(async () => (await d.notes()).length > 0, "a note");
    expect((await d.notes())[0]!.msg).toBe(
      "acpchat: cannot fork: fake cannot fork sessions (it does not advertise sessionCapabilities.fork)",
    );
    expect(await chatCount(d.t)).toBe(1);
  });

  it("hostile: subagents nested 12 deep, a flood of 300 and a cycle: the host lives, each refusal is one note, the turn ends", async () => {
    const deep = Array.from({ length: 12 }, (_, i) => ({
      session: `k${i}`,
      update: { sessionUpdate: "subagent_update", sessionId: `k${i + 1}`, title: `K${i + 1}` },
    }));
    const steps = [
      { update: { sessionUpdate: "subagent_update", sessionId: "k0", title: "K0" } },
      ...deep,
      // The deepest drawn (k2) and kept (k3): a tool call with a diff, the most nested views Neovim is sent.
      {
        session: "k2",
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "t",
          title: "Drawn deep edit",
          kind: "edit",
          status: "completed",
          content: [{ type: "diff", path: "$DIR/work/a.txt", oldText: "a\n", newText: "b\n" }],
          rawInput: { a: { b: { c: { d: { e: { f: [1, [2, [3, [4]]]] } } } } } },
        },
      },
      {
        session: "k3",
        update: {
          sessionUpdate: "tool_call",
          toolCallId: "t",
          title: "Deep edit",
          kind: "edit",
          status: "completed",
          content: [{ type: "diff", path: "$DIR/work/a.txt", oldText: "a\n", newText: "b\n" }],
        },
      },
      {
        session: "k3",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "deep words" } },
      },
      {
        session: "k11",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "too deep words" } },
      },
      // Cycles: k1 names its own parent as its child; k2 names the chat's own session.
      { session: "k1", update: { sessionUpdate: "subagent_update", sessionId: "k0", title: "cycle" } },
      {
        session: "k2",
        update: { sessionUpdate: "subagent_update", sessionId: "$last.sessionId", title: "Root again" },
      },
      { update: { sessionUpdate: "subagent_update", sessionId: "$last.sessionId", title: "Root again" } },
      ...Array.from({ length: 300 }, (_, i) => ({
        update: { sessionUpdate: "subagent_update", sessionId: `f${i}`, title: `Flood ${i}` },
      })),
      { text: "parent after" },
    ];
    const c = await startChat(bin, { turns: [steps] }, { unstable: true });
    await c.ready();
    await sendAndWait(c, "go");
    const text = await c.text();
    expect(text).toContain("parent after");
    const count = (s: string) => text.split(s).length - 1;
    expect(count("! The agent nested subagents more than 4 deep; the deeper ones are not shown.")).toBe(1);
    expect(count("! The agent started more than 200 subagents in this chat; the others are not shown.")).toBe(1);
    expect(
      count("! The agent announced k0 as a subagent here, but it is already one elsewhere in this chat; ignored."),
    ).toBe(1);
    expect(count("! The agent announced this chat's own session (sess-")).toBe(1);
    expect(text).not.toContain("Root again");
    expect(text).toContain("  │   │   │ ● done · edit · Drawn deep edit");
    expect(text).not.toContain("too deep words");
    expect(text).not.toContain("K4");
    expect(text).toContain("⑂ subagent · Flood 195");
    expect(text).not.toContain("Flood 196"); // k0..k3 and f0..f195: 200 in all
    // Three levels are drawn nested (without a gs hint: gs opens the outer block); the fourth is its header and a count.
    expect(text).toContain(
      "⑂ subagent · K0  (gs: open)\n  │ ⑂ subagent · K1\n  │   │ ⑂ subagent · K2\n  │   │   │ ⑂ subagent · K3\n  │   │   │   │ … 2 blocks, nested too deep to show here",
    );
    // The refused sessions' updates are only in the trace.
    expect(await c.problems()).toEqual([
      ...[4, 5, 6, 7, 8, 9, 10, 11].map((i) => `subagent_update for unknown session k${i}`),
      "session/update for unknown session k11",
    ]);
    // The deepest child's own view shows its blocks.
    const head = await rowOf(c, "⑂ subagent · K0");
    await c.focus();
    await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [head]);
    await c.t.lua("vim.api.nvim_feedkeys('gs', 'x', false)");
    const viewBuf = await c.t.waitFor(
      () => c.t.lua<number>("local b = vim.fn.bufnr('acpchat://*/subagent/k0'); return b > 0 and b or nil"),
      "k0's view",
    );
    await c.t.waitFor(async () => (await c.t.lines(viewBuf)).join("\n").includes("K3"), "the view");
  });

  it("hostile: a message streamed in 40,000 chunks is fast, keeps a secret split across chunks out, and is capped; a plan of 5,000 entries shows 200", async () => {
    const chunk = (text: string) => ({
      update: { sessionUpdate: "session_message_chunk", messageId: "big", content: { type: "text", text } },
    });
    const steps = [
      { update: { sessionUpdate: "subagent_update", sessionId: child, title: "Writer" } },
      { update: { sessionUpdate: "session_message", messageId: "big", senderSessionId: child } },
      chunk("start key child-sec"),
      chunk("ret-55aa77 end\n"),
      ...Array.from({ length: 40_000 }, (_, i) =>
        chunk(i % 20 === 19 ? "line of text, forty characters long...\n" : "0123456789012345678901234567890123456789"),
      ),
      {
        update: {
          sessionUpdate: "plan_update",
          plan: {
            type: "items",
            planId: "huge",
            entries: Array.from({ length: 5000 }, (_, i) => ({
              content: `step ${i}`,
              priority: "low",
              status: "pending",
            })),
          },
        },
      },
      {
        update: {
          sessionUpdate: "plan_update",
          plan: {
            type: "markdown",
            planId: "md",
            content: Array.from({ length: 3000 }, (_, i) => `- md ${i}`).join("\n"),
          },
        },
      },
      { text: "parent after" },
    ];
    // A scenario file (too large for the environment).
    const t = await withAgents(bin, { fake: { turns: [[]] } }, { unstable: true });
    await t.lua("require('acpchat.config').options.agents.fake.env.ACP_CHILD_KEY = 'child-secret-55aa77'");
    await setScenario(t, { turns: [steps] });
    const c = await openChat(t);
    await c.ready();
    const t0 = Date.now();
    await sendAndWait(c, "go");
    const took = Date.now() - t0;
    process.stderr.write(`40,000 message chunks: turn took ${took} ms\n`);
    // Redacted whole at each chunk it took minutes (quadratic); now a few seconds on a busy machine.
    expect(took).toBeLessThan(20_000);
    const text = await c.text();
    expect(text).toContain("← message from Writer\n  start key [REDACTED] end\n");
    expect(text).not.toContain("child-secret-55aa77");
    expect(text).toMatch(/\n {2}… \d+ more characters not kept\n/);
    expect(text).toContain("  ○ step 199\n  … 4800 more entries not shown");
    expect(text).not.toContain("step 200");
    expect(text).toContain("  - md 199\n  … 2800 more lines not shown");
    expect(text).toContain("parent after");
    expect(await c.problems()).toEqual([]);
  });

  it("hostile: a subagent's notice and compaction summary (a secret split across chunks) keep the agent's secrets out (they showed them)", async () => {
    const steps = [
      { update: { sessionUpdate: "subagent_update", sessionId: child, title: "Leaky" } },
      {
        session: child,
        update: {
          sessionUpdate: "notice",
          severity: "error",
          title: "Key $env.ACP_CHILD_KEY rejected",
          description: "tried $env.ACP_CHILD_KEY",
        },
      },
      { session: child, update: { sessionUpdate: "compaction_update", compactionId: "c", status: "in_progress" } },
      {
        session: child,
        update: {
          sessionUpdate: "compaction_summary_chunk",
          compactionId: "c",
          content: { type: "text", text: "used child-sec" },
        },
      },
      {
        session: child,
        update: {
          sessionUpdate: "compaction_summary_chunk",
          compactionId: "c",
          content: { type: "text", text: "ret-55aa77 to log in" },
        },
      },
      { session: child, update: { sessionUpdate: "compaction_update", compactionId: "c", status: "completed" } },
      { text: "parent after" },
    ];
    const c = await startChat(
      bin,
      { turns: [steps] },
      { unstable: true },
      { agentExtra: { env: { ACP_CHILD_KEY: "child-secret-55aa77" } } },
    );
    await c.ready();
    await sendAndWait(c, "go");
    const text = await c.text();
    expect(text).toContain("  │ ! Key [REDACTED] rejected\n  │   tried [REDACTED]");
    expect(text).toContain("  │   ┆ used [REDACTED] to log in");
    expect(text).not.toContain("child-secret-55aa77");
    // Its own view too.
    await c.focus();
    await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [await rowOf(c, "⑂ subagent")]);
    await c.t.lua("vim.api.nvim_feedkeys('gs', 'x', false)");
    const viewBuf = await c.t.waitFor(
      () => c.t.lua<number>("local b = vim.fn.bufnr('acpchat://*/subagent/child-1'); return b > 0 and b or nil"),
      "the view",
    );
    await c.t.waitFor(async () => (await c.t.lines(viewBuf)).join("\n").includes("rejected"), "the view's text");
    const view = (await c.t.lines(viewBuf)).join("\n");
    expect(view).toContain("[REDACTED]");
    expect(view).not.toContain("child-secret-55aa77");
    expect(view).not.toContain("55aa77");
  });

  it("hostile: a wide tree (150 grandchildren of 30 blocks each, half of them 20-line texts) stays a bounded block, and a grandchild's stream does not stall the editor", async () => {
    ownNvim(); // measures the editor's lateness
    const para = Array.from({ length: 20 }, (_, i) => `paragraph line ${i}`).join("\n");
    const steps: Record<string, unknown>[] = [
      { update: { sessionUpdate: "subagent_update", sessionId: "top", title: "Top" } },
    ];
    for (let g = 0; g < 150; g++) {
      steps.push({ session: "top", update: { sessionUpdate: "subagent_update", sessionId: `g${g}`, title: `G${g}` } });
      // Text blocks of 20 lines between tool calls: 30 blocks.
      for (let b = 0; b < 15; b++) {
        steps.push({
          session: `g${g}`,
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: para } },
        });
        steps.push({
          session: `g${g}`,
          update: {
            sessionUpdate: "tool_call",
            toolCallId: `t${b}`,
            title: `tool ${b}`,
            kind: "read",
            status: "completed",
          },
        });
      }
    }
    for (let i = 0; i < 300; i++)
      steps.push({
        session: "g149",
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `streamed ${i}\n` } },
        ...(i % 10 === 9 ? { delay: 15 } : {}),
      });
    steps.push({ text: "parent after" });
    const t = await withAgents(bin, { fake: { turns: [[]] } }, { unstable: true });
    await setScenario(t, { turns: [steps] });
    const c = await openChat(t);
    await c.ready();
    const stop = await editorLateness(t);
    await sendAndWait(c, "go", 60_000);
    // The longest gap between two ticks of the 5 ms timer: how late one fired, plus its 5 ms.
    const gap = (await stop()).lateMs + 5;
    const lines = await c.lines();
    process.stderr.write(`wide tree: ${lines.length} transcript lines, longest event-loop gap ${gap.toFixed(1)} ms\n`);
    expect(lines.join("\n")).toContain("parent after");
    expect(lines.length).toBeLessThan(3000);
    expect(gap).toBeLessThan(250);
  }, 120_000);

  it("race: a plan and a subagent the agent sends right after answering session/new are shown (they were lost while the session id was not yet known)", async () => {
    const c = await startChat(
      bin,
      {
        afterNew: [
          {
            sessionUpdate: "plan_update",
            plan: {
              type: "items",
              planId: "early",
              entries: [{ content: "restored step", priority: "high", status: "pending" }],
            },
          },
          { sessionUpdate: "subagent_update", sessionId: child, title: "Early bird" },
        ],
        turns: [
          [
            {
              session: child,
              update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "child works" } },
            },
            { text: "done" },
          ],
        ],
      },
      { unstable: true },
    );
    await c.ready();
    await sendAndWait(c, "go");
    const text = await c.text();
    expect(text).toContain("Plan · early\n  ○ restored step");
    expect(text).toContain("⑂ subagent · Early bird");
    expect(text).toContain("  │ child works");
    expect(await c.problems()).toEqual([]);
  });

  it("hostile: control characters and odd bytes in subagents, messages and plans are drawn, not raised", async () => {
    const odd = "a\u0000b\rc\u001b[31md\u2028e\ud800f\tg";
    const steps = [
      {
        update: {
          sessionUpdate: "subagent_update",
          sessionId: `odd\n${odd}`,
          title: odd,
          description: `${odd}\n${odd}`,
          state: { state: odd, stopReason: odd },
        },
      },
      {
        session: `odd\n${odd}`,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `child ${odd}` } },
      },
      {
        update: {
          sessionUpdate: "session_message",
          messageId: odd,
          senderSessionId: `odd\n${odd}`,
          content: [{ type: "text", text: `msg ${odd}\n${odd}` }],
        },
      },
      {
        update: { sessionUpdate: "plan_update", plan: { type: "markdown", planId: odd, content: `md ${odd}\n${odd}` } },
      },
      {
        update: {
          sessionUpdate: "plan_update",
          plan: { type: "items", planId: "i", entries: [{ content: odd, priority: "low", status: "pending" }] },
        },
      },
      { update: { sessionUpdate: "plan_update", plan: { type: "file", planId: "f", uri: "file:///tmp/%00%0A%ZZ" } } },
      { text: "parent after" },
    ];
    const c = await startChat(bin, { turns: [steps] }, { unstable: true });
    await c.ready();
    await recordNotes(c.t);
    await sendAndWait(c, "go");
    const text = await c.text();
    expect(text).toContain("parent after");
    expect(text).toContain("⑂ subagent · a");
    expect(text).toContain("← message from a");
    expect(text).toContain("Plan · a");
    expect(await c.problems()).toEqual([]);
    expect((await c.notes()).filter((n) => n.level >= 3)).toEqual([]);
    expect(await c.t.lua<string>("return vim.fn.execute('messages')")).not.toMatch(/E\d+:|Error/);
  });

  it("on: the sessions picker renames a session with session/set_title; the agent's normalized title is shown", async () => {
    const c = await startChat(
      bin,
      {
        record: "$DIR/record.jsonl",
        store: "$DIR/store.json",
        title: "Old title",
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, title: {} } },
      },
      { unstable: true },
    );
    await c.ready();
    await sendAndWait(c, "hello");
    const sid = (await c.status()).session_id as string;
    // The picker: its last entry renames; then which session; then the title, edited.
    await c.t.lua(
      `_G.asked = {}
       local picks = { "Rename a session", "Old title" }
       vim.ui.select = function(items, opts, cb)
         local labels = vim.tbl_map(opts.format_item, items)
         table.insert(_G.asked, { prompt = opts.prompt, labels = labels })
         local want = table.remove(picks, 1)
         for i, l in ipairs(labels) do if want and l:find(want, 1, true) then return cb(items[i], i) end end
         cb(nil)
       end
       vim.ui.input = function(opts, cb) _G.input_default = opts.default; cb("  My   renamed  title ") end`,
    );
    await recordNotes(c.t);
    await c.t.nvim.command("AcpChatSessions");
    await c.t.waitFor(async () => (await c.notes()).some((n) => n.msg.includes("renamed")), "the rename");
    expect((await c.notes()).map((n) => n.msg)).toContain("acpchat: renamed to “My renamed title”");
    expect(received(c.t.dir, "session/set_title")).toEqual([{ sessionId: sid, title: "My   renamed  title" }]);
    const asked = await c.t.lua<{ prompt: string; labels: string[] }[]>("return _G.asked");
    expect(asked[0]!.labels.at(-1)).toBe("✎ Rename a session…");
    expect(asked[1]!.prompt).toBe("Rename a session of fake:");
    expect(await c.t.lua<string>("return _G.input_default")).toBe("Old title");
    // The live chat showing that session takes the title, and the picker lists it.
    await c.t.waitFor(
      async () => (await c.winbarText()).includes("My renamed title"),
      "the winbar to show the new title",
    );
    await c.t.lua(
      "_G.items = nil; vim.ui.select = function(items, opts, cb) _G.items = vim.tbl_map(opts.format_item, items); cb(nil) end",
    );
    await c.t.nvim.command("AcpChatSessions");
    const items = await c.t.waitFor(() => c.t.lua<string[] | null>("return _G.items"), "the sessions picker");
    expect(items.some((l) => l.includes("My renamed title"))).toBe(true);
  });

  it("hostile: a title the agent answers to session/set_title with line breaks and 5,000 characters is one short line (it made a hit-enter prompt)", async () => {
    const c = await startChat(
      bin,
      {
        store: "$DIR/store.json",
        title: "Old title",
        titleAnswer: `first\nsecond\r\n${"x".repeat(5000)}`,
        agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, title: {} } },
      },
      { unstable: true },
    );
    await c.ready();
    await sendAndWait(c, "hello");
    await c.t.lua(
      `local picks = { "Rename a session", "Old title" }
       vim.ui.select = function(items, opts, cb)
         local want = table.remove(picks, 1)
         for i, item in ipairs(items) do if want and opts.format_item(item):find(want, 1, true) then return cb(item, i) end end
         cb(nil)
       end
       vim.ui.input = function(opts, cb) cb("New") end`,
    );
    await recordNotes(c.t);
    await c.t.nvim.command("AcpChatSessions");
    await c.t.waitFor(async () => (await c.notes()).some((n) => n.msg.includes("renamed")), "the rename");
    const msg = (await c.notes()).find((n) => n.msg.includes("renamed"))!.msg;
    expect(msg).not.toMatch(/[\r\n]/);
    expect(msg.length).toBeLessThan(300);
    expect(msg).toContain("first\\nsecond");
    const winbar = await c.winbarText();
    expect(winbar).not.toMatch(/[\r\n]/);
    expect(winbar.length).toBeLessThan(400);
    expect(
      (await c.text())
        .split("\n")
        .filter((l) => l.includes("Renamed to"))
        .every((l) => l.length < 300),
    ).toBe(true);
  });

  it("hostile: :AcpChatFork of a chat whose title (session_info_update) has line breaks forks, with the title on one line", async () => {
    const c = await startChat(
      bin,
      {
        store: "$DIR/store.json",
        agentCapabilities: { loadSession: true, sessionCapabilities: { fork: {} } },
        turns: [[{ update: { sessionUpdate: "session_info_update", title: "evil\ntitle\r\nthird" } }, { text: "hi" }]],
      },
      { unstable: true },
    );
    await c.ready();
    await sendAndWait(c, "first question");
    await recordNotes(c.t);
    await c.t.nvim.command("AcpChatFork");
    await c.t.waitFor(async () => (await chatCount(c.t)) === 2, "a second chat");
    const f = await chatHandle(c.t);
    await f.ready();
    await c.t.waitFor(async () => (await c.notes()).some((n) => n.msg.includes("forked")), "the note");
    const lines = await f.lines();
    expect(lines[0]).toMatch(/^── forked from evil.*title.*third: the conversation so far/);
    expect(lines.join("\n")).toContain("first question");
    expect((await c.notes()).map((n) => n.msg)).toEqual([
      expect.stringMatching(/^acpchat: forked evil[^\n\r]*third into a new chat$/),
    ]);
    expect(await c.t.lua<string>("return vim.fn.execute('messages')")).not.toMatch(/E\d+:|Error|stack traceback/);
  });
});
