/**
 * The prompt builder's mention blocks (src/session/prompt-builder.ts): what `@diagnostics`,
 * `@selection`, `@folder/`, `@session:…` and a hand-off become for an agent with and without
 * embedded context; redacted, capped, and refused outside the session's cwd.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { buildPrompt, capText, MENTION_TEXT_LIMIT, MentionError } from "../../src/session/prompt-builder.js";
import type { ContextItem } from "../../src/wire/index.js";
import { PathBoundary } from "../../src/workspace/path-boundary.js";
import { Redactor } from "../../src/trace/redact.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): { root: string; cwd: string } {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-mention-")));
  dirs.push(root);
  const cwd = join(root, "work");
  mkdirSync(join(cwd, "src"), { recursive: true });
  writeFileSync(join(cwd, "src", "a.lua"), "return 1\n");
  writeFileSync(join(root, "outside.lua"), "secret\n");
  return { root, cwd };
}

const redactor = new Redactor(["hunter2-password-value"]);
const redact = (s: string) => redactor.text(s);

describe("mention blocks", () => {
  it("embedded context: resources with their URIs; text redacted; a file's range with its lines", async () => {
    const { cwd } = folder();
    const items: ContextItem[] = [
      {
        type: "text",
        mention: "@diagnostics",
        uri: "acpchat://diagnostics/src/a.lua",
        path: join(cwd, "src", "a.lua"),
        text: "src/a.lua:1:1: error: bad",
      },
      {
        type: "text",
        uri: "acpchat://chat/s1",
        title: "The conversation so far",
        label: "the conversation with x",
        text: "user: my password is hunter2-password-value",
      },
      {
        type: "range",
        mention: "@selection",
        path: join(cwd, "src", "a.lua"),
        start: 1,
        end: 1,
        text: "return 1",
        filetype: "lua",
      },
      { type: "link", mention: "@src/", path: join(cwd, "src", "a.lua") },
    ];
    const { blocks } = await buildPrompt(
      "see @diagnostics",
      items,
      new PathBoundary(cwd),
      true,
      undefined,
      undefined,
      redact,
    );
    const uri = pathToFileURL(join(cwd, "src", "a.lua")).href;
    expect(blocks).toEqual([
      { type: "text", text: "see @diagnostics" },
      {
        type: "resource",
        resource: { uri: "acpchat://diagnostics/src/a.lua", mimeType: "text/plain", text: "src/a.lua:1:1: error: bad" },
      },
      {
        type: "resource",
        resource: {
          uri: "acpchat://chat/s1",
          mimeType: "text/plain",
          text: expect.not.stringContaining("hunter2-password-value"),
        },
      },
      { type: "resource", resource: { uri: `${uri}#L1-L1`, mimeType: "text/plain", text: "return 1" } },
      { type: "resource_link", uri, name: "a.lua" },
    ]);
  });

  it("without embedded context: text under a title, the range fenced with its file and lines, links stay links", async () => {
    const { cwd } = folder();
    const path = join(cwd, "src", "a.lua");
    const { blocks } = await buildPrompt(
      "x",
      [
        {
          type: "text",
          mention: "@quickfix",
          uri: "acpchat://quickfix",
          title: "The quickfix list",
          text: "a:1:1: E: x",
        },
        { type: "range", mention: "@selection", path, start: 1, end: 1, text: "return 1", filetype: "lua" },
      ],
      new PathBoundary(cwd),
      false,
    );
    expect(blocks.slice(1)).toEqual([
      { type: "text", text: "\nThe quickfix list:\n```\na:1:1: E: x\n```\n" },
      { type: "text", text: `\n@selection (${path} lines 1-1):\n\`\`\`lua\nreturn 1\n\`\`\`\n` },
    ]);
  });

  it.each([
    ["a range", { type: "range", mention: "@selection", path: "OUT", start: 1, end: 1, text: "secret" }],
    ["a link", { type: "link", mention: "@../", path: "OUT" }],
    [
      "a file's diagnostics",
      { type: "text", mention: "@diagnostics", uri: "acpchat://diagnostics", path: "OUT", text: "secret" },
    ],
    ["an open file", { type: "file", mention: "@buffers", path: "OUT" }],
  ])("%s outside the cwd refuses the prompt, saying which mention and why", async (_what, item) => {
    const { root, cwd } = folder();
    const it = { ...item, path: join(root, "outside.lua") } as ContextItem;
    await expect(buildPrompt("x", [it], new PathBoundary(cwd), true)).rejects.toThrow(MentionError);
    await expect(buildPrompt("x", [it], new PathBoundary(cwd), true)).rejects.toThrow(
      /outside the session's working directory/,
    );
  });

  it("a long text keeps its end, says how much was left out", () => {
    const text = "a".repeat(MENTION_TEXT_LIMIT) + "the end";
    const out = capText(text);
    expect(out.endsWith("the end")).toBe(true);
    expect(out).toMatch(/^\[… 7 characters before this were left out\]\n/);
    expect(capText("short")).toBe("short");
  });
});
