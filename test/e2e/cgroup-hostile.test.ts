/**
 * A terminal's daemon that leaves its process group (setsid), clears ACPCHAT_PROC_COOKIE and
 * then moves itself out of its tree's cgroup, into a cgroup its user may write: the host's own
 * (which the host writes to step back after each spawn) or the folder above its tree's. It is
 * gone after :AcpChatClose and after :qa!. Runs where the host can make cgroups (root, or a
 * delegated cgroup: see :checkhealth acpchat).
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { cgroupSupport } from "../../src/agent/cgroup.js";
import { chatHandle, startChat } from "../support/chat.js";

const bins = nvimBins();
const cgroups = cgroupSupport();

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/** The cgroup2 mount point. */
function mount(): string {
  for (const line of readFileSync("/proc/self/mountinfo", "utf8").split("\n")) {
    const sep = line.indexOf(" - ");
    if (sep >= 0 && line.slice(sep + 3).split(" ")[0] === "cgroup2") return line.slice(0, sep).split(" ")[4]!;
  }
  throw new Error("no cgroup2");
}

const cgroupOf = (pid: number): string =>
  readFileSync(`/proc/${pid}/cgroup`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("0::"))!
    .slice(3);

type Into = "host" | "parent" | "own-folder" | "host-folder";

/**
 * The shell line: where the daemon moves itself (`host`: the host's cgroup; `parent`: its tree's
 * parent; `own-folder` / `host-folder`: a cgroup it makes itself under its tree's parent / under
 * the host's own cgroup).
 */
function daemon(pids: string, into: Into): string {
  const m = mount();
  const host = `"${m}$(sed -n 's/^0:://p' /proc/$H/cgroup)"`;
  const parent = `"${m}$(dirname "$(sed -n 's/^0:://p' /proc/self/cgroup)")"`;
  const made = (under: string) => `$(d=${under}/x; mkdir -p "$d"; echo "$d")`;
  const target = { host, parent, "own-folder": made(parent), "host-folder": made(host) }[into];
  const inner = `echo $$ > ${target}/cgroup.procs; echo $$ > ${pids}/tmp; mv ${pids}/tmp ${pids}/moved; exec env -u ACPCHAT_PROC_COOKIE sleep 300`;
  return `H=$PPID; export H; setsid sh -c '${inner.replace(/'/g, `'"'"'`)}' </dev/null >/dev/null 2>&1 & echo started`;
}

const WHERE: Record<Into, string> = {
  host: "the host's cgroup",
  parent: "the folder above its cgroup",
  "own-folder": "a cgroup it made beside its tree's",
  "host-folder": "a cgroup it made under the host's",
};

describe.each(bins)("Neovim $version", (bin) => {
  for (const into of ["host", "parent", "own-folder", "host-folder"] as const)
    for (const how of ["AcpChatClose", "qa!"] as const)
      it.skipIf(!cgroups.available)(`:${how}: a daemon that moved itself into ${WHERE[into]} is gone`, async () => {
        const c = await startChat(bin, {});
        const pids = join(c.t.dir, "pids");
        mkdirSync(pids);
        await c.t.lua("require('acpchat.config').options.agents.fake.env.FAKE_AGENT_SCENARIO = vim.json.encode(...)", [
          {
            turns: [
              [
                { request: "terminal/create", params: { command: daemon(pids, into) } },
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
        const pid = Number(
          await c.t.waitFor(async () => {
            try {
              return readFileSync(join(pids, "moved"), "utf8");
            } catch {
              return undefined;
            }
          }, "the daemon's pid"),
        );
        const host = await c.t.lua<number>("return require('acpchat.host.bridge').call_sync('ping', {}, 5000).pid");
        // It did move where it meant to (else this proves nothing).
        const where = cgroupOf(pid);
        if (into === "host") expect(where).toBe(cgroupOf(host));
        else if (into === "parent") expect(where).toMatch(/\/acpchat-\d+$/);
        else if (into === "own-folder") expect(where).toMatch(/\/acpchat-\d+\/x$/);
        else expect(where).toBe(`${cgroupOf(host)}/x`);
        expect(alive(pid)).toBe(true);
        if (how === "AcpChatClose") {
          await c.t.nvim.command("AcpChatClose");
          // The limit that remains is said.
          await c.t.nvim.command("checkhealth acpchat");
          expect((await c.t.nvim.buffer.lines).join("\n")).toMatch(
            /processes: the limit: a process that moves itself into a cgroup outside acp-chat's folder/,
          );
        }
        if (how === "qa!") await c.t.quit();
        await c.t.waitFor(async () => !alive(pid), "the daemon to be gone", 10_000);
      });
});
