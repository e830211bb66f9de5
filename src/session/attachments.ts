/**
 * Images and audio, both ways: files the user attaches to a prompt (`:AcpChatAdd`, `@` mentions,
 * the clipboard) and media the agent sends (message chunks, tool call content). ACP carries them
 * as `image` / `audio` content blocks holding base64 data and a mimeType; the client sends them
 * only when the agent's `promptCapabilities.image` / `.audio` says it takes them.
 * Spec: https://agentclientprotocol.com/protocol/v1/content
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { constants } from "node:fs";
import { link, open, rm, stat, unlink, writeFile, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "../protocol/schema.js";
import {
  AttachmentError,
  extensionFor,
  humanSize,
  mediaBytes,
  mediaType,
  mediaTypeOfMime,
  nameMedia,
  type MediaBlock,
  type MediaKind,
  type MediaPolicy,
} from "./media.js";

/**
 * The block for an image or audio file the user attached: an `image`/`audio` block when the
 * agent takes that kind, else a `resource_link` and a note saying why. A file over the limit is
 * refused with an AttachmentError (the caller gives the prompt back).
 */
export async function mediaBlock(
  path: string,
  type: { kind: MediaKind; mime: string },
  policy: MediaPolicy,
  label?: string,
): Promise<{ block: ContentBlock; note?: string }> {
  const name = label ?? basename(path);
  const uri = pathToFileURL(path).href;
  // What is read is what was checked (the path is the boundary's resolved one): opened without
  // following a link and without waiting on a FIFO put in its place since, then asked what it is.
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ELOOP" || code === "EMLINK")
      throw new AttachmentError(`${name} is a symbolic link (put there after it was checked): not attached`);
    throw new AttachmentError(`${name} cannot be read: ${(e as Error).message}`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new AttachmentError(`${name} is not a regular file: not attached`);
    const tooLarge = (n: number) =>
      new AttachmentError(
        `${name} is ${humanSize(n)}, over the limit for images and audio (${humanSize(policy.maxBytes)}, option media.max_bytes): not sent`,
      );
    if (st.size > policy.maxBytes) throw tooLarge(st.size);
    if (!policy[type.kind]) {
      return {
        block: { type: "resource_link", uri, name, mimeType: type.mime, size: st.size },
        note: `${name} was sent as a link, not as ${type.kind === "image" ? "an image" : "audio"}: ${policy.agent} does not accept ${type.kind === "image" ? "images" : "audio"} in prompts (promptCapabilities.${type.kind}).`,
      };
    }
    // At most one byte past the limit: a file growing meanwhile is refused, not read whole.
    const buf = Buffer.alloc(Math.min(policy.maxBytes + 1, Math.max(st.size, 0) + 64 * 1024));
    let n = 0;
    for (;;) {
      if (n === buf.length) break;
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) break;
      n += bytesRead;
    }
    if (n > policy.maxBytes) throw tooLarge(n);
    const data = buf.subarray(0, n).toString("base64");
    const block: MediaBlock =
      type.kind === "image"
        ? { type: "image", data, mimeType: type.mime, uri }
        : { type: "audio", data, mimeType: type.mime };
    nameMedia(block, name);
    return { block };
  } finally {
    await fh.close().catch(() => undefined);
  }
}

/**
 * A chat's private folder for media files: what `open` writes (the exact decoded bytes) and
 * images taken from the clipboard. Made on first use (mode 0700), removed when the chat closes.
 */
export class MediaFiles {
  private dir: string | undefined;
  private count = 0;
  /** What `open` wrote for each clip: opened again, the same file. */
  private opened = new WeakMap<object, string>();

  /** Set by dispose: the chat closed while a clipboard read or an open was under way. */
  private closed = false;

  /** The folder, made now if needed; never again once the chat closed (it would be left behind). */
  folder(): string {
    if (this.closed) throw new AttachmentError("the chat is closed");
    this.dir ??= mkdtempSync(join(tmpdir(), "acpchat-media-"));
    return this.dir;
  }

