/**
 * Process hygiene: after :AcpChatClose, :qa, an agent crash, and Neovim killed (SIGTERM and
 * SIGKILL), no agent and no terminal started by the plugin is left. A soak run keeps memory and
 * event-loop resources flat.
 */
import { describe, expect, it } from "vitest";
import { groupAlive, pidAlive } from "../../src/agent/process-group.js";
import { start, type H } from "./harness.js";

/** A chat whose agent has a grandchild and a running terminal; returns every pid to watch. */
async function busyChat(extra: Record<string, unknown> = {}) {
  const h = await start({
    spawnChild: true,
    turns: [
      [
        { request: "terminal/create", params: { command: "sh", args: ["-c", "sleep 300 & sleep 300"] } },
        { text: "started" },
      ],
      [{ hang: true }],
    ],
    ...extra,
  });
  await h.ready();
  await h.send("go");
  await h.turns(1);
  const agent = await h.agentPid();
  const terms = await h.t.lua<{ pid: number }[]>(
    "return require('acpchat.host.bridge').call_sync('terminal', { chat = ... })",
    [h.id],
  );
  const child = Number(/child pid (\d+)/.exec(JSON.stringify(await h.trace()))?.[1]);
  const groups = [agent, terms[0]!.pid];
  expect(groups.every((p) => groupAlive(p))).toBe(true);
  expect(pidAlive(child)).toBe(true);
  return { h, groups, child };
}

async function allGone(h: H, groups: number[], child: number) {
  await h.t.waitFor(
    async () => groups.every((p) => !groupAlive(p)) && !pidAlive(child),
    "every process the chat started to be gone",
    10_000,
  );
}

describe("process hygiene", () => {
  it(":AcpChatClose", async () => {
    const { h, groups, child } = await busyChat();
    await h.t.nvim.command("AcpChatClose");
    await allGone(h, groups, child);
  });

  it(":qa", async () => {
    const { h, groups, child } = await busyChat();
    await h.t.quit();
    await allGone(h, groups, child);
  });

  it("an agent crash takes its terminals with it", async () => {
    const { h, groups, child } = await busyChat();
    process.kill(groups[0]!, "SIGKILL");
    await allGone(h, groups, child);
  });

  for (const signal of ["SIGTERM", "SIGKILL"] as const) {
    it(`Neovim killed with ${signal}: the node host sees its stdin close and cleans up`, async () => {
      const { h, groups, child } = await busyChat();
      h.t.proc.kill(signal);
      await allGone(h, groups, child);
    });
  }

  it("an interrupt sent to the node host leaves the chats running", async () => {
    const h = await start({ turns: [[{ text: "one" }], [{ text: "two" }]] });
    await h.ready();
    const host = (await h.t.lua<{ pid: number }>("return require('acpchat.host.bridge').call_sync('ping', {})")).pid;
    process.kill(host, "SIGINT");
    await new Promise((r) => setTimeout(r, 200));
    expect(pidAlive(host)).toBe(true);
    await h.send("go");
    await h.turns(1);
    expect((await h.text()).endsWith("one")).toBe(true);
  });

  it("soak: 5 chats x 60 turns with tool calls and terminals; memory and resources flat", async () => {
    const turn = [
      { update: { sessionUpdate: "tool_call", toolCallId: "t", title: "Run", kind: "execute", status: "in_progress" } },
      { request: "terminal/create", params: { command: "sh", args: ["-c", "echo soak"] } },
      { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
      { request: "terminal/release", params: { terminalId: "$last.terminalId" } },
      { update: { sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed" } },
      { chunks: 200, text: "soak " },
    ];
    const h = await start({ turns: [turn] });
    await h.ready();
    const mem = () =>
      h.t.lua<{ heap_used: number; resources: string[] }>(
        "return require('acpchat.host.bridge').call_sync('memory', { gc = true })",
      );
    const nvimRss = async () =>
      Number(/VmRSS:\s+(\d+)/.exec(require("node:fs").readFileSync(`/proc/${h.t.proc.pid}/status`, "utf8"))![1]);
    const baseline = await mem();
    const ids = [h.id];
    for (let i = 0; i < 4; i++)
      ids.push(await h.t.lua<number>("vim.cmd('AcpChat!'); return require('acpchat.chat.registry').current().id"));
    for (const id of ids)
      await h.t.waitFor(
        async () =>
          (await h.t.lua<string>("return require('acpchat.chat.registry').get(...).status.state", [id])) === "ready",
        "ready",
      );
    const runTurns = async (from: number, to: number) => {
      for (let n = from; n <= to; n++) {
        await h.t.lua(
          "for _, id in ipairs(...) do require('acpchat.app.chats').send(require('acpchat.chat.registry').get(id), 'soak') end",
          [ids],
        );
        for (const id of ids)
          await h.t.waitFor(
            async () =>
              (await h.t.lua<number>("return require('acpchat.chat.registry').get(...).turn_ended or 0", [id])) >= n,
            `turn ${n}`,
          );
      }
    };
    // Warm-up until the bounded parts are full (the trace ring holds 5,000 frames, a turn sends ~210).
    await runTurns(1, 30);
    const warm = { heap: (await mem()).heap_used, nvim: await nvimRss() };
    await runTurns(31, 60);
    const end = { heap: (await mem()).heap_used, nvim: await nvimRss() };
    // 30 more turns x 5 chats: what stays is the transcripts (about 1 KB a turn) plus noise.
    process.stderr.write(
      `soak: node heap ${warm.heap} -> ${end.heap} bytes, nvim RSS ${warm.nvim} -> ${end.nvim} KiB\n`,
    );
    expect(end.heap - warm.heap).toBeLessThan(1.5 * 1024 * 1024);
    expect(end.nvim - warm.nvim).toBeLessThan(8 * 1024);
    for (const id of ids)
      await h.t.lua("require('acpchat.app.chats').close(require('acpchat.chat.registry').get(...))", [id]);
    await h.t.waitFor(
      async () =>
        (await h.t.lua<unknown[]>("return require('acpchat.host.bridge').call_sync('chats', {})")).length === 0,
      "every chat closed",
    );
    // No timers, sockets or child processes left behind.
    await h.t.waitFor(
      async () => (await mem()).resources.length <= baseline.resources.length,
      `resources back to ${JSON.stringify(baseline.resources)}`,
      5_000,
    );
  }, 240_000);
});
