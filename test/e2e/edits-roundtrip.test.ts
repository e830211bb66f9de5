/**
 * Round trips through the agent's read and write, byte for byte, for a file on disk and for a
 * loaded buffer (saved by Vim itself, write = "save"): Latin-1, CP1252, UTF-16 with BOM, UTF-8
 * with BOM, CRLF, no final newline. Only the line the agent added differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import { agentTurn, editsNvim, read, write } from "./edits-support.js";
import { bufnr, replies, wrote, shareNvim } from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

interface Case {
  name: string;
  bytes: Buffer;
  /** What the agent reads from disk, and from the buffer Vim decoded (when it differs). */
  disk: string;
  buffer?: string;
  /** The agent's write: what it read, with one more line. */
  after: Buffer;
  /** After a write into the buffer, when it differs (Vim's 'fixeol'). */
  afterBuffer?: Buffer;
}

const u16 = (s: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]);
const cases: Case[] = [
  {
    name: "latin1",
    bytes: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x81, 0x0a]),
    disk: "café\n\u0081\n",
    after: Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x81, 0x0a, 0x6d, 0x0a]),
  },
  // Vim reads 8-bit files as latin1; from disk the agent gets the windows-1252 characters.
  {
    name: "cp1252",
    bytes: Buffer.from([0x93, 0x71, 0x94, 0x80, 0x0a]),
    disk: "“q”€\n",
    buffer: "\u0093q\u0094\u0080\n",
    after: Buffer.from([0x93, 0x71, 0x94, 0x80, 0x0a, 0x6d, 0x0a]),
  },
  { name: "utf16", bytes: u16("a\r\nb\r\n"), disk: "a\nb\n", after: u16("a\r\nb\r\nm\r\n") },
  { name: "utf8bom", bytes: Buffer.from("\ufeffx\ny\n"), disk: "x\ny\n", after: Buffer.from("\ufeffx\ny\nm\n") },
  { name: "crlf", bytes: Buffer.from("a\r\nb\r\n"), disk: "a\nb\n", after: Buffer.from("a\r\nb\r\nm\r\n") },
  // Without a final newline: the agent reads the file as it is; a buffer reads as Vim would
  // write it ('fixeol'), and the agent's text decides the end again.
  {
    name: "noeol",
    bytes: Buffer.from("a\nb"),
    disk: "a\nb",
    buffer: "a\nb\n",
    after: Buffer.from("a\nb\nm"),
    afterBuffer: Buffer.from("a\nb\nm\n"),
  },
];

/** The agent's new text: what it read, plus the line "m". */
const plusLine = (s: string) => (s.endsWith("\n") ? `${s}m\n` : `${s}\nm`);

describe.each(bins)("Neovim $version", (bin) => {
  it("files on disk: read decoded like Vim, written back byte for byte", async () => {
    const { t, work } = await editsNvim(bin, { write: "buffer" });
    const steps = [];
    for (const c of cases) {
      writeFileSync(join(work, c.name), c.bytes);
      steps.push(read(join(work, c.name)), write(join(work, c.name), plusLine(c.disk)));
    }
    const chat = await agentTurn(t, steps);
    await chat.turns(1, 15_000);
    const r = await replies(chat);
    cases.forEach((c, i) => {
      expect(r[2 * i]!.result, c.name).toEqual({ content: c.disk });
      expect(r[2 * i + 1]!.result, c.name).toEqual(wrote());
      expect(readFileSync(join(work, c.name)).toString("hex"), c.name).toBe(c.after.toString("hex"));
    });
  });

  it("loaded buffers: read as Vim decoded them, the change saved by Vim byte for byte", async () => {
    const { t, work } = await editsNvim(bin, { write: "save" });
    const steps = [];
    for (const c of cases) {
      writeFileSync(join(work, c.name), c.bytes);
      await t.nvim.command(`edit ${join(work, c.name)}`);
      const text = c.buffer ?? c.disk;
      steps.push(read(join(work, c.name)), write(join(work, c.name), plusLine(text)));
    }
    const chat = await agentTurn(t, steps);
    await chat.turns(1, 15_000);
    const r = await replies(chat);
    for (const [i, c] of cases.entries()) {
      expect(r[2 * i]!.result, c.name).toEqual({ content: c.buffer ?? c.disk });
      expect(r[2 * i + 1]!.result, `${c.name}: ${JSON.stringify(r[2 * i + 1])}`).toEqual(wrote());
      expect(readFileSync(join(work, c.name)).toString("hex"), c.name).toBe((c.afterBuffer ?? c.after).toString("hex"));
      const b = await bufnr(t, join(work, c.name));
      expect(await t.lua("return vim.bo[...].modified", [b]), c.name).toBe(false);
    }
  });
});
