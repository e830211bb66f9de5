/**
 * Bytes <-> lines, the way Vim reads and writes a file with its default options
 * ('fileencodings' "ucs-bom,utf-8,default,latin1", 'fileformats' "unix,dos"), so that a file goes
 * back to disk byte for byte except where the agent changed it: its encoding, BOM, line ending
 * and final newline are remembered when it is read and used again when it is written.
 *
 * A text is a list of lines (without their line breaks) plus `eol`: whether the last line ends
 * with a line break. The empty file is `{ lines: [], eol: false }`. Lines never contain "\n"; in
 * a "unix" file they may end with "\r" (Vim shows it as ^M), in a "dos" file they do not.
 */

export type Encoding = "utf-8" | "latin1" | "cp1252" | "utf-16" | "utf-16le";
export type FileFormat = "unix" | "dos";

/** Lines plus whether the last one ends with a line break. */
export interface Text {
  lines: string[];
  eol: boolean;
}

/** A text with everything needed to write it back as it was read. */
export interface TextFile extends Text {
  encoding: Encoding;
  format: FileFormat;
  bom: boolean;
}

export type Decoded = { ok: true; file: TextFile } | { ok: false; why: "binary"; message: string };

// The 32 code points of bytes 0x80..0x9F in windows-1252; the five bytes it leaves undefined
// map to themselves (as WHATWG and Vim's iconv do), so every byte decodes and encodes back.
const CP1252_HIGH = [
  0x20ac, 0x81, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8d, 0x017d,
  0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0x9d,
  0x017e, 0x0178,
];
const CP1252_UNDEFINED = new Set([0x81, 0x8d, 0x8f, 0x90, 0x9d]);
const CP1252_ENCODE = new Map<number, number>(CP1252_HIGH.map((cp, i) => [cp, 0x80 + i]));

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The encoding names Vim uses for 'fileencoding', normalised to ours (undefined: unknown). */
export function encodingFromVim(fenc: string, fallback: Encoding = "utf-8"): Encoding | undefined {
  const f = fenc.toLowerCase().replace(/_/g, "-");
  if (f === "" || f === "utf-8" || f === "utf8") return fallback === "utf-8" ? "utf-8" : fallback;
  if (f === "latin1" || f === "iso-8859-1" || f === "8bit-latin1") return "latin1";
  if (f === "cp1252" || f === "windows-1252" || f === "8bit-cp1252") return "cp1252";
  if (f === "utf-16" || f === "ucs-2" || f === "utf-16be" || f === "ucs-2be") return "utf-16";
  if (f === "utf-16le" || f === "ucs-2le") return "utf-16le";
  return undefined;
}

/** Whether the bytes look binary: a NUL byte (UTF-16 is recognised by its BOM before this). */
function hasNul(bytes: Uint8Array): boolean {
  return bytes.indexOf(0) !== -1;
}

/**
 * Decode a file's bytes like Vim with its default 'fileencodings': a BOM decides (UTF-8, UTF-16
 * LE/BE), else valid UTF-8 is UTF-8, else each byte is one character: windows-1252 when the
 * bytes 0x80-0x9F it holds are all defined there (so the agent sees "€" and quotes), latin1
 * otherwise. A file with NUL bytes (other than UTF-16 with a BOM) is binary: refused.
 */
export function decodeBytes(bytes: Uint8Array): Decoded {
  let encoding: Encoding;
  let bom = false;
  let chars: string;
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    const le = bytes[0] === 0xff;
    // FF FE 00 00 is UTF-32 LE; an odd length is not UTF-16 either.
    if ((le && bytes.length >= 4 && bytes[2] === 0 && bytes[3] === 0) || bytes.length % 2 !== 0) {
      return {
        ok: false,
        why: "binary",
        message: "is not a text file this client can edit (UTF-32, or UTF-16 with an odd length)",
      };
    }
    encoding = le ? "utf-16le" : "utf-16";
    bom = true;
    chars = decodeUtf16(bytes.subarray(2), le);
  } else {
    if (hasNul(bytes))
      return {
        ok: false,
        why: "binary",
        message: "looks binary (it contains NUL bytes); only text files can be read or written",
      };
    if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
      const rest = bytes.subarray(3);
      const s = tryUtf8(rest);
      if (s !== undefined) {
        encoding = "utf-8";
        bom = true;
        chars = s;
      } else {
        ({ encoding, chars } = decodeSingleByte(bytes));
      }
    } else {
      const s = tryUtf8(bytes);
      if (s !== undefined) {
        encoding = "utf-8";
        chars = s;
      } else {
        ({ encoding, chars } = decodeSingleByte(bytes));
      }
    }
  }
  const { lines, eol, format } = splitText(chars);
  return { ok: true, file: { lines, eol, format, encoding, bom } };
}

function tryUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8Strict.decode(bytes);
  } catch {
    return undefined;
  }
}

function decodeUtf16(bytes: Uint8Array, le: boolean): string {
  const b = Buffer.from(bytes);
  if (!le) b.swap16();
  return b.toString("utf16le");
}

