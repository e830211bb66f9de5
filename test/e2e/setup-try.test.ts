/**
 * The first-run scripts: scripts/try.sh opens :AcpChat on the user's own project, with their own
 * config's agents when they have a config, and says what to install when there is no agent;
 * scripts/install-nvim.sh finds packages through the machine's apt sources only.
 * try.sh runs from a copy of the checkout (node_modules linked, the bundle newer than the
 * sources) so that it never builds inside the working tree.
 */
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { checkoutCopy, scratchDir } from "../support/checkout-copy.js";
import { FAKE_AGENT, nvimBins, ROOT } from "../support/nvim.js";

const run = promisify(execFile);
const scratch = scratchDir("acpchat-try-");

/** A PATH with Neovim and node but no agent (node_modules/.bin holds claude-code-acp). */
function cleanPath(nvimBin: string): string {
  const bin = join(scratch, "bin");
  if (!existsSync(bin)) {
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, "node"));
  }
  return [bin, dirname(nvimBin), "/usr/bin", "/bin"].join(":");
}

interface TryResult {
  cwd: string;
  notes: string[];
  status: { agent?: string } | null;
  user_config: boolean;
  isolated: boolean;
}

/** Run try.sh headless: wait for `until` (Lua expression), then report and quit. */
async function tryScript(
  nvimBin: string,
  args: string[],
  env: Record<string, string>,
  until: string,
): Promise<TryResult> {
  const result = join(scratch, `result-${Math.random().toString(36).slice(2)}.json`);
  const report = `
    _G.notes = {}
    local notify = vim.notify
    vim.notify = function(msg, ...) table.insert(_G.notes, msg) return notify(msg, ...) end
    vim.wait(15000, function() return ${until} end, 50)
    local ok, status = pcall(function() return require("acpchat").status() end)
    vim.fn.writefile({ vim.json.encode({ cwd = vim.fn.getcwd(), notes = _G.notes, status = ok and status or vim.NIL,
      user_config = vim.g.user_config_ran == true, isolated = vim.env.ACPCHAT_TRY_ISOLATED ~= nil }) }, ${JSON.stringify(result)})
    vim.cmd("qa!")`;
  const home = join(scratch, `home-${Math.random().toString(36).slice(2)}`);
  mkdirSync(home);
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !k.startsWith("XDG_") && k !== "VIMINIT" && k !== "NVIM_APPNAME" && k !== "ACPCHAT_TRY_ISOLATED",
    ),
  ) as Record<string, string>;
  try {
    await run(
      "bash",
      [
        join(checkoutCopy(scratch), "scripts/try.sh"),
        ...args,
        "--",
        "--headless",
        "-c",
        `lua ${report.replace(/\n\s*/g, " ")}`,
      ],
      {
        cwd: scratch,
        env: { ...base, HOME: home, PATH: cleanPath(nvimBin), ...env },
        timeout: 60_000,
      },
    );
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string; message: string };
    throw new Error(`try.sh failed: ${err.message}\n${err.stdout ?? ""}\n${err.stderr ?? ""}`);
  }
  return JSON.parse(readFileSync(result, "utf8")) as TryResult;
}

describe.each(nvimBins())("Neovim $version", (bin) => {
  it("try.sh without any agent or config: isolated, in the project folder, says what to install", async () => {
    const project = join(scratch, `project-none-${bin.version}`);
    mkdirSync(project);
    const r = await tryScript(bin.path, [project], {}, "#_G.notes > 0");
    expect(r.isolated).toBe(true);
    expect(r.cwd).toBe(project);
    expect(r.notes.join("\n")).toMatch(/no agent found[\s\S]*claude-agent-acp/);
  });

  it("try.sh with the user's own config: their agents, their project", async () => {
    const project = join(scratch, `project-user-${bin.version}`);
    const config = join(scratch, `config-${bin.version}`);
    mkdirSync(project);
    mkdirSync(join(config, "nvim"), { recursive: true });
    // A user config that sets acp-chat.nvim up with its own agent (a fake one here).
    writeFileSync(
      join(config, "nvim", "init.lua"),
      `vim.g.user_config_ran = true
      require("acpchat").setup({
        agents = { mine = { command = ${JSON.stringify(process.execPath)}, args = { ${JSON.stringify(FAKE_AGENT)} }, env = { FAKE_AGENT_SCENARIO = "{}" } } },
        default_agent = "mine",
      })`,
    );
    const r = await tryScript(
      bin.path,
      [project],
      { XDG_CONFIG_HOME: config },
      `(function() local ok, s = pcall(require("acpchat").status); return ok and s and s.agent == "mine" end)()`,
    );
    expect(r.user_config).toBe(true);
    expect(r.isolated).toBe(false);
    expect(r.cwd).toBe(project);
    expect(r.status?.agent).toBe("mine");
  });
});