  /** Whether `path` lies in this chat's folder (an attachment from the clipboard); `..` never climbs out. */
  owns(path: string): boolean {
    return (
      this.dir !== undefined &&
      !this.closed &&
      resolve(path).startsWith(this.dir + "/") &&
      !path.split("/").includes("..")
    );
  }

  /** Write `bytes` to a new file in the folder named `stem` + the extension of `mime`. */
  async write(stem: string, mime: string, bytes: Uint8Array): Promise<string> {
    const safe = stem.replace(/[^A-Za-z0-9_.-]+/g, "-").slice(0, 60) || "media";
    const path = join(this.folder(), `${++this.count}-${safe}.${extensionFor(mime)}`);
    await writeFile(path, bytes, { mode: 0o600, flag: "wx" });
    if (this.closed) {
      // Closed while it was written: the folder went before the file landed, or goes now.
      rmSync(dirname(path), { recursive: true, force: true });
      throw new AttachmentError("the chat is closed");
    }
    return path;
  }

  /** Write `bytes` again to a file this folder made: replaced, not written through (a link put there is not followed). */
  async rewrite(path: string, bytes: Uint8Array): Promise<void> {
    if (this.closed || !this.owns(path)) throw new AttachmentError("the chat is closed");
    await rm(path, { force: true });
    await writeFile(path, bytes, { mode: 0o600, flag: "wx" });
  }

  /** Remove the folder and everything in it (synchronous: also runs while the host exits). */
  dispose(): void {
    this.closed = true;
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
    this.opened = new WeakMap();
    this.earlier = [];
  }

  /** The file written for `key` before, if it is still there. */
  async cached(key: object): Promise<string | undefined> {
    const path = this.opened.get(key);
    if (!path) return undefined;
    try {
      await stat(path);
      return path;
    } catch {
      this.opened.delete(key);
      return undefined;
    }
  }

  remember(key: object, path: string): void {
    this.opened.set(key, path);
  }

  /**
   * The blocks with clips of the chat's earlier incarnations: the transcript still shows them
   * above the current session's (their ids are not reused), so gx and gS find them here.
   */
  private earlier: { id: string; type: string }[] = [];

  keep(blocks: readonly { id: string; type: string }[]): void {
    this.earlier.push(...blocks.filter((b) => b.type === "media" || b.type === "tool"));
  }

  /** The blocks to look a clip up in: the current session's, then the earlier incarnations'. */
  blocks(current: readonly { id: string; type: string }[]): readonly { id: string; type: string }[] {
    return this.earlier.length === 0 ? current : [...current, ...this.earlier];
  }

  /** Opens under way, by clip: gx pressed again meanwhile waits for the same file. */
  readonly opening = new WeakMap<object, Promise<string>>();
}

/** Runs a clipboard tool: its output, at most `maxBuffer` bytes (more ends it with an error). */
type Run = (cmd: string, args: string[], maxBuffer?: number) => Promise<Buffer>;

const run: Run = (cmd, args, maxBuffer = 1024 * 1024) =>
  new Promise((resolve, reject) => {
    execFile(cmd, args, { encoding: "buffer", timeout: 5000, maxBuffer }, (err, stdout) =>
      err ? reject(err) : resolve(stdout),
    );
  });

/** Whether `cmd` is an executable on $PATH. */
async function onPath(cmd: string, env: NodeJS.ProcessEnv): Promise<boolean> {
  for (const dir of (env.PATH ?? "").split(":")) {
    if (!dir) continue;
    try {
      const st = await stat(join(dir, cmd));
      if (st.isFile() && (st.mode & 0o111) !== 0) return true;
    } catch {
      // not here
    }
  }
  return false;
}

/** The clipboard tools this platform may offer, in the order they are tried. */
export const CLIPBOARD_TOOLS = ["wl-paste", "xclip"] as const;