function decodeSingleByte(bytes: Uint8Array): { encoding: Encoding; chars: string } {
  let c1 = false;
  let undefinedInCp1252 = false;
  for (const b of bytes) {
    if (b >= 0x80 && b <= 0x9f) {
      c1 = true;
      if (CP1252_UNDEFINED.has(b)) undefinedInCp1252 = true;
    }
  }
  const latin1 = Buffer.from(bytes).toString("latin1");
  if (!c1 || undefinedInCp1252) return { encoding: c1 ? "latin1" : "cp1252", chars: latin1 };
  let out = "";
  for (const b of bytes)
    out += b >= 0x80 && b <= 0x9f ? String.fromCharCode(CP1252_HIGH[b - 0x80]!) : String.fromCharCode(b);
  return { encoding: "cp1252", chars: out };
}

/**
 * Split decoded characters into lines like Vim with 'fileformats' "unix,dos": "dos" when every
 * line break is "\r\n" (the "\r" is then not part of the line), "unix" otherwise.
 */
export function splitText(s: string): Text & { format: FileFormat } {
  if (s === "") return { lines: [], eol: false, format: "unix" };
  const parts = s.split("\n");
  let dos = parts.length > 1;
  for (let i = 0; i < parts.length - 1 && dos; i++) if (!parts[i]!.endsWith("\r")) dos = false;
  if (dos) for (let i = 0; i < parts.length - 1; i++) parts[i] = parts[i]!.slice(0, -1);
  const eol = parts[parts.length - 1] === "";
  if (eol) parts.pop();
  return { lines: parts, eol, format: dos ? "dos" : "unix" };
}

/** Lines and final newline as one string with "\n" line breaks (what the agent reads). */
export function joinText(t: Text): string {
  if (t.lines.length === 0) return "";
  return t.lines.join("\n") + (t.eol ? "\n" : "");
}

/**
 * The agent's text for a file with this format and BOM: "\r\n" line breaks become the file's
 * own when the file is "dos" (a "unix" file keeps them as the agent wrote them), and a BOM the
 * file already has is not doubled. The final newline is the agent's.
 */
export function proposalText(
  content: string,
  target?: { format: FileFormat; bom: boolean },
): Text & { format: FileFormat } {
  let s = content;
  if (target?.bom && s.startsWith("\ufeff")) s = s.slice(1);
  const t = splitText(s);
  if (!target || t.format === target.format) return t;
  if (target.format === "unix") {
    // The agent wrote "\r\n" into a "unix" file: keep its bytes (the lines end with "\r").
    return { lines: splitUnix(s), eol: s.endsWith("\n"), format: "unix" };
  }
  return { ...t, format: "dos" };
}

function splitUnix(s: string): string[] {
  if (s === "") return [];
  const parts = s.split("\n");
  if (parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** The first character that `encoding` cannot hold, with its line (1-based), or undefined. */
export function unencodable(lines: readonly string[], encoding: Encoding): { line: number; char: string } | undefined {
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (encoding === "utf-8" || encoding === "utf-16" || encoding === "utf-16le") {
      if (LONE_SURROGATE.test(l)) return { line: i + 1, char: "(a lone surrogate)" };
      continue;
    }
    for (let k = 0; k < l.length; k++) {
      const c = l.charCodeAt(k);
      if (c < 0x80 || (c <= 0xff && (encoding === "latin1" || c >= 0xa0 || CP1252_UNDEFINED.has(c)))) continue;
      if (encoding === "cp1252" && CP1252_ENCODE.has(c)) continue;
      return { line: i + 1, char: String.fromCodePoint(l.codePointAt(k)!) };
    }
  }
  return undefined;
}

export class EncodeError extends Error {
  constructor(
    readonly encoding: Encoding,
    readonly line: number,
    readonly char: string,
  ) {
    super(`line ${line} has ${JSON.stringify(char)}, which ${encoding} cannot hold`);
    this.name = "EncodeError";
  }
}

/** The bytes of a text file: its encoding, BOM, line breaks and final newline. Throws EncodeError. */
export function encodeText(f: TextFile): Buffer {
  const bad = unencodable(f.lines, f.encoding);
  if (bad) throw new EncodeError(f.encoding, bad.line, bad.char);
  const nl = f.format === "dos" ? "\r\n" : "\n";
  const s = f.lines.length === 0 ? "" : f.lines.join(nl) + (f.eol ? nl : "");
  switch (f.encoding) {
    case "utf-8":
      return Buffer.concat([f.bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(s, "utf8")]);
    case "utf-16le":
    case "utf-16": {
      const body = Buffer.from(s, "utf16le");
      const bom = Buffer.from([0xff, 0xfe]);
      if (f.encoding === "utf-16") {
        body.swap16();
        bom.swap16();
      }
      return f.bom ? Buffer.concat([bom, body]) : body;
    }
    case "latin1":
      return Buffer.from(s, "latin1");
    case "cp1252": {
      const out = Buffer.allocUnsafe(s.length);
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        out[i] = c < 0x80 || (c >= 0xa0 && c <= 0xff) || CP1252_UNDEFINED.has(c) ? c : CP1252_ENCODE.get(c)!;
      }
      return out;
    }
  }
}

/** Texts equal line for line and in their final newline. */
export function sameText(a: Text, b: Text): boolean {
  if (a.eol !== b.eol || a.lines.length !== b.lines.length) return false;
  for (let i = 0; i < a.lines.length; i++) if (a.lines[i] !== b.lines[i]) return false;
  return true;
}
