/**
 * Terminals as real processes: command lines through the shell, honest exit status, an exit
 * that is noticed while a background child still writes, and an environment that does not
 * hand out the editor's address.
 */
import { afterEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TerminalManager, describeTerminalExit, terminalFailed } from "../../src/terminals/terminal-manager.js";
import { AgentProcess } from "../../src/agent/agent-process.js";
import { pidAlive } from "../../src/agent/process-group.js";

const managers: TerminalManager[] = [];
const savedEnv = { ...process.env };
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.closeAll()));
  for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
  Object.assign(process.env, savedEnv);
});

function manager(): TerminalManager {
  const m = new TerminalManager();
  managers.push(m);
  return m;
}

const cwd = mkdtempSync(join(tmpdir(), "acpchat-term-"));

describe("terminal/create", () => {
  it("runs a whole command line without args through the shell (claude-code-acp style)", async () => {
    writeFileSync(join(cwd, "a file.txt"), "x");
    const t = manager().create({ command: "ls -la . | grep 'a file' && echo \"home=$HOME\"", cwd });
    expect(await t.exited).toEqual({ exitCode: 0, signal: null });
    await t.outputEnded;
    expect(t.output()).toMatch(/a file\.txt\n/);
    expect(t.output()).toContain(`home=${process.env.HOME}`);
  });

  it("uses $SHELL, and sh when $SHELL is unusable", async () => {
    process.env.SHELL = "/bin/bash";
    const bash = manager().create({ command: 'echo "$BASH_VERSION"', cwd });
    await bash.outputEnded;
    expect(bash.output().trim()).toMatch(/^\d+\.\d+/);
    process.env.SHELL = "/no/such/shell";
    const sh = manager().create({ command: "echo via sh; exit 4", cwd });
    expect(await sh.exited).toEqual({ exitCode: 4, signal: null });
    await sh.outputEnded;
    expect(sh.output()).toBe("via sh\n");
  });

  it("runs a program with args directly: nothing in the args is shell syntax", async () => {
    const t = manager().create({ command: "printf", args: ["%s|", "a b", "$HOME", "; echo no"], cwd });
    expect(await t.exited).toEqual({ exitCode: 0, signal: null });
    await t.outputEnded;
    expect(t.output()).toBe("a b|$HOME|; echo no|");
  });

  it("a program that does not exist ends with 127 and says why", async () => {
    const t = manager().create({ command: "no-such-program-acpchat", args: ["x"], cwd });
    const status = await t.exited;
    expect(status).toEqual({ exitCode: 127, signal: null });
    expect(terminalFailed(status)).toBe(true);
    expect(t.output()).toMatch(/ENOENT/);
    // Through the shell, the shell says so (and also exits 127).
    const viaShell = manager().create({ command: "no-such-program-acpchat --flag", cwd });
    expect(await viaShell.exited).toEqual({ exitCode: 127, signal: null });
  });
});

describe("terminal exit", () => {
  it("non-zero exits and signals are failures with their code", async () => {
    const m = manager();
    const three = m.create({ command: "exit 3", cwd });
    expect(describeTerminalExit(await three.exited)).toBe("exit 3");
    expect(terminalFailed(three.exitStatus)).toBe(true);
    const ok = m.create({ command: "true", cwd });
    expect(describeTerminalExit(await ok.exited)).toBe("exit 0");
    expect(terminalFailed(ok.exitStatus)).toBe(false);
    const killed = m.create({ command: "sleep", args: ["300"], cwd });
    await new Promise((r) => setTimeout(r, 100));
    await killed.kill();
    expect(await killed.exited).toEqual({ exitCode: null, signal: "SIGTERM" });
    expect(describeTerminalExit(killed.exitStatus)).toBe("signal SIGTERM");
    expect(terminalFailed(killed.exitStatus)).toBe(true);
  });

  it("wait_for_exit resolves when the command exits although a background child holds the output", async () => {
    const t = manager().create({ command: "echo first; (sleep 1; echo later; sleep 300) & exit 3", cwd });
    const t0 = Date.now();
    const status = await t.exited;
    expect(Date.now() - t0).toBeLessThan(800);
    expect(status).toEqual({ exitCode: 3, signal: null });
    expect(t.output()).toBe("first\n");
    // The child keeps writing into the terminal until it is killed.
    await new Promise((r) => setTimeout(r, 1500));
    expect(t.output()).toBe("first\nlater\n");
    let ended = false;
    void t.outputEnded.then(() => (ended = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(ended).toBe(false);
    await t.kill();
    await t.outputEnded;
    expect(t.exitStatus).toEqual({ exitCode: 3, signal: null }); // the command's own status stays
  });

  it("everything the command wrote before it exited is there when wait_for_exit resolves", async () => {
    const m = manager();
    const ts = Array.from({ length: 20 }, (_, i) =>
      m.create({ command: `head -c ${100_000 * (i + 1)} /dev/zero | tr '\\0' x; echo END`, cwd }),
    );
    await Promise.all(
      ts.map(async (t, i) => {
        await t.exited;
        const out = t.output();
        expect(out.length).toBe(100_000 * (i + 1) + 4);
        expect(out.endsWith("xEND\n")).toBe(true);
      }),
    );
  });

  it("release kills the child left behind and keeps the output", async () => {
    const m = manager();
    const t = m.create({ command: "sleep 300 & echo $! > bg.pid; echo done", cwd });
    await t.exited;
    const bg = Number(readFileSync(join(cwd, "bg.pid"), "utf8"));
    expect(pidAlive(bg)).toBe(true);
    await m.release(t.id);
    expect(pidAlive(bg)).toBe(false);
    await t.outputEnded;
    expect(m.find(t.id)?.output()).toBe("done\n");
  });
});

describe("the editor's address does not reach spawned processes", () => {
  const address = "/tmp/acpchat-test-nvim.sock";

  it("a terminal's environment lacks NVIM, NVIM_LISTEN_ADDRESS and copies of the address", async () => {
    process.env.NVIM = address;
    process.env.NVIM_LISTEN_ADDRESS = address;
    process.env.ACPCHAT_TEST_COPY = address;
    process.env.ACPCHAT_TEST_KEPT = "kept";
    const t = manager().create({ command: "env", cwd, env: { FROM_AGENT: "yes" } });
    await t.outputEnded;
    const out = t.output();
    expect(out).toContain("ACPCHAT_TEST_KEPT=kept\n");
    expect(out).toContain("FROM_AGENT=yes\n");
    expect(out).toMatch(/^ACPCHAT_PROC_COOKIE=[0-9a-f]{24}$/m);
    expect(out).not.toMatch(/^NVIM=/m);
    expect(out).not.toMatch(/^NVIM_LISTEN_ADDRESS=/m);
    expect(out).not.toContain(address);
  });

  it("nor does the agent's", async () => {
    process.env.NVIM = address;
    process.env.NVIM_LISTEN_ADDRESS = address;
    const agent = new AgentProcess({ command: "env", env: { FROM_CONFIG: "yes" }, cwd });
    const chunks: Buffer[] = [];
    agent.stdout.on("data", (b: Buffer) => chunks.push(b));
    expect((await agent.exited).code).toBe(0);
    const out = Buffer.concat(chunks).toString();
    expect(out).toContain("FROM_CONFIG=yes\n");
    expect(out).toMatch(/^ACPCHAT_PROC_COOKIE=[0-9a-f]{24}$/m);
    expect(out).not.toMatch(/^NVIM(_LISTEN_ADDRESS)?=/m);
    expect(out).not.toContain(address);
  });
});