/**
 * The image (or audio) on the clipboard (`primary`: the X11/Wayland primary selection), read
 * with wl-paste (Wayland) or xclip (X11): its bytes and mimeType. Throws an AttachmentError that
 * says what is missing when the platform offers no way to read it or the clipboard holds none.
 */
export async function readClipboardMedia(
  primary: boolean,
  maxBytes: number,
  env: NodeJS.ProcessEnv = process.env,
  exec: Run = run,
): Promise<{ bytes: Buffer; mime: string }> {
  const tools: { name: string; list: string[]; get: (mime: string) => string[] }[] = [];
  if (env.WAYLAND_DISPLAY && (await onPath("wl-paste", env))) {
    const p = primary ? ["--primary"] : [];
    tools.push({
      name: "wl-paste",
      list: [...p, "--list-types"],
      get: (mime) => [...p, "--no-newline", "--type", mime],
    });
  }
  if (env.DISPLAY && (await onPath("xclip", env))) {
    const sel = ["-selection", primary ? "primary" : "clipboard"];
    tools.push({ name: "xclip", list: [...sel, "-t", "TARGETS", "-o"], get: (mime) => [...sel, "-t", mime, "-o"] });
  }
  if (tools.length === 0) {
    throw new AttachmentError(
      "reading an image from the clipboard needs wl-paste (Wayland, package wl-clipboard) or xclip (X11) and a display; none was found. Save the image to a file and :AcpChatAdd the file.",
    );
  }
  const tried: string[] = [];
  for (const tool of tools) {
    let types: string[];
    try {
      types = (await exec(tool.name, tool.list))
        .toString("utf8")
        .split(/\r?\n/)
        .map((s) => s.trim());
    } catch (e) {
      tried.push(`${tool.name}: ${(e as Error).message.split("\n")[0]}`);
      continue;
    }
    const mime =
      types.find((t) => t === "image/png") ?? types.find((t) => /^(image|audio)\//.test(t) && mediaTypeOfMime(t));
    if (!mime) {
      tried.push(`${tool.name}: no image or audio on the ${primary ? "primary selection" : "clipboard"}`);
      continue;
    }
    const over = () =>
      new AttachmentError(
        `the clipboard's ${mime} is over the limit for images and audio (${humanSize(maxBytes)}, option media.max_bytes): not attached`,
      );
    // Read up to one byte past the limit: an owner streaming without end is cut there.
    const bytes = await exec(tool.name, tool.get(mime), maxBytes + 1).catch((e: unknown) => {
      if ((e as { code?: unknown }).code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") throw over();
      throw e;
    });
    if (bytes.length === 0) {
      tried.push(`${tool.name}: the ${mime} on the clipboard is empty`);
      continue;
    }
    if (bytes.length > maxBytes)
      throw new AttachmentError(
        `the clipboard's ${mime} is ${humanSize(bytes.length)}, over the limit for images and audio (${humanSize(maxBytes)}, option media.max_bytes): not attached`,
      );
    return { bytes, mime };
  }
  throw new AttachmentError(tried.join("; "));
}

/** What `:AcpChatAdd` shows for a file it adds, checked now like the prompt will check it. */
export interface AttachmentInfo {
  path: string;
  label?: string;
  kind?: MediaKind;
  mime?: string;
  size?: number;
}

/**
 * A file the user adds: an image or audio file must lie inside the boundary (`check`, which
 * throws like fs/read_text_file's) and be under the limit, and is described; another file is
 * left to the prompt (as today).
 */
export async function describeAttachment(
  path: string,
  check: (path: string) => string,
  cwd: string,
  maxBytes: number,
): Promise<AttachmentInfo> {
  const type = mediaType(path);
  if (!type) return { path };
  let abs: string;
  try {
    abs = check(path);
  } catch {
    throw new AttachmentError(
      `Access denied: ${path} is outside the session's working directory (${cwd}): not attached`,
    );
  }
  let size: number;
  try {
    const st = await stat(abs);
    if (!st.isFile()) throw new AttachmentError(`${path} is not a regular file: not attached`);
    size = st.size;
  } catch (e) {
    if (e instanceof AttachmentError) throw e;
    throw new AttachmentError(`${path} cannot be read: ${(e as Error).message}`);
  }
  if (size > maxBytes)
    throw new AttachmentError(
      `${basename(path)} is ${humanSize(size)}, over the limit for images and audio (${humanSize(maxBytes)}, option media.max_bytes): not attached`,
    );
  return { path: abs, kind: type.kind, mime: type.mime, size };
}

/** The clipboard's image saved in the chat's folder, described for the prompt. */
export async function attachClipboard(
  files: MediaFiles,
  primary: boolean,
  maxBytes: number,
  env: NodeJS.ProcessEnv = process.env,
): Promise<AttachmentInfo> {
  const { bytes, mime } = await readClipboardMedia(primary, maxBytes, env);
  const type = mediaTypeOfMime(mime)!;
  const path = await files.write("clipboard", mime, bytes);
  return { path, label: basename(path), kind: type.kind, mime, size: bytes.length };
}

/** The agent's image or audio clip written to the chat's folder (the exact decoded bytes), for opening. */
export async function openMedia(files: MediaFiles, media: MediaBlock | undefined, name?: string): Promise<string> {
  if (!media) throw new Error("no image or audio there (the transcript changed?)");
  // gx twice in a row: the second waits for the first's file (not a second copy).
  const pending = files.opening.get(media);
  if (pending) return pending;
  const p = openOnce(files, media, name).finally(() => files.opening.delete(media));
  files.opening.set(media, p);
  return p;
}

async function openOnce(files: MediaFiles, media: MediaBlock, name?: string): Promise<string> {
  // Opened again: the same file, written again (a viewer may have changed it).
  const known = await files.cached(media);
  if (known) {
    await files.rewrite(known, mediaBytes(media));
    return known;
  }
  // The user's cat.png opens as …-cat.png, not …-cat.png.png (the extension comes from the mimeType).
  const path = await files.write(
    name?.replace(/\.[A-Za-z0-9]{1,8}$/, "") ?? media.type,
    media.mimeType,
    mediaBytes(media),
  );
  files.remember(media, path);
  return path;
}

/**
 * The agent's image or audio clip saved to `path` (absolute). An existing file is replaced only
 * with `overwrite`; otherwise the answer says it exists (the editor asks, then calls again).
 */
export async function saveMedia(
  media: MediaBlock | undefined,
  path: string,
  overwrite: boolean,
): Promise<{ saved: boolean; exists?: boolean; path: string; size?: number }> {
  if (!media) throw new Error("no image or audio there (the transcript changed?)");
  if (!path.startsWith("/")) throw new Error(`not an absolute path: ${path}`);
  const bytes = mediaBytes(media);
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw new AttachmentError(`${path} is a folder: not saved`);
    if (!overwrite) return { saved: false, exists: true, path };
  } catch (e) {
    if (e instanceof AttachmentError) throw e;
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
  // A new file is written whole beside it first, then linked in (which fails if a file appeared
  // meanwhile: not replaced either), so it never shows half written. Replacing an existing file
  // (the user said yes) writes into it, as before: its mode, links and a symlink's target stay.
  if (overwrite) {
    await writeFile(path, bytes, { flag: "w" }).catch((e: Error) => {
      throw new Error(`could not save ${path}: ${e.message}`);
    });
    return { saved: true, path, size: bytes.length };
  }
  const tmp = join(dirname(path), `.acpchat-save-${process.pid}-${randomBytes(4).toString("hex")}`);
  try {
    await writeFile(tmp, bytes, { flag: "wx" });
    await link(tmp, path).catch((e: NodeJS.ErrnoException) => {
      // A file system without hard links (FAT, some network mounts): created in place.
      if (e.code === "EEXIST") throw e;
      return writeFile(path, bytes, { flag: "wx" });
    });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return { saved: false, exists: true, path };
    throw new Error(`could not save ${path}: ${(e as Error).message}`);
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  return { saved: true, path, size: bytes.length };
}
