/**
 * Images and audio as data: their kinds, names, sizes and limits, with no file or process
 * touched (what the session state and the view need). Reading, opening, saving and the
 * clipboard are attachments.ts.
 * Spec: https://agentclientprotocol.com/protocol/v1/content
 */
import { basename } from "node:path";
import type { ContentBlock } from "../protocol/schema.js";

export type MediaKind = "image" | "audio";
export type MediaBlock = Extract<ContentBlock, { type: "image" } | { type: "audio" }>;

/** The default limit of one attachment's size (`media.max_bytes`). */
export const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;

const BY_EXT: Record<string, { kind: MediaKind; mime: string }> = {
  png: { kind: "image", mime: "image/png" },
  jpg: { kind: "image", mime: "image/jpeg" },
  jpeg: { kind: "image", mime: "image/jpeg" },
  gif: { kind: "image", mime: "image/gif" },
  webp: { kind: "image", mime: "image/webp" },
  bmp: { kind: "image", mime: "image/bmp" },
  avif: { kind: "image", mime: "image/avif" },
  wav: { kind: "audio", mime: "audio/wav" },
  mp3: { kind: "audio", mime: "audio/mpeg" },
  ogg: { kind: "audio", mime: "audio/ogg" },
  oga: { kind: "audio", mime: "audio/ogg" },
  opus: { kind: "audio", mime: "audio/opus" },
  flac: { kind: "audio", mime: "audio/flac" },
  m4a: { kind: "audio", mime: "audio/mp4" },
  aac: { kind: "audio", mime: "audio/aac" },
};

/** What a file is by its extension: an image or audio (with its mimeType), or undefined. */
export function mediaType(path: string): { kind: MediaKind; mime: string } | undefined {
  const m = /\.([A-Za-z0-9]+)$/.exec(basename(path));
  return m ? BY_EXT[m[1]!.toLowerCase()] : undefined;
}

/** Other image and audio types a viewer or player opens by their extension (a mimeType's subtype, an `x-` taken off). */
const OTHER_EXT = new Set([
  "image/tiff",
  "image/heic",
  "image/heif",
  "image/jxl",
  "image/ico",
  "image/icon",
  "audio/aiff",
  "audio/webm",
  "audio/amr",
  "audio/midi",
  "audio/mid",
]);

/**
 * A file extension for a mimeType (temp files are opened by their extension); "bin" when it is
 * not a known image or audio type. The mimeType comes from the agent: the extension chooses the
 * program `gx` runs, so "text/html" or "application/x-desktop" must not become .html or .desktop
 * (nor "image/svg+xml" .svg: a browser runs an SVG's scripts).
 */
export function extensionFor(mime: string): string {
  const m = mime.toLowerCase().split(";")[0]!.trim();
  const known = Object.entries(BY_EXT).find(([, t]) => t.mime === m);
  if (known) return known[0];
  const sub = /^(image|audio)\/(?:x-)?([a-z0-9]{1,8})$/.exec(m);
  if (sub && OTHER_EXT.has(`${sub[1]}/${sub[2]}`)) return sub[2] === "icon" ? "ico" : sub[2]!;
  if (sub && BY_EXT[sub[2]!]?.kind === sub[1]) return sub[2]!;
  return "bin";
}

/** A `data:<type>;base64,` prefix some agents put before the data (a data URL, not base64). */
const DATA_URL = /^\s*data:[^,]{0,200};base64,/i;

/** The base64 of an agent's clip, without a data URL's prefix. */
export function base64Of(data: string): string {
  return data.startsWith("data:", data.search(/\S/)) ? data.replace(DATA_URL, "") : data;
}

/** The number of bytes that base64 text decodes to (whitespace and a data URL's prefix ignored). */
export function decodedSize(data: string): number {
  const base64 = base64Of(data);
  let len = base64.length;
  if (/\s/.test(base64)) len = base64.replace(/\s+/g, "").length;
  let pad = 0;
  if (len > 0 && base64.trimEnd().endsWith("==")) pad = 2;
  else if (len > 0 && base64.trimEnd().endsWith("=")) pad = 1;
  return Math.max(0, Math.floor((len * 3) / 4) - pad);
}

/** A size for people: 512 B, 12.3 KB, 4.0 MB (1 KB = 1024 bytes). */
export function humanSize(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * Names of the media the user attached (ACP's image and audio blocks carry no name): the
 * transcript shows "cat.png" rather than only a type. Kept beside the blocks, never sent.
 */
const names = new WeakMap<object, string>();
export function mediaName(block: object): string | undefined {
  return names.get(block);
}
export function nameMedia(block: object, name: string): void {
  names.set(block, name);
}

/** An attachment refused: too large, outside the boundary, unreadable. The message is for the user. */
export class AttachmentError extends Error {
  override name = "AttachmentError";
  /** The context item refused (its path as the user added it), when it was one. */
  item?: string;
}

export interface MediaPolicy {
  /** What the agent takes (`promptCapabilities.image` / `.audio`). */
  image: boolean;
  audio: boolean;
  /** The largest file attached, in bytes. */
  maxBytes: number;
  /** The agent's name, for the notes. */
  agent: string;
}

/** The bytes of a media block (base64 decoded). */
export function mediaBytes(m: MediaBlock): Buffer {
  return Buffer.from(base64Of(m.data), "base64");
}

/**
 * Media the agent sent, found by where the transcript shows it: a media block (`index`
 * undefined) or item `index` of a tool call's content.
 */
export function findMedia(
  blocks: readonly { id: string; type: string }[],
  blockId: string,
  index?: number,
): MediaBlock | undefined {
  const b = blocks.find((x) => x.id === blockId) as
    | { type: "media"; media: MediaBlock }
    | { type: "tool"; call: { content: { type: string; content?: ContentBlock }[] } }
    | { type: string }
    | undefined;
  if (!b) return undefined;
  if (b.type === "media" && "media" in b) return b.media;
  if (b.type === "tool" && "call" in b && index !== undefined) {
    const c = b.call.content[index];
    if (c && c.type === "content" && c.content && (c.content.type === "image" || c.content.type === "audio"))
      return c.content as MediaBlock;
  }
  return undefined;
}

/** The kind of a mimeType this client attaches (by the types it knows), or undefined. */
export function mediaTypeOfMime(mime: string): { kind: MediaKind; mime: string } | undefined {
  const m = mime.toLowerCase();
  return Object.values(BY_EXT).find((t) => t.mime === m);
}
