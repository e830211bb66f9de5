/** Images and audio (src/session/attachments.ts, prompt-builder.ts, trace/media-elide.ts) without an editor. */
import { execFileSync } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describeAttachment, MediaFiles, readClipboardMedia, saveMedia } from "../../src/session/attachments.js";
import { AttachmentError, decodedSize, extensionFor, humanSize, mediaType } from "../../src/session/media.js";
import { buildPrompt } from "../../src/session/prompt-builder.js";
import { elideMedia, mayHoldMedia } from "../../src/trace/media-elide.js";
import { PathBoundary } from "../../src/workspace/path-boundary.js";

const dirs: string[] = [];
function dir(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-att-")));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) & 0xff));

describe("attachments", () => {
  it("knows images and audio by extension, and extensions by mimeType", () => {
    expect(mediaType("a/b/Cat.PNG")).toEqual({ kind: "image", mime: "image/png" });
    expect(mediaType("x.jpeg")).toEqual({ kind: "image", mime: "image/jpeg" });
    expect(mediaType("song.mp3")).toEqual({ kind: "audio", mime: "audio/mpeg" });
    expect(mediaType("notes.txt")).toBeUndefined();
    expect(mediaType("png")).toBeUndefined();
    expect(extensionFor("image/png")).toBe("png");
    expect(extensionFor("audio/x-flac")).toBe("flac");
    expect(extensionFor("application/octet-stream")).toBe("bin");
    // The agent's mimeType chooses the program gx runs: only image and audio types name one.
    for (const m of [
      "text/html",
      "application/x-desktop",
      "application/x-sh",
      "image/svg+xml",
      "image/html",
      "audio/png",
      "image/x-msdownload",
    ])
      expect(extensionFor(m)).toBe("bin");
    expect(extensionFor("image/x-png")).toBe("png");
    expect(extensionFor("image/tiff")).toBe("tiff");
    expect(extensionFor("AUDIO/X-WAV; rate=8000")).toBe("wav");
  });

  it("decodedSize is the length of the decoded bytes for every padding", () => {
    for (let n = 0; n < 40; n++) expect(decodedSize(bytes(n).toString("base64"))).toBe(n);
    expect(humanSize(1000)).toBe("1000 B");
    expect(humanSize(1536)).toBe("1.5 KB");
    expect(humanSize(5 * 1024 * 1024)).toBe("5.0 MB");
  });

  it("buildPrompt: image/audio blocks when allowed, links with notes when not, refused when too large or outside", async () => {
    const cwd = dir();
    const outside = dir();
    writeFileSync(join(cwd, "a.png"), bytes(100));
    writeFileSync(join(cwd, "b.wav"), bytes(50));
    writeFileSync(join(outside, "c.png"), bytes(10));
    const boundary = new PathBoundary(cwd);
    const all = { image: true, audio: true, maxBytes: 1000, agent: "bot" };
    const ok = await buildPrompt(
      "see @a.png",
      [{ type: "file", path: join(cwd, "b.wav") }],
      boundary,
      false,
      undefined,
      all,
    );
    expect(ok.notes).toEqual([]);
    expect(ok.blocks).toEqual([
      { type: "text", text: "see @a.png" },
      {
        type: "image",
        data: bytes(100).toString("base64"),
        mimeType: "image/png",
        uri: `file://${join(cwd, "a.png")}`,
      },
      { type: "audio", data: bytes(50).toString("base64"), mimeType: "audio/wav" },
    ]);
    const none = await buildPrompt(
      "see @a.png",
      [{ type: "file", path: join(cwd, "b.wav") }],
      boundary,
      false,
      undefined,
      { ...all, image: false, audio: false },
    );
    expect(none.blocks.slice(1)).toEqual([
      { type: "resource_link", uri: `file://${join(cwd, "a.png")}`, name: "a.png", mimeType: "image/png", size: 100 },
      { type: "resource_link", uri: `file://${join(cwd, "b.wav")}`, name: "b.wav", mimeType: "audio/wav", size: 50 },
    ]);
    expect(none.notes).toEqual([
      "a.png was sent as a link, not as an image: bot does not accept images in prompts (promptCapabilities.image).",
      "b.wav was sent as a link, not as audio: bot does not accept audio in prompts (promptCapabilities.audio).",
    ]);
    await expect(buildPrompt("x @a.png", [], boundary, false, undefined, { ...all, maxBytes: 99 })).rejects.toThrow(
      new AttachmentError(
        "a.png is 100 B, over the limit for images and audio (99 B, option media.max_bytes): not sent",
      ),
    );
    await expect(
      buildPrompt("x", [{ type: "file", path: join(outside, "c.png") }], boundary, false, undefined, all),
    ).rejects.toThrow(/^Access denied: .*c\.png is outside the session's working directory/);
    // A mention outside the folder stays text (as for any file).
    const mention = await buildPrompt(`x @${join(outside, "c.png")}`, [], boundary, false, undefined, all);
    expect(mention.blocks).toHaveLength(1);
    // The chat's own files (clipboard images) are allowed outside, under their label.
    const own = await buildPrompt(
      "x",
      [{ type: "file", path: join(outside, "c.png"), label: "clip.png" }],
      boundary,
      false,
      undefined,
      { ...all, image: false, owns: (p) => p.startsWith(outside) },
    );
    expect(own.blocks[1]).toMatchObject({ type: "resource_link", name: "clip.png" });
  });

  it("mediaBlock reads what it checked: a link or a FIFO put in the file's place after the check is refused, not followed or waited on", async () => {
    const { mediaBlock } = await import("../../src/session/attachments.js");
    const cwd = dir();
    const secret = join(dir(), "id_rsa");
    writeFileSync(secret, "PRIVATE KEY");
    symlinkSync(secret, join(cwd, "a.png"));
    const policy = { image: true, audio: true, maxBytes: 1000, agent: "bot" };
    await expect(mediaBlock(join(cwd, "a.png"), { kind: "image", mime: "image/png" }, policy)).rejects.toThrow(
      new AttachmentError("a.png is a symbolic link (put there after it was checked): not attached"),
    );
    execFileSync("mkfifo", [join(cwd, "b.png")]);
    await expect(mediaBlock(join(cwd, "b.png"), { kind: "image", mime: "image/png" }, policy)).rejects.toThrow(
      /b\.png is not a regular file: not attached/,
    );
    writeFileSync(join(cwd, "c.png"), bytes(10));
    expect((await mediaBlock(join(cwd, "c.png"), { kind: "image", mime: "image/png" }, policy)).block).toMatchObject({
      type: "image",
      data: bytes(10).toString("base64"),
    });
  });

  it("the agent's data as a data: URL or with line breaks decodes to the clip's bytes, and its size says so", async () => {
    const { mediaBytes } = await import("../../src/session/media.js");
    const raw = bytes(50);
    for (const data of [
      `data:image/png;base64,${raw.toString("base64")}`,
      raw.toString("base64").replace(/(.{10})/g, "$1\r\n"),
      `  ${raw.toString("base64")}\n`,
    ]) {
      const m = { type: "image" as const, data, mimeType: "image/png" };
      expect(mediaBytes(m).equals(raw)).toBe(true);
      expect(decodedSize(data)).toBe(50);
    }
  });

  it("a link in the session's folder to an image outside it is refused by :AcpChatAdd, and an @mention of it stays text", async () => {
    const cwd = dir();
    const outside = dir();
    writeFileSync(join(outside, "secret.png"), bytes(10));
    symlinkSync(join(outside, "secret.png"), join(cwd, "innocent.png"));
    const b = new PathBoundary(cwd);
    await expect(describeAttachment(join(cwd, "innocent.png"), (p) => b.check(p, "attach"), cwd, 1000)).rejects.toThrow(
      /^Access denied: .*innocent\.png is outside/,
    );
    const all = { image: true, audio: true, maxBytes: 1000, agent: "bot" };
    expect((await buildPrompt("see @innocent.png", [], b, false, undefined, all)).blocks).toEqual([
      { type: "text", text: "see @innocent.png" },
    ]);
    await expect(
      buildPrompt("x", [{ type: "file", path: join(cwd, "innocent.png") }], b, false, undefined, all),
    ).rejects.toThrow(/Access denied/);
  });

  it("describeAttachment checks like the prompt does; other files pass untouched", async () => {
    const cwd = dir();
    writeFileSync(join(cwd, "a.png"), bytes(100));
    const b = new PathBoundary(cwd);
    const check = (p: string) => b.check(p, "attach");
    expect(await describeAttachment(join(cwd, "a.png"), check, cwd, 1000)).toEqual({
      path: join(cwd, "a.png"),
      kind: "image",
      mime: "image/png",
      size: 100,
    });
    expect(await describeAttachment("/etc/hostname", check, cwd, 1000)).toEqual({ path: "/etc/hostname" });
    await expect(describeAttachment("/etc/x.png", check, cwd, 1000)).rejects.toThrow(/Access denied/);
    await expect(describeAttachment(join(cwd, "a.png"), check, cwd, 10)).rejects.toThrow(/over the limit/);
    await expect(describeAttachment(join(cwd, "missing.png"), check, cwd, 10)).rejects.toThrow(/cannot be read/);
  });

  it("MediaFiles writes exact bytes in a private folder and removes it; saveMedia asks before replacing", async () => {
    const files = new MediaFiles();
    const data = bytes(333);
    const p = await files.write("shot", "image/png", data);
    expect(p).toMatch(/acpchat-media-[^/]+\/1-shot\.png$/);
    expect(readFileSync(p).equals(data)).toBe(true);
    expect(files.owns(p)).toBe(true);
    const folder = files.folder();
    files.dispose();
    expect(() => readFileSync(p)).toThrow();
    expect(() => mkdirSync(folder)).not.toThrow();
    rmSync(folder, { recursive: true });

    const out = join(dir(), "saved.png");
    const media = { type: "image" as const, data: data.toString("base64"), mimeType: "image/png" };
    expect(await saveMedia(media, out, false)).toEqual({ saved: true, path: out, size: 333 });
    writeFileSync(out, "other");
    expect(await saveMedia(media, out, false)).toEqual({ saved: false, exists: true, path: out });
    expect(readFileSync(out, "utf8")).toBe("other");
    expect(await saveMedia(media, out, true)).toMatchObject({ saved: true });
    expect(readFileSync(out).equals(data)).toBe(true);
    // Put in place whole (written beside it, then linked or renamed in): nothing else is left,
    // and the saved file is a file of its own.
    expect(readdirSync(dirname(out))).toEqual(["saved.png"]);
    expect(statSync(out).nlink).toBe(1);
    const fresh = join(dirname(out), "fresh.png");
    await saveMedia(media, fresh, false);
    expect(readdirSync(dirname(out)).sort()).toEqual(["fresh.png", "saved.png"]);
    expect(statSync(fresh).nlink).toBe(1);
    // Replacing a file that is a link writes into its target: the link stays a link.
    const target = join(dirname(out), "target.png");
    writeFileSync(target, "old");
    const linked = join(dirname(out), "linked.png");
    symlinkSync(target, linked);
    expect(await saveMedia(media, linked, true)).toMatchObject({ saved: true });
    expect(readFileSync(target).equals(data)).toBe(true);
    expect(lstatSync(linked).isSymbolicLink()).toBe(true);
    await expect(saveMedia(undefined, out, true)).rejects.toThrow(/no image or audio there/);
  });

  it("readClipboardMedia: wl-paste's types, the image's bytes; a clear error without a tool or an image", async () => {
    const bin = dir();
    writeFileSync(join(bin, "wl-paste"), "#!/bin/sh\n", { mode: 0o755 });
    const calls: string[][] = [];
    const exec = async (cmd: string, args: string[]) => {
      calls.push([cmd, ...args]);
      if (args.includes("--list-types")) return Buffer.from("text/plain\nimage/png\n");
      return bytes(20);
    };
    const env = { PATH: bin, WAYLAND_DISPLAY: "wayland-0" };
    expect(await readClipboardMedia(false, 100, env, exec)).toEqual({ bytes: bytes(20), mime: "image/png" });
    expect(calls).toEqual([
      ["wl-paste", "--list-types"],
      ["wl-paste", "--no-newline", "--type", "image/png"],
    ]);
    await expect(readClipboardMedia(false, 10, env, exec)).rejects.toThrow(/over the limit/);
    await expect(readClipboardMedia(true, 100, env, async () => Buffer.from("text/plain\n"))).rejects.toThrow(
      "wl-paste: no image or audio on the primary selection",
    );
    await expect(readClipboardMedia(false, 100, { PATH: bin }, exec)).rejects.toThrow(
      /needs wl-paste .* or xclip .*none was found/,
    );
  });

  it("elideMedia replaces image/audio data and blobs by their length, and returns the same object when there are none", () => {
    const msg = {
      jsonrpc: "2.0",
      method: "session/prompt",
      params: {
        prompt: [
          { type: "text", text: "hi" },
          { type: "image", data: "QUJD", mimeType: "image/png" },
          { type: "resource", resource: { uri: "file:///x", blob: "AAAA" } },
        ],
      },
    };
    expect(elideMedia(msg)).toEqual({
      jsonrpc: "2.0",
      method: "session/prompt",
      params: {
        prompt: [
          { type: "text", text: "hi" },
          { type: "image", data: "[base64 elided: 4 chars]", mimeType: "image/png" },
          { type: "resource", resource: { uri: "file:///x", blob: "[base64 elided: 4 chars]" } },
        ],
      },
    });
    expect(msg.params.prompt[1]).toEqual({ type: "image", data: "QUJD", mimeType: "image/png" });
    const plain = { a: [{ type: "text", text: "image" }], data: "x" };
    expect(elideMedia(plain)).toBe(plain);
    // The wire text may spell "image" with escapes: the cheap look must not miss it.
    expect(mayHoldMedia('{"type":"\\u0069mage","data":"QUJD"}')).toBe(true);
    expect(mayHoldMedia('{"type":"text","text":"plain"}')).toBe(false);
  });
});

describe("media in the session's state and view", () => {
  it("an image chunk is a block of its own between the texts around it; a replayed user image opens its turn once; views carry no data", async () => {
    const { SessionState } = await import("../../src/session/session-state.js");
    const { blockView } = await import("../../src/view/view-model.js");
    const s = new SessionState("bot");
    const data = bytes(30).toString("base64");
    // session/load replays: a user image, then the user's text: one turn.
    s.apply({ sessionUpdate: "user_message_chunk", content: { type: "image", data, mimeType: "image/png" } });
    s.apply({ sessionUpdate: "user_message_chunk", content: { type: "text", text: "what is it?" } });
    s.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "a " } });
    s.apply({ sessionUpdate: "agent_message_chunk", content: { type: "audio", data, mimeType: "audio/wav" } });
    s.apply({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "b" } });
    const views = s.blocks.map(blockView);
    expect(views.map((v) => v.type)).toEqual(["turn", "media", "user", "reply", "agent", "media", "agent"]);
    expect(views[1]).toEqual({
      id: views[1]!.id,
      type: "media",
      role: "user",
      kind: "image",
      mime: "image/png",
      size: 30,
    });
    expect(views[5]).toMatchObject({ type: "media", role: "agent", kind: "audio", mime: "audio/wav", size: 30 });
    expect(JSON.stringify(views)).not.toContain(data);
    // A tool call's image: a media item with its index in the call's content.
    s.apply({
      sessionUpdate: "tool_call",
      toolCallId: "t",
      title: "shot",
      content: [
        { type: "content", content: { type: "text", text: "x" } },
        { type: "content", content: { type: "image", data, mimeType: "image/png" } },
      ],
    });
    const tool = blockView(s.blocks.at(-1)!) as { content: unknown[] };
    expect(tool.content[1]).toEqual({ type: "media", index: 1, kind: "image", mime: "image/png", size: 30 });
    const { findMedia } = await import("../../src/session/media.js");
    expect(findMedia(s.blocks, s.blocks.at(-1)!.id, 1)).toMatchObject({ type: "image", data });
    expect(findMedia(s.blocks, s.blocks.at(-1)!.id, 0)).toBeUndefined();
    expect(findMedia(s.blocks, views[5]!.id)).toMatchObject({ type: "audio", data });
  });
});
