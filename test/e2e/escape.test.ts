/**
 * Nothing reaches past the chat, in a real Neovim: no process the plugin starts holds the
 * editor's address, follow-along opens only regular files inside the boundary, and every
 * process a terminal started (daemons included) is gone when Neovim is killed.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { cgroupSupport } from "../../src/agent/cgroup.js";
import { chatHandle, startChat } from "../support/chat.js";

const bins = nvimBins();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== "Z";
  } catch {
    return false;
  }
}

describe.each(bins)("Neovim $version", (bin) => {
  it("neither the agent nor its terminals get $NVIM (the editor's RPC address)", async () => {
    const c = await startChat(bin, {
      turns: [
        [
          { text: "agent sees [$env.NVIM][$env.NVIM_LISTEN_ADDRESS]\n" },
          { request: "terminal/create", params: { command: "env" } },
          { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
          { request: "terminal/output", params: { terminalId: "$last.terminalId" }, echo: true },
        ],
      ],
    });
    const address = await c.t.lua<string>("return vim.v.servername");
    expect(address).not.toBe("");
    await c.ready();
    await c.send("go");
    await c.turns(1);
    const text = await c.text();
    expect(text).toContain("agent sees [][]");
    expect(text).toContain("PATH=");
    expect(text).not.toContain(address);
    expect(text).not.toMatch(/\bNVIM=/);
  });

  it("follow-along and gf open only regular files inside the session's folder (not a FIFO, not outside)", async () => {
    const c = await startChat(bin, {}, { follow: true });
    const work = join(c.t.dir, "work");
    const fifo = join(work, "pipe");
    execFileSync("mkfifo", [fifo]);
    const outside = join(c.t.dir, "outside.txt");
    writeFileSync(outside, "secret\n");
    const at = (id: string, path: string) => ({
      update: {
        sessionUpdate: "tool_call",
        toolCallId: id,
        title: `Read ${id}`,
        kind: "read",
        status: "in_progress",
        locations: [{ path }],
      },
    });
    await c.t.lua("require('acpchat.config').options.agents.fake.env.FAKE_AGENT_SCENARIO = vim.json.encode(...)", [
      { turns: [[at("a", fifo), { sleep: 100 }, at("b", outside), { sleep: 100 }, { text: "done" }]] },
    ]);
    await c.t.nvim.command("AcpChat!");
    const d = await chatHandle(c.t);
    await d.ready();
    const before = await c.t.lua<string[]>("return vim.tbl_map(vim.api.nvim_buf_get_name, vim.api.nvim_list_bufs())");
    await d.send("go");
    await d.turns(1);
    const after = await c.t.lua<string[]>("return vim.tbl_map(vim.api.nvim_buf_get_name, vim.api.nvim_list_bufs())");
    expect(after.filter((n) => n === fifo || n === outside)).toEqual([]);
    expect(after.length).toBe(before.length);
    // gf on the FIFO's location is refused with a note, and the editor answers.
    await c.t.lua("vim.api.nvim_set_current_win(vim.fn.win_findbuf(...)[1])", [d.buf]);
    const row = (await d.lines()).findIndex((l) => l.includes("Read a"));
    await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row + 1]);
    await c.t.nvim.input("<Esc>gf");
    expect(await c.t.lua<number>("return 1 + 1")).toBe(2);
    expect(
      (await c.t.lua<string[]>("return vim.tbl_map(vim.api.nvim_buf_get_name, vim.api.nvim_list_bufs())")).includes(
        fifo,
      ),
    ).toBe(false);
  });

  it('a write through a dangling symlink inside the cwd (write = "save") is denied and creates nothing outside', async () => {
    const c = await startChat(bin, {}, { write: "save" });
    const outside = join(c.t.dir, "outside-new.txt");
    symlinkSync(outside, join(c.t.dir, "work", "innocent.txt"));
    await c.t.lua("require('acpchat.config').options.agents.fake.env.FAKE_AGENT_SCENARIO = vim.json.encode(...)", [
      {
        turns: [
          [
            {
              request: "fs/write_text_file",
              params: { path: join(c.t.dir, "work", "innocent.txt"), content: "pwned\n" },
              echo: true,
            },
          ],
        ],
      },
    ]);
    await c.t.nvim.command("AcpChat!");
    const d = await chatHandle(c.t);
    await d.ready();
    await d.send("go");
    await d.turns(1);
    expect(await d.text()).toMatch(
      /Access denied: write of .*innocent\.txt.* is outside the session's working directory/,
    );
    expect(existsSync(outside)).toBe(false);
  });

  it("Neovim killed with SIGKILL: a terminal's setsid and double-forked daemons are gone too", async () => {
    const c = await startChat(bin, {});
    const pids = join(c.t.dir, "pids");
    mkdirSync(pids);
    const daemons = `setsid sh -c 'echo $$ > ${pids}/setsid; exec sleep 300' & (sh -c 'echo $$ > ${pids}/double; exec sleep 300' &) ; nohup sh -c 'echo $$ > ${pids}/nohup; exec sleep 300' >/dev/null 2>&1 & sleep 0.3; echo started`;
    await c.t.lua("require('acpchat.config').options.agents.fake.env.FAKE_AGENT_SCENARIO = vim.json.encode(...)", [
      {
        turns: [
          [
            { request: "terminal/create", params: { command: daemons } },
            { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
            { text: "daemons started" },
          ],
        ],
      },
    ]);
    await c.t.nvim.command("AcpChat!");
    const d = await chatHandle(c.t);
    await d.ready();
    await d.send("go");
    await d.turns(1);
    await c.t.waitFor(
      async () => ["setsid", "double", "nohup"].every((f) => existsSync(join(pids, f))),
      "the daemons' pids",
    );
    const ids = ["setsid", "double", "nohup"].map((f) => Number(readFileSync(join(pids, f), "utf8")));
    expect(ids.every(alive)).toBe(true);
    c.t.proc.kill("SIGKILL");
    await c.t.waitFor(async () => ids.every((p) => !alive(p)), "every daemon to be gone", 10_000);
  });

  // A daemon that leaves the group (setsid) and clears its cookie: only a cgroup holds it, so
  // this runs where the host can make cgroups (as here: see :checkhealth acpchat).
  const cgroups = cgroupSupport();
  for (const how of ["AcpChatClose", "qa!"] as const) {
    it.skipIf(!cgroups.available)(
      `:${how}: a terminal's daemon that called setsid and cleared ACPCHAT_PROC_COOKIE is gone too`,
      async () => {
        const c = await startChat(bin, {});
        const pids = join(c.t.dir, "pids");
        mkdirSync(pids);
        const daemon = `setsid sh -c 'echo $$ > ${pids}/tmp; mv ${pids}/tmp ${pids}/cleared; exec env -u ACPCHAT_PROC_COOKIE sleep 300' </dev/null >/dev/null 2>&1 & echo started`;
        await c.t.lua("require('acpchat.config').options.agents.fake.env.FAKE_AGENT_SCENARIO = vim.json.encode(...)", [
          {
            turns: [
              [
                { request: "terminal/create", params: { command: daemon } },
                { request: "terminal/wait_for_exit", params: { terminalId: "$last.terminalId" } },
                { text: "daemon started" },
              ],
            ],
          },
        ]);
        await c.t.nvim.command("AcpChat!");
        const d = await chatHandle(c.t);
        await d.ready();
        await d.send("go");
        await d.turns(1);
        await c.t.waitFor(async () => existsSync(join(pids, "cleared")), "the daemon's pid");
        const pid = Number(readFileSync(join(pids, "cleared"), "utf8"));
        await c.t.waitFor(
          async () => !readFileSync(`/proc/${pid}/environ`, "latin1").includes("ACPCHAT_PROC_COOKIE"),
          "the daemon without its cookie",
        );
        expect(alive(pid)).toBe(true);
        if (how === "AcpChatClose") await c.t.nvim.command("AcpChatClose");
        else await c.t.quit(); // :qa!
        await c.t.waitFor(async () => !alive(pid), "the daemon to be gone", 10_000);
      },
    );
  }
});
