/**
 * Terminals through a whole Chat and the scripted agent over a real pipe: a command line the way
 * claude-code-acp sends it, an exit noticed while a background child still runs, and daemons of
 * both the terminal and the agent gone after close() and after killNow() (the host exiting).
 */
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pidAlive } from "../../src/agent/process-group.js";
import { FAKE_AGENT, makeFakeChat, type FakeChat } from "../support/fake-chat.js";

const open: FakeChat[] = [];
afterEach(async () => {
  for (const c of open.splice(0)) await c.chat.close();
});

async function until(ok: () => boolean, what: string, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Waits without turning the event loop, as an exiting host would: no async cleanup can help. */
function untilSync(ok: () => boolean, what: string, ms: number): void {
  const deadline = Date.now() + ms;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    Atomics.wait(cell, 0, 0, 10);
  }
}

const readPid = (f: string) => (existsSync(f) ? Number(readFileSync(f, "utf8").trim()) || undefined : undefined);

/** A chat whose agent first starts a setsid daemon, which writes its pid to `agentDaemon`. */
function chatWithDaemonAgent(turns: unknown[][]): FakeChat & { agentDaemon: string } {
  const scenario = { turns };
  const agentDaemon = join(mkdtempSync(join(tmpdir(), "acpchat-agent-daemon-")), "pid");
  const line = `setsid sh -c 'echo $$ > "${agentDaemon}"; exec sleep 300' </dev/null >/dev/null 2>&1 & exec "${process.execPath}" "${FAKE_AGENT}"`;
  const c = makeFakeChat(scenario, {
    command: { command: "sh", args: ["-c", line], env: { FAKE_AGENT_SCENARIO: JSON.stringify(scenario) } },
  });
  open.push(c);
  return { ...c, agentDaemon };
}

describe("terminals in a chat", () => {
  it("a whole command line without args runs through the shell; its exit code is reported", async () => {
    const c = makeFakeChat({
      turns: [
        [
          { request: "terminal/create", params: { command: "printf '%s\\n' one two | wc -l; exit 3" } },
          { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" }, echo: true },
        ],
      ],
    });
    open.push(c);
    await c.chat.start();
    await c.chat.prompt([{ type: "text", text: "go" }]);
    expect(c.transcript()).toContain('"result":{"exitCode":3,"signal":null}');
    const [t] = c.chat.terminals.all();
    await t!.outputEnded;
    expect(t!.output().trim()).toBe("2");
  });

  it("close(): the daemons of a terminal and of the agent are gone; wait_for_exit did not wait for them", async () => {
    const daemonPid = "term-daemon.pid";
    const c = chatWithDaemonAgent([
      [
        {
          request: "terminal/create",
          params: { command: `setsid sh -c 'echo $$ > ${daemonPid}; exec sleep 300' & echo started; exit 4` },
        },
        { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" }, echo: true },
      ],
    ]);
    await c.chat.start();
    const t0 = Date.now();
    await c.chat.prompt([{ type: "text", text: "go" }]);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(c.transcript()).toContain('"result":{"exitCode":4,"signal":null}');
    await until(
      () => readPid(join(c.dir, daemonPid)) !== undefined && readPid(c.agentDaemon) !== undefined,
      "both daemons",
    );
    const pids = [readPid(join(c.dir, daemonPid))!, readPid(c.agentDaemon)!];
    expect(pids.every((p) => pidAlive(p))).toBe(true);
    await c.chat.close();
    await until(() => pids.every((p) => !pidAlive(p)), "the daemons to be gone", 3000);
  });

  it("killNow() (the host exiting): the same, synchronously", async () => {
    const c = chatWithDaemonAgent([
      [
        {
          request: "terminal/create",
          params: { command: "setsid sh -c 'echo $$ > term-daemon.pid; exec sleep 300'; sleep 300" },
        },
        { text: "started" },
      ],
    ]);
    await c.chat.start();
    await c.chat.prompt([{ type: "text", text: "go" }]);
    await until(
      () => readPid(join(c.dir, "term-daemon.pid")) !== undefined && readPid(c.agentDaemon) !== undefined,
      "both daemons",
    );
    const [t] = c.chat.terminals.all();
    const pids = [readPid(join(c.dir, "term-daemon.pid"))!, readPid(c.agentDaemon)!, t!.pid!, c.chat.agent!.pid!];
    expect(pids.every((p) => pidAlive(p))).toBe(true);
    c.chat.killNow();
    untilSync(() => pids.every((p) => !pidAlive(p)), "every process to be gone", 1000);
  });
});
