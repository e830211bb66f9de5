/**
 * doc/acpchat.txt, the manual inside the editor: its shape (header, contents, width), that every
 * link leads somewhere, that it documents every command and every config key, that its options
 * section is what scripts/gen-doc.lua makes from the schema, and that the shipped doc/tags is
 * what :helptags makes of it.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { nvimBins, ROOT } from "../support/nvim.js";

const run = promisify(execFile);
const DOC = join(ROOT, "doc/acpchat.txt");
const WIDTH = 78;
const text = readFileSync(DOC, "utf8");
const lines = text.split("\n");
/** Display width; the manual has no tabs and no wide characters (checked below). */
const width = (s: string) => [...s].length;

const scratch = mkdtempSync(join(tmpdir(), "acpchat-doc-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Run a Lua file (or code) in `nvim -l` with throwaway XDG folders; its stdout. */
async function nvimLua(bin: string, args: string[]): Promise<string> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>) };
  for (const d of ["config", "data", "state", "cache"]) env[`XDG_${d.toUpperCase()}_HOME`] = join(scratch, "xdg", d);
  const { stdout } = await run(bin, ["--headless", "-l", ...args], { cwd: scratch, env, maxBuffer: 10 * 1024 * 1024 });
  return stdout;
}

async function luaCode(bin: string, code: string): Promise<string> {
  const f = join(scratch, `code-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(f, code);
  return nvimLua(bin, [f]);
}

/** Lines outside example blocks (">" at the end of a line up to "<" or text in column 1). */
function proseLines(): { n: number; line: string }[] {
  const out: { n: number; line: string }[] = [];
  let example = false;
  lines.forEach((line, i) => {
    if (example && (line.startsWith("<") || /^\S/.test(line))) example = false;
    if (!example) out.push({ n: i + 1, line });
    if (/(^|\s)>[a-z]*$/.test(line)) example = true;
  });
  return out;
}

const tagsDefined = new Set([...text.matchAll(/\*([^*\s]+)\*/g)].map((m) => m[1]!));

describe("shape", () => {
  it("starts with the help header and the *acpchat* tag, ends with the modeline", () => {
    expect(lines[0]).toMatch(/^\*acpchat\.txt\* {2}\S.*\S\s+\*acpchat\*$/);
    expect(lines.at(-1) === "" ? lines.at(-2) : lines.at(-1)).toBe(" vim:tw=78:ts=8:ft=help:norl:");
  });

  it("fits in 78 columns, without tabs", () => {
    const wide = lines.map((l, i) => ({ n: i + 1, w: width(l), l })).filter((x) => x.w > WIDTH || x.l.includes("\t"));
    expect(wide).toEqual([]);
  });

  it("section headers carry their tag at column 78, and the contents list them in order, aligned", () => {
    const headers = lines
      .map((l) => /^(\d+)\. (.+?) +\*(acpchat-[^*]+)\*$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => ({ n: m[1], title: m[2]!, tag: m[3]!, w: width(m[0]) }));
    expect(headers.length).toBeGreaterThan(10);
    expect(headers.filter((h) => h.w !== WIDTH)).toEqual([]);
    const start = lines.findIndex((l) => l.includes("*acpchat-contents*"));
    const end = lines.findIndex((l, i) => i > start && /^=+$/.test(l));
    const toc = lines.slice(start + 1, end).filter((l) => l.trim() !== "");
    const entries = toc.map((l) => /^ *(\d+)\. (.+?) \.+ \|(acpchat-[^|]+)\|$/.exec(l));
    expect(
      entries.every((m) => m !== null),
      toc.join("\n"),
    ).toBe(true);
    expect(toc.filter((l) => width(l) !== WIDTH)).toEqual([]);
    expect(entries.map((m) => ({ n: m![1], title: m![2]!.toUpperCase(), tag: m![3] }))).toEqual(
      headers.map((h) => ({ n: h.n, title: h.title, tag: h.tag })),
    );
  });
});

describe("content", () => {
  it("documents every user command of plugin/acpchat.lua with a *:Command* tag", () => {
    const plugin = readFileSync(join(ROOT, "plugin/acpchat.lua"), "utf8");
    const names = [...plugin.matchAll(/(?:nvim_create_user_command|\bcmd)\(\s*["'](AcpChat\w*)["']/g)].map(
      (m) => m[1]!,
    );
    expect(names.length).toBeGreaterThan(5);
    expect(names.filter((n) => !tagsDefined.has(`:${n}`))).toEqual([]);
  });

  it("no tag is defined twice", () => {
    const all = [...text.matchAll(/\*([^*\s]+)\*/g)].map((m) => m[1]!);
    expect(all.filter((t, i) => all.indexOf(t) !== i)).toEqual([]);
  });
});

describe.each(nvimBins())("Neovim $version", (bin) => {
  it("every |link| leads to a tag of this file or of Neovim's own help", async () => {
    const runtime = await luaCode(bin.path, "io.stdout:write(vim.env.VIMRUNTIME)");
    const builtin = new Set(
      readFileSync(join(runtime, "doc/tags"), "utf8")
        .split("\n")
        .map((l) => l.split("\t")[0]!),
    );
    const broken = proseLines()
      .flatMap(({ n, line }) => [...line.matchAll(/\|([^|\s]+)\|/g)].map((m) => ({ n, tag: m[1]! })))
      .filter((x) => !tagsDefined.has(x.tag) && !builtin.has(x.tag));
    expect(broken).toEqual([]);
  });

  it("documents every config key of the schema", async () => {
    const paths = JSON.parse(
      await luaCode(
        bin.path,
        `vim.opt.rtp:prepend(${JSON.stringify(ROOT)})
        local out = {}
        local walk
        local function fields(node, prefix)
          for _, f in ipairs(node.fields) do walk(f[2], prefix .. f[1]) end
        end
        function walk(node, path)
          out[#out + 1] = path
          if node.kind == "record" then fields(node, path .. ".")
          elseif node.kind == "map" and node.values.kind == "record" then fields(node.values, path .. ".{name}.")
          elseif node.kind == "list" and node.items.kind == "record" then fields(node.items, path .. "[n].")
          end
        end
        fields(require("acpchat.config").schema, "")
        io.stdout:write(vim.json.encode(out))`,
      ),
    ) as string[];
    expect(paths).toContain("timeouts.request_ms");
    expect(paths).toContain("agents.{name}.command");
    expect(paths.filter((p) => !lines.some((l) => l.startsWith(`${p}  `)))).toEqual([]);
  });

  it("the options section is what scripts/gen-doc.lua makes from the schema", async () => {
    // If this fails: nvim -l scripts/gen-doc.lua
    const generated = await nvimLua(bin.path, [join(ROOT, "scripts/gen-doc.lua"), "--print"]);
    expect(text).toEqual(generated);
  });

  it("doc/tags is what :helptags makes of the manual", async () => {
    // If this fails: nvim --headless -u NONE -c 'helptags doc' -c q
    const dir = join(scratch, `helptags-${bin.version}`, "doc");
    mkdirSync(dir, { recursive: true });
    copyFileSync(DOC, join(dir, "acpchat.txt"));
    await luaCode(bin.path, `vim.cmd.helptags(${JSON.stringify(dir)})`);
    expect(readFileSync(join(ROOT, "doc/tags"), "utf8")).toEqual(readFileSync(join(dir, "tags"), "utf8"));
  });
});