describe("install-nvim.sh", () => {
  const script = join(ROOT, "scripts/install-nvim.sh");

  it("names no mirror host", () => {
    expect(readFileSync(script, "utf8")).not.toMatch(/https?:\/\//);
  });

  it("uses the machine's apt sources: the first enabled release suite, deb822 before one-line lists", async () => {
    const etc = join(scratch, "apt-deb822");
    mkdirSync(join(etc, "sources.list.d"), { recursive: true });
    writeFileSync(
      join(etc, "sources.list.d", "debian.sources"),
      [
        "Types: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\nComponents: main\n",
        "Types: deb-src\nURIs: http://src.example/debian\nSuites: bookworm\n",
        "Types: deb\nURIs: http://off.example/debian\nSuites: bookworm\nEnabled: no\n",
        "Types: deb\n# a comment\nURIs: http://mirror.example/debian http://second.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\nSigned-By: /etc/apt/keyrings/debian.gpg\n",
      ].join("\n"),
    );
    writeFileSync(join(etc, "sources.list"), "deb http://oneline.example/debian bookworm main\n");
    const { stdout } = await run("bash", [script, "--source"], { env: { ...process.env, ACPCHAT_APT_ETC: etc } });
    expect(stdout).toBe("http://mirror.example/debian\t/etc/apt/keyrings/debian.gpg\n");

    const lists = join(scratch, "apt-oneline");
    mkdirSync(join(lists, "sources.list.d"), { recursive: true });
    writeFileSync(
      join(lists, "sources.list"),
      "# deb http://commented.example/debian bookworm main\ndeb http://security.example/ bookworm-security main\ndeb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://oneline.example/debian bookworm main\n",
    );
    const one = await run("bash", [script, "--source"], { env: { ...process.env, ACPCHAT_APT_ETC: lists } });
    expect(one.stdout).toBe("http://oneline.example/debian\t/usr/share/keyrings/k.gpg\n");
  });

  it("fails with a clear message when apt has no source, before fetching anything", async () => {
    const copy = join(scratch, "install-copy");
    mkdirSync(join(copy, "scripts"), { recursive: true });
    cpSync(script, join(copy, "scripts/install-nvim.sh"));
    const empty = join(scratch, "apt-empty");
    mkdirSync(join(empty, "sources.list.d"), { recursive: true });
    const r = await run("bash", [join(copy, "scripts/install-nvim.sh"), "0.12"], {
      env: { ...process.env, ACPCHAT_APT_ETC: empty },
    }).catch((e: { code: number; stderr: string }) => e);
    expect(r).toMatchObject({ code: 1 });
    expect((r as { stderr: string }).stderr).toMatch(
      /no Debian package source found in .*sources\.list.*Configure apt with your Debian mirror/,
    );
    expect(existsSync(join(copy, ".cache/nvim/0.12"))).toBe(false);
  });

  const cached = ["0.10", "0.12"].every((v) => existsSync(join(ROOT, ".cache/nvim", v, "usr/bin/nvim")));
  it.skipIf(!cached)("with the cache present prints each Neovim without reading any source", async () => {
    const empty = join(scratch, "apt-none");
    mkdirSync(empty, { recursive: true });
    const { stdout } = await run("bash", [script], { env: { ...process.env, ACPCHAT_APT_ETC: empty } });
    expect(stdout).toBe(["0.10", "0.12"].map((v) => join(ROOT, ".cache/nvim", v, "usr/bin/nvim")).join("\n") + "\n");
  });
});
