/** Bytes <-> lines like Vim's defaults: every file goes back byte for byte (src/workspace/text-codec.ts). */
import { describe, expect, it } from "vitest";
import {
  decodeBytes,
  encodeText,
  encodingFromVim,
  joinText,
  proposalText,
  unencodable,
  type TextFile,
} from "../../src/workspace/text-codec.js";

function read(bytes: Buffer): TextFile {
  const d = decodeBytes(bytes);
  if (!d.ok) throw new Error(d.message);
  return d.file;
}

const samples: [string, Buffer, Partial<TextFile>][] = [
  [
    "utf-8",
    Buffer.from("héllo\nwörld\n"),
    { encoding: "utf-8", bom: false, format: "unix", eol: true, lines: ["héllo", "wörld"] },
  ],
  [
    "utf-8 with BOM",
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("a\nb\n")]),
    { encoding: "utf-8", bom: true, lines: ["a", "b"] },
  ],
  [
    "latin1 (C1 byte undefined in cp1252)",
    Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x81, 0x0a]),
    { encoding: "latin1", lines: ["café", "\u0081"] },
  ],
  ["cp1252", Buffer.from([0x80, 0x20, 0x93, 0x71, 0x94, 0x0a]), { encoding: "cp1252", lines: ["€ “q”"] }],
  ["8-bit without C1 bytes", Buffer.from([0x6e, 0xe4, 0x0a]), { encoding: "cp1252", lines: ["nä"] }],
  [
    "utf-16le with BOM",
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("x\r\ny€\r\n", "utf16le")]),
    { encoding: "utf-16le", bom: true, format: "dos", lines: ["x", "y€"] },
  ],
  [
    "utf-16be with BOM",
    Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("x\ny", "utf16le").swap16()]),
    { encoding: "utf-16", bom: true, eol: false, lines: ["x", "y"] },
  ],
  ["CRLF", Buffer.from("one\r\ntwo\r\n"), { format: "dos", eol: true, lines: ["one", "two"] }],
  ["CRLF, no final newline", Buffer.from("one\r\ntwo"), { format: "dos", eol: false, lines: ["one", "two"] }],
  ["mixed line endings stay unix (\\r kept)", Buffer.from("one\r\ntwo\n"), { format: "unix", lines: ["one\r", "two"] }],
  ["no final newline", Buffer.from("a\nb"), { eol: false, lines: ["a", "b"] }],
  ["empty", Buffer.alloc(0), { lines: [], eol: false }],
  ["one empty line", Buffer.from("\n"), { lines: [""], eol: true }],
  ["trailing backslash", Buffer.from("a \\\n"), { lines: ["a \\"], eol: true }],
];

describe("text codec", () => {
  it.each(samples)("%s: decoded like Vim, encoded back byte for byte", (_, bytes, expected) => {
    const f = read(bytes);
    expect(f).toMatchObject(expected);
    expect(encodeText(f).equals(bytes)).toBe(true);
  });

  it("a change keeps everything the agent did not change: encoding, BOM, CRLF, final newline", () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\r\nb\r\nc", "utf16le")]);
    const f = read(bytes);
    const p = proposalText("a\nB\nc", f);
    expect(
      encodeText({ ...f, ...p }).equals(
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\r\nB\r\nc", "utf16le")]),
      ),
    ).toBe(true);
    // The agent echoing CRLF (it read the file itself) into a dos file: no doubled "\r".
    expect(proposalText("a\r\nB\r\nc", f).lines).toEqual(["a", "B", "c"]);
    // A BOM the file has is not doubled; in a file without one, the agent's BOM is its text.
    const bomFile = read(Buffer.from("\ufeffx\n"));
    expect(encodeText({ ...bomFile, ...proposalText("\ufeffy\n", bomFile) }).toString("hex")).toBe(
      Buffer.from("\ufeffy\n").toString("hex"),
    );
    expect(proposalText("\ufeffy\n", { format: "unix", bom: false }).lines).toEqual(["\ufeffy"]);
    // CRLF written by the agent into a unix file is what it wrote.
    expect(
      encodeText({
        ...read(Buffer.from("a\n")),
        ...proposalText("a\r\nb\r\n", { format: "unix", bom: false }),
      }).toString(),
    ).toBe("a\r\nb\r\n");
  });

  it("refuses binaries; never writes replacement characters", () => {
    expect(decodeBytes(Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1]))).toMatchObject({ ok: false, why: "binary" });
    expect(decodeBytes(Buffer.from([0xff, 0xfe, 0x41]))).toMatchObject({ ok: false });
    const latin1 = read(Buffer.from([0xe9, 0x0a, 0x81, 0x0a]));
    expect(unencodable(["ok é", "€"], latin1.encoding)).toEqual({ line: 2, char: "€" });
    expect(() => encodeText({ ...latin1, lines: ["日本"] })).toThrow(/line 1 has "日", which latin1 cannot hold/);
    expect(unencodable(["€ ok"], "cp1252")).toBeUndefined();
    expect(unencodable(["\u0080"], "cp1252")).toEqual({ line: 1, char: "\u0080" });
    expect(unencodable(["\ud800"], "utf-8")).toMatchObject({ line: 1 });
  });

  it("reads Vim's 'fileencoding' names", () => {
    expect(encodingFromVim("")).toBe("utf-8");
    expect(encodingFromVim("latin1")).toBe("latin1");
    expect(encodingFromVim("cp1252")).toBe("cp1252");
    expect(encodingFromVim("utf-16le")).toBe("utf-16le");
    expect(encodingFromVim("ucs-2")).toBe("utf-16");
    expect(encodingFromVim("sjis")).toBeUndefined();
    expect(joinText({ lines: ["a", "b"], eol: false })).toBe("a\nb");
  });
});
