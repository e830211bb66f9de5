/**
 * Images and audio, both ways, with the scripted agent in real Neovims: attachments
 * sent as `image`/`audio` blocks when the agent takes them and as links with a note when not,
 * refused when too large or outside the session's folder (the prompt keeps its text), the
 * clipboard's image through a wl-paste/xclip found on $PATH; the agent's images shown as one
 * line, opened (a private temp file with the exact bytes, gone when the chat closes) and saved.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { nvimBins } from "../support/nvim.js";
import {
  fakeAgent,
  nvim,
  openChat,
  received,
  recordNotes,
  sendAndWait,
  setScenario,
  startChat,
  type Chat,
  shareNvim,
  ownNvim,
} from "../support/chat.js";

const bins = nvimBins();
// One Neovim per binary for the file's tests (test/support/shared-nvim.ts).
shareNvim();

/** A real PNG (w x h, RGB gradient): bytes that any viewer opens. */
function png(w = 8, h = 8, seed = 0): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w * 3; x++) raw[y * (w * 3 + 1) + 1 + x] = (x * 7 + y * 13 + seed) & 0xff;
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 0 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A WAV file of `n` samples of silence-ish noise (8 kHz, 8 bit). */
function wav(n = 200): Buffer {
  const h = Buffer.alloc(44);
  h.write("RIFF", 0);
  h.writeUInt32LE(36 + n, 4);
  h.write("WAVEfmt ", 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(8000, 28);
  h.writeUInt16LE(1, 32);
  h.writeUInt16LE(8, 34);
  h.write("data", 36);
  h.writeUInt32LE(n, 40);
  return Buffer.concat([h, Buffer.from(Array.from({ length: n }, (_, i) => (128 + ((i * 37) % 11)) & 0xff))]);
}

/** The row (0-based) of the first transcript line matching `re`. */
async function rowOf(c: Chat, re: RegExp): Promise<number> {
  const lines = await c.lines();
  const i = lines.findIndex((l) => re.test(l));
  if (i < 0) throw new Error(`no line matches ${re}:\n${lines.join("\n")}`);
  return i;
}

/** Put the cursor on the transcript's `row` (0-based) and press `keys` there. */
async function pressOn(c: Chat, row: number, keys: string): Promise<void> {
  await c.focus();
  await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row + 1]);
  await c.t.lua("vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(..., true, false, true), 'mx', false)", [keys]);
}

/** vim.ui.open replaced: what it was asked to open lands in _G.opened (no viewer in a test). */
function recordOpens(c: Chat): Promise<unknown> {
  return c.t.lua(
    "_G.opened = {}; vim.ui.open = function(p) table.insert(_G.opened, p); return { wait = function() return { code = 0 } end } end",
  );
}

/** The prompt's context as the prompt window's winbar lists it. */
const winbar = (c: Chat) => c.promptWinbar();

describe.each(bins)("Neovim $version", (bin) => {
  it("an image (:AcpChatAdd) and audio (@ mention) go as image and audio blocks when the agent takes them; the transcript shows a line each, no base64 anywhere", async () => {
    const c = await startChat(bin, {
      record: "$DIR/record.jsonl",
      agentCapabilities: { promptCapabilities: { image: true, audio: true } },
    });
    const image = png(8, 8, 1);
    const audio = wav(300);
    writeFileSync(join(c.t.dir, "work", "cat.png"), image);
    writeFileSync(join(c.t.dir, "work", "beep.wav"), audio);
    await c.ready();
    await recordNotes(c.t);
    await c.t.nvim.command("AcpChatAdd cat.png");
    await c.t.waitFor(
      async () => (await winbar(c)).includes(`cat.png (image/png, ${image.length} B)`),
      "the image in the prompt's context",
    );
    await sendAndWait(c, "what do you see and hear? @beep.wav");
    const prompt = (received(c.t.dir, "session/prompt")[0] as { prompt: Record<string, unknown>[] }).prompt;
    expect(prompt[0]).toEqual({ type: "text", text: "what do you see and hear? @beep.wav" });
    expect(prompt).toContainEqual({ type: "audio", data: audio.toString("base64"), mimeType: "audio/wav" });
    expect(prompt).toContainEqual({
      type: "image",
      data: image.toString("base64"),
      mimeType: "image/png",
      uri: `file://${join(c.t.dir, "work", "cat.png")}`,
    });
    const text = await c.text();
    expect(text).toContain(`> [image] cat.png · image/png · ${image.length} B  (gx: open · gS: save)`);
    expect(text).toContain(`> [audio] beep.wav · audio/wav · ${audio.length} B  (gx: open · gS: save)`);
    expect(text).not.toContain(image.toString("base64").slice(0, 40));
    expect(text).not.toContain(audio.toString("base64").slice(0, 40));
    // The trace keeps a length, never the data (both in memory for :AcpChatLog and in the file).
    const trace = JSON.stringify(await c.trace());
    expect(trace).toContain(`[base64 elided: ${image.toString("base64").length} chars]`);
    expect(trace).not.toContain(image.toString("base64").slice(20, 60));
    expect(trace).not.toContain(audio.toString("base64").slice(20, 60));
    // The prompt's context is used up.
    expect(await winbar(c)).toBe("");
    await c.t.nvim.command("AcpChatClose");
    const logDir = join(c.t.dir, "state", "nvim", "acpchat");
    const traceFile = await c.t.waitFor(
      async () => existsSync(logDir) && readdirSync(logDir).find((f) => f.endsWith(".jsonl")),
      "the trace file",
    );
    await c.t.waitFor(
      async () => readFileSync(join(logDir, traceFile), "utf8").includes('"closed"'),
      "the trace written whole",
    );
    const file = readFileSync(join(logDir, traceFile), "utf8");
    expect(file).toContain("base64 elided");
    expect(file).not.toContain(image.toString("base64").slice(20, 60));
  });

  it("an agent without promptCapabilities.image/.audio gets links with the type and size, and the transcript says why", async () => {
    const c = await startChat(bin, {
      record: "$DIR/record.jsonl",
      agentCapabilities: { promptCapabilities: { embeddedContext: true } },
    });
    const image = png(4, 4);
    const audio = wav(64);
    writeFileSync(join(c.t.dir, "work", "cat.png"), image);
    writeFileSync(join(c.t.dir, "work", "beep.wav"), audio);
    await c.ready();
    await c.t.nvim.command("AcpChatAdd beep.wav");
    await c.t.waitFor(async () => (await winbar(c)).includes("beep.wav (audio/wav"), "the audio in the context");
    await sendAndWait(c, "look at @cat.png");
    const prompt = (received(c.t.dir, "session/prompt")[0] as { prompt: Record<string, unknown>[] }).prompt;
    expect(prompt.some((b) => b.type === "image" || b.type === "audio")).toBe(false);
    expect(prompt).toContainEqual({
      type: "resource_link",
      uri: `file://${join(c.t.dir, "work", "cat.png")}`,
      name: "cat.png",
      mimeType: "image/png",
      size: image.length,
    });
    expect(prompt).toContainEqual({
      type: "resource_link",
      uri: `file://${join(c.t.dir, "work", "beep.wav")}`,
      name: "beep.wav",
      mimeType: "audio/wav",
      size: audio.length,
    });
    const text = await c.text();
    expect(text).toContain(
      "! cat.png was sent as a link, not as an image: fake does not accept images in prompts (promptCapabilities.image).",
    );
    expect(text).toContain(
      "! beep.wav was sent as a link, not as audio: fake does not accept audio in prompts (promptCapabilities.audio).",
    );
  });

  it("too large or outside the session's folder: refused with a clear message, the prompt's text kept, nothing sent", async () => {
    const c = await startChat(
      bin,
      { record: "$DIR/record.jsonl", agentCapabilities: { promptCapabilities: { image: true } } },
      { media: { max_bytes: 1000 } },
    );
    const big = png(40, 40); // > 1000 bytes (stored, not compressed)
    expect(big.length).toBeGreaterThan(1000);
    writeFileSync(join(c.t.dir, "work", "big.png"), big);
    const outside = join(c.t.dir, "elsewhere", "secret.png");
    mkdirSync(dirname(outside), { recursive: true });
    writeFileSync(outside, png(2, 2));
    await c.ready();
    await recordNotes(c.t);
    // :AcpChatAdd says so at once and leaves the context empty.
    await c.t.nvim.command("AcpChatAdd big.png");
    await c.t.nvim.command(`AcpChatAdd ${outside}`);
    await c.t.waitFor(async () => (await c.notes()).length >= 2, "two refusals");
    const msgs = (await c.notes()).map((n) => n.msg);
    const size = `${(big.length / 1024).toFixed(1)} KB`;
    expect(msgs).toContainEqual(
      `acpchat: big.png is ${size}, over the limit for images and audio (1000 B, option media.max_bytes): not attached`,
    );
    expect(msgs).toContainEqual(
      `acpchat: Access denied: ${outside} is outside the session's working directory (${join(c.t.dir, "work")}): not attached`,
    );
    expect((await c.notes()).every((n) => n.level === 4)).toBe(true);
    expect(await winbar(c)).toBe("");
    // A mention of the large file: the prompt is not sent, its text comes back.
    await c.type("describe @big.png please");
    await c.t.waitFor(
      async () =>
        (await c.text()).includes(
          `! Could not prepare the prompt: big.png is ${size}, over the limit for images and audio (1000 B, option media.max_bytes): not sent`,
        ),
      "the refusal in the transcript",
    );
    await c.t.waitFor(
      async () => (await c.promptLines()).join("\n") === "describe @big.png please",
      "the prompt's text back in the prompt",
    );
    expect(await c.state()).toBe("ready");
    expect(received(c.t.dir, "session/prompt")).toEqual([]);
    // Added while small, grown before the send: refused then, and taken out of the context that
    // comes back (sending again must not fail the same way), the text kept.
    writeFileSync(join(c.t.dir, "work", "grows.png"), png(2, 2));
    await c.t.nvim.command("AcpChatAdd grows.png");
    await c.t.waitFor(async () => (await winbar(c)).includes("grows.png (image/png"), "the image in the context");
    writeFileSync(join(c.t.dir, "work", "grows.png"), big);
    await c.t.lua("vim.api.nvim_buf_set_lines(..., 0, -1, false, {})", [c.promptBuf]);
    await c.type("and this");
    await c.t.waitFor(
      async () =>
        (await c.text()).includes(
          `! Could not prepare the prompt: grows.png is ${size}, over the limit for images and audio (1000 B, option media.max_bytes): not sent (taken out of the prompt's context)`,
        ),
      "the second refusal",
    );
    await c.t.waitFor(async () => (await c.promptLines()).join("\n") === "and this", "the text back");
    expect(await winbar(c)).toBe("");
    expect(received(c.t.dir, "session/prompt")).toEqual([]);
  });

  it("an agent's image (message and tool call) is one line; gx opens a private temp file with its exact bytes, gS saves it (asking before overwriting); the temp folder goes with the chat", async () => {
    const image = png(6, 5, 9);
    const shot = png(3, 3, 4);
    const c = await startChat(bin, {
      turns: [
        [
          { text: "Here it is:\n" },
          {
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "image", mimeType: "image/png", data: image.toString("base64") },
            },
          },
          { text: "and a screenshot." },
          {
            update: {
              sessionUpdate: "tool_call",
              toolCallId: "shot",
              title: "Screenshot",
              kind: "other",
              status: "completed",
              content: [
                { type: "content", content: { type: "text", text: "took it" } },
                { type: "content", content: { type: "image", mimeType: "image/png", data: shot.toString("base64") } },
              ],
            },
          },
        ],
      ],
    });
    await c.ready();
    await recordNotes(c.t);
    await recordOpens(c);
    await sendAndWait(c, "show me");
    const text = await c.text();
    expect(text).toContain(
      `Here it is:\n\n\n[image] image/png · ${image.length} B  (gx: open · gS: save)\n\nand a screenshot.`,
    );
    expect(text).toContain(
      `● done · other · Screenshot\n  took it\n  [image] image/png · ${shot.length} B  (gx: open · gS: save)`,
    );
    expect(text).not.toContain(image.toString("base64").slice(0, 24));
    expect(text).not.toContain(shot.toString("base64").slice(0, 24));
    // gx on the message's image.
    await pressOn(c, await rowOf(c, /^\[image\] image\/png/), "gx");
    const opened = await c.t.waitFor(async () => (await c.t.lua<string[]>("return _G.opened"))[0], "vim.ui.open");
    expect(opened).toMatch(/\/acpchat-media-[^/]+\/\d+-image\.png$/);
    expect(readFileSync(opened).equals(image)).toBe(true);
    // Opened again (after a viewer changed it): the same file, the exact bytes again.
    writeFileSync(opened, "changed by a viewer");
    await pressOn(c, await rowOf(c, /^\[image\] image\/png/), "gx");
    await c.t.waitFor(async () => (await c.t.lua<string[]>("return _G.opened")).length === 2, "vim.ui.open again");
    expect((await c.t.lua<string[]>("return _G.opened"))[1]).toBe(opened);
    expect(readFileSync(opened).equals(image)).toBe(true);
    // gx on the tool call's image.
    await pressOn(c, await rowOf(c, /^ {2}\[image\] image\/png/), "gx");
    const opened2 = await c.t.waitFor(
      async () => (await c.t.lua<string[]>("return _G.opened"))[2],
      "vim.ui.open of the tool call's image",
    );
    expect(opened2).not.toBe(opened);
    expect(readFileSync(opened2).equals(shot)).toBe(true);
    // gs: the path asked with vim.ui.input (the default names the type), then an existing file is only replaced after a yes.
    // A relative path is relative to the chat's folder (Neovim's own cwd is elsewhere).
    await c.t.nvim.command("cd /");
    const target = join(c.t.dir, "work", "saved.png");
    await c.t.lua(
      "_G.inputs = {}; vim.ui.input = function(o, cb) table.insert(_G.inputs, o.default); cb('saved.png') end",
    );
    await pressOn(c, await rowOf(c, /^ {2}\[image\] image\/png/), "gS");
    await c.t.waitFor(async () => existsSync(target), "the saved file");
    expect(readFileSync(target).equals(shot)).toBe(true);
    expect(await c.t.lua<string[]>("return _G.inputs")).toEqual([join(c.t.dir, "work", "image.png")]);
    await c.t.lua(
      "_G.asked = {}; vim.ui.select = function(items, o, cb) table.insert(_G.asked, o.prompt); cb(_G.choice) end; _G.choice = 'Cancel'",
    );
    await pressOn(c, await rowOf(c, /^\[image\] image\/png/), "gS");
    await c.t.waitFor(async () => (await c.t.lua<string[]>("return _G.asked")).length === 1, "the overwrite question");
    expect((await c.t.lua<string[]>("return _G.asked"))[0]).toBe(`${target} exists. Overwrite it?`);
    await c.t.waitFor(async () => (await c.notes()).some((n) => n.msg === "acpchat: not saved"), "not saved");
    expect(readFileSync(target).equals(shot)).toBe(true);
    await c.t.lua("_G.choice = 'Overwrite'");
    await pressOn(c, await rowOf(c, /^\[image\] image\/png/), "gS");
    await c.t.waitFor(async () => readFileSync(target).equals(image), "the file replaced by the message's image");
    // gx where there is no image: a warning, nothing opened.
    await pressOn(c, await rowOf(c, /^and a screenshot/), "gx");
    await c.t.waitFor(
      async () => (await c.notes()).some((n) => n.msg === "acpchat: no image or audio under the cursor"),
      "the warning",
    );
    expect((await c.t.lua<string[]>("return _G.opened")).length).toBe(3);
    // The private folder goes when the chat closes.
    await c.t.nvim.command("AcpChatClose");
    await c.t.waitFor(async () => !existsSync(dirname(opened)), "the temp folder to be removed");
  });

  it(":AcpChatAdd + attaches the clipboard's image through xclip (found on $PATH); without a clipboard tool it says what is needed", async () => {
    ownNvim(); // Neovim quits in it
    const image = png(5, 5, 3);
    // A stand-in for xclip, as the plugin calls it: TARGETS, then the image's bytes.
    const tools = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-xclip-")));
    writeFileSync(join(tools, "clip.png"), image);
    writeFileSync(
      join(tools, "xclip"),
      `#!/bin/sh\necho "$@" >> ${tools}/xclip.log\ncase "$*" in\n  *TARGETS*) printf 'TARGETS\\ntext/plain\\nimage/png\\n' ;;\n  *image/png*) cat ${tools}/clip.png ;;\nesac\n`,
    );
    chmodSync(join(tools, "xclip"), 0o755);
    try {
      // No display, no tool: a clear message, nothing attached.
      const bare = await startChat(bin, {}, {}, { env: { DISPLAY: "", WAYLAND_DISPLAY: "" } });
      await bare.ready();
      await recordNotes(bare.t);
      await bare.t.nvim.command("AcpChatAdd +");
      await bare.t.waitFor(async () => (await bare.notes()).length >= 1, "the message");
      expect((await bare.notes())[0]!.msg).toMatch(
        /^acpchat: reading an image from the clipboard needs wl-paste \(Wayland, package wl-clipboard\) or xclip \(X11\) and a display; none was found/,
      );
      expect(await winbar(bare)).toBe("");

      const c = await startChat(
        bin,
        { record: "$DIR/record.jsonl", agentCapabilities: { promptCapabilities: { image: true } } },
        {},
        { env: { DISPLAY: ":42", WAYLAND_DISPLAY: "", PATH: `${tools}:${process.env.PATH ?? ""}` } },
      );
      await c.ready();
      await c.t.nvim.command("AcpChatAdd +");
      await c.t.waitFor(
        async () => (await winbar(c)).includes(`clipboard.png (image/png, ${image.length} B)`),
        "the clipboard image in the context",
      );
      expect(readFileSync(join(tools, "xclip.log"), "utf8")).toBe(
        "-selection clipboard -t TARGETS -o\n-selection clipboard -t image/png -o\n",
      );
      const saved = await c.t.lua<string>("return require('acpchat.chat.registry').get(...).context[1].path", [c.id]);
      expect(readFileSync(saved).equals(image)).toBe(true);
      await sendAndWait(c, "what is this?");
      const prompt = (received(c.t.dir, "session/prompt")[0] as { prompt: Record<string, unknown>[] }).prompt;
      expect(prompt).toContainEqual(
        expect.objectContaining({ type: "image", data: image.toString("base64"), mimeType: "image/png" }),
      );
      expect(await c.text()).toContain(`> [image] 1-clipboard.png · image/png · ${image.length} B`);
      // Neovim quits (:qa right after VimLeavePre's shutdown): the chat's private folder goes too.
      await c.t.quit();
      await c.t.waitFor(async () => !existsSync(dirname(saved)), "the private folder to be removed");
    } finally {
      rmSync(tools, { recursive: true, force: true });
    }
  });
});

/** A script on $PATH in a fresh folder; returns the folder. */
function tool(name: string, body: string): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-tool-")));
  writeFileSync(join(d, name), `#!/bin/sh\n${body}\n`);
  chmodSync(join(d, name), 0o755);
  return d;
}

describe.each(bins)("Neovim $version: hostile agents and careless users", (bin) => {
  it("gx leaves the viewer running (vim.ui.open's real xdg-open): an audio player is not killed after 2 s; a viewer that fails is reported with the file", async () => {
    ownNvim(); // leaves a viewer running
    const tools = tool(
      "xdg-open",
      `echo "start $1" >> "$(dirname "$0")/log"; case "$1" in *.wav) sleep 3; echo "done $1" >> "$(dirname "$0")/log" ;; *) exit 3 ;; esac`,
    );
    try {
      const audio = wav(100);
      const image = png(2, 2);
      const c = await startChat(
        bin,
        {
          turns: [
            [
              {
                update: {
                  sessionUpdate: "agent_message_chunk",
                  content: { type: "audio", mimeType: "audio/wav", data: audio.toString("base64") },
                },
              },
              { text: "\nand\n" },
              {
                update: {
                  sessionUpdate: "agent_message_chunk",
                  content: { type: "image", mimeType: "image/png", data: image.toString("base64") },
                },
              },
            ],
          ],
        },
        {},
        { env: { PATH: `${tools}:${process.env.PATH ?? ""}`, DISPLAY: ":42" } },
      );
      await c.ready();
      await recordNotes(c.t);
      await sendAndWait(c, "play it");
      await pressOn(c, await rowOf(c, /^\[audio\] audio\/wav/), "gx");
      await c.t.waitFor(
        async () => existsSync(join(tools, "log")) && readFileSync(join(tools, "log"), "utf8").includes("done "),
        "the player to play to its end",
        8000,
      );
      expect(readFileSync(join(tools, "log"), "utf8")).toMatch(/^start \S+\.wav\ndone \S+\.wav\n$/);
      expect(await c.notes()).toEqual([]);
      await pressOn(c, await rowOf(c, /^\[image\] image\/png/), "gx");
      await c.t.waitFor(
        async () => (await c.notes()).some((n) => /the viewer failed \(exit 3\); the file is \/\S+\.png$/.test(n.msg)),
        "the viewer's failure",
        6000,
      );
    } finally {
      rmSync(tools, { recursive: true, force: true });
    }
  });

  it("an agent's mimeType does not choose the program that opens it: text/html, a .desktop file or a script open as .bin", async () => {
    const page = Buffer.from("<script>fetch('file:///etc/passwd')</script>");
    const mimes = ["text/html", "application/x-desktop", "application/x-sh", "image/svg+xml", "IMAGE/HTML"];
    const c = await startChat(bin, {
      turns: [
        mimes.flatMap((m) => [
          {
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "image", mimeType: m, data: page.toString("base64") },
            },
          },
          { text: "\nx\n" },
        ]),
      ],
    });
    await c.ready();
    await recordOpens(c);
    await sendAndWait(c, "show me");
    const lines = await c.lines();
    const rows = lines.flatMap((l, i) => (l.startsWith("[image] ") ? [i] : []));
    expect(rows.length).toBe(mimes.length);
    for (const [n, row] of rows.entries()) {
      await pressOn(c, row, "gx");
      await c.t.waitFor(async () => (await c.t.lua<string[]>("return _G.opened")).length === n + 1, `vim.ui.open ${n}`);
    }
    const opened = await c.t.lua<string[]>("return _G.opened");
    for (const p of opened) expect(p).toMatch(/\/\d+-image\.bin$/);
    expect(readFileSync(opened[0]!).equals(page)).toBe(true);
  });

  it("gS takes the name as typed: #, % and * are not Vim's specials or globs; ~ and $VAR still expand", async () => {
    const image = png(3, 2);
    const c = await startChat(bin, {
      turns: [
        [
          {
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "image", mimeType: "image/png", data: image.toString("base64") },
            },
          },
        ],
      ],
    });
    await c.ready();
    await recordNotes(c.t);
    await sendAndWait(c, "show me");
    const work = join(c.t.dir, "work");
    writeFileSync(join(work, "a1.png"), "one");
    writeFileSync(join(work, "a2.png"), "two");
    await c.t.nvim.command(`cd ${work}`);
    const names = ["#1.png", "%.png", "a*.png", "$ACPCHAT_T/env.png"];
    await c.t.lua("vim.env.ACPCHAT_T = ...", [join(c.t.dir, "work")]);
    for (const name of names) {
      await c.t.lua("_G.save_as = ...; vim.ui.input = function(o, cb) cb(_G.save_as) end", [name]);
      await pressOn(c, await rowOf(c, /^\[image\] image\/png/), "gS");
      await c.t.waitFor(async () => (await c.notes()).length > names.indexOf(name), `the answer for ${name}`);
    }
    const notes = (await c.notes()).map((n) => n.msg);
    expect(notes).toEqual([
      "acpchat: saved #1.png (27 B)".replace("27", String(image.length)),
      `acpchat: saved %.png (${image.length} B)`,
      `acpchat: saved a*.png (${image.length} B)`,
      `acpchat: saved env.png (${image.length} B)`,
    ]);
    for (const f of ["#1.png", "%.png", "a*.png", "env.png"])
      expect(readFileSync(join(work, f)).equals(image)).toBe(true);
    expect(readFileSync(join(work, "a1.png"), "utf8")).toBe("one");
  });

  it("gx pressed twice in a row opens one file, twice; the user's own cat.png opens as …-cat.png; gS into a folder saves the clip in it under the name offered", async () => {
    const image = png(3, 3, 7);
    const c = await startChat(bin, {
      agentCapabilities: { promptCapabilities: { image: true } },
      turns: [
        [
          {
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "image", mimeType: "image/png", data: image.toString("base64") },
            },
          },
        ],
      ],
    });
    writeFileSync(join(c.t.dir, "work", "cat.png"), image);
    mkdirSync(join(c.t.dir, "work", "pics"));
    await c.ready();
    await recordNotes(c.t);
    await recordOpens(c);
    await sendAndWait(c, "look @cat.png");
    await pressOn(c, await rowOf(c, /^\[image\] image\/png/), "gxgx");
    await c.t.waitFor(async () => (await c.t.lua<string[]>("return _G.opened")).length === 2, "two opens");
    const [a, b] = await c.t.lua<string[]>("return _G.opened");
    expect(b).toBe(a);
    expect(readdirSync(dirname(a!))).toEqual([a!.split("/").pop()]);
    await pressOn(c, await rowOf(c, /^> \[image\] cat\.png/), "gx");
    await c.t.waitFor(
      async () => (await c.t.lua<string[]>("return _G.opened")).length === 3,
      "the user's image opened",
    );
    expect((await c.t.lua<string[]>("return _G.opened"))[2]).toMatch(/\/\d+-cat\.png$/);
    await c.t.lua("_G.save_as = ...; vim.ui.input = function(o, cb) cb(_G.save_as) end", ["pics/"]);
    await pressOn(c, await rowOf(c, /^> \[image\] cat\.png/), "gS");
    await c.t.waitFor(async () => (await c.notes()).length >= 1, "the answer");
    expect((await c.notes()).map((n) => n.msg)).toEqual([`acpchat: saved pics/cat.png (${image.length} B)`]);
    expect(readFileSync(join(c.t.dir, "work", "pics", "cat.png")).equals(image)).toBe(true);
    // A folder that is not there: said so, not saved as a file named "shots".
    await c.t.lua("_G.save_as = 'shots/'");
    await pressOn(c, await rowOf(c, /^> \[image\] cat\.png/), "gS");
    await c.t.waitFor(async () => (await c.notes()).length >= 2, "the second answer");
    expect((await c.notes())[1]).toEqual({ level: 4, msg: "acpchat: not saved: there is no folder shots/" });
    expect(existsSync(join(c.t.dir, "work", "shots"))).toBe(false);
  });

  it("after the agent crashed and :AcpChat restarted it (resumed: the transcript stays), gx on an image from before opens that image, not another", async () => {
    const before = png(4, 4, 1);
    const after = png(5, 5, 2);
    const img = (b: Buffer) => ({
      update: {
        sessionUpdate: "agent_message_chunk",
        content: { type: "image", mimeType: "image/png", data: b.toString("base64") },
      },
    });
    const c = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
      turns: [
        [img(before), { text: "\nfirst" }],
        [{ text: "partial" }, { sleep: 50 }, { exit: 3 }],
      ],
      byText: { again: [img(after), { text: "\nsecond" }] },
    });
    await c.ready();
    await recordNotes(c.t);
    await recordOpens(c);
    await sendAndWait(c, "one");
    await sendAndWait(c, "two");
    await c.waitState("crashed");
    await c.t.nvim.command("AcpChat");
    await c.ready();
    await sendAndWait(c, "again");
    await recordNotes(c.t); // the restart's own messages are not the point
    const rows = (await c.lines()).flatMap((l, i) => (l.startsWith("[image] image/png") ? [i] : []));
    expect(rows.length).toBe(2);
    await pressOn(c, rows[0]!, "gx");
    await c.t.waitFor(
      async () => (await c.t.lua<string[]>("return _G.opened")).length === 1 || (await c.notes()).length > 0,
      "an answer",
    );
    expect(await c.notes()).toEqual([]);
    const first = (await c.t.lua<string[]>("return _G.opened"))[0]!;
    expect(readFileSync(first).equals(before)).toBe(true);
    await pressOn(c, rows[1]!, "gx");
    await c.t.waitFor(async () => (await c.t.lua<string[]>("return _G.opened")).length === 2, "the second");
    expect(readFileSync((await c.t.lua<string[]>("return _G.opened"))[1]!).equals(after)).toBe(true);
  });

  it("block ids are never reused across restarts: the blocks drawn before two restarts keep their ids and marks, the new ones have others", async () => {
    const c = await startChat(bin, {
      store: "$DIR/store.json",
      agentCapabilities: { loadSession: true, sessionCapabilities: { resume: {} } },
      turns: [[{ text: "first" }], [{ text: "partial" }, { sleep: 50 }, { exit: 3 }]],
      byText: { again: [{ text: "second" }], crash: [{ sleep: 50 }, { exit: 3 }], last: [{ text: "third" }] },
    });
    const order = () => c.t.lua<string[]>("return require('acpchat.chat.registry').get(...).render.order", [c.id]);
    await c.ready();
    await sendAndWait(c, "one");
    await sendAndWait(c, "two");
    await c.waitState("crashed");
    const first = await order();
    await c.t.nvim.command("AcpChat");
    await c.ready();
    await sendAndWait(c, "again");
    await sendAndWait(c, "crash");
    await c.waitState("crashed");
    const second = await order();
    await c.t.nvim.command("AcpChat");
    await c.ready();
    await sendAndWait(c, "last");
    const third = await order();
    // Each incarnation's blocks follow the ones before, which stay as they were drawn.
    expect(second.slice(0, first.length)).toEqual(first);
    expect(third.slice(0, second.length)).toEqual(second);
    expect(second.length).toBeGreaterThan(first.length);
    expect(third.length).toBeGreaterThan(second.length);
    // No id recurs: not within the transcript, not across the restarts.
    expect(new Set(third).size).toBe(third.length);
    // Every block's mark still stands at its own row, in the order of the blocks.
    const rows = await c.t.lua<number[]>(
      "local ch, b = require('acpchat.chat.registry').get(...), require('acpchat.transcript.blocks'); return vim.tbl_map(function(id) return b.start(ch.buf, ch.render.blocks[id]) end, ch.render.order)",
      [c.id],
    );
    expect(rows.every((r, i) => i === 0 || r > rows[i - 1]!)).toBe(true);
    const text = await c.text();
    expect(text).toContain("first");
    expect(text).toContain("second");
    expect(text).toContain("third");
  });

  it("an agent's clip too large for one message (over the 16 MiB line limit) is not dropped in silence: the transcript says so, and the chat goes on", async () => {
    const t = await nvim(bin);
    await t.lua("require('acpchat').setup(...)", [{ agents: { fake: fakeAgent(t, {}) }, default_agent: "fake" }]);
    const big = Buffer.alloc(13 * 1024 * 1024, 7).toString("base64"); // 17.3 MiB of base64
    await setScenario(t, {
      turns: [
        [
          { text: "a big one:\n" },
          {
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "audio", mimeType: "audio/wav", data: big },
            },
          },
          { text: "\nthe end" },
        ],
      ],
    });
    const c = await openChat(t);
    await c.ready();
    await sendAndWait(c, "play", 20000);
    const text = await c.text();
    expect(text).toContain("the end");
    expect(text).toMatch(
      /! The agent sent a message (?:of 17\.\d MB, )?over the limit of 16\.0 MB for one message: it was dropped \(an image or audio clip this large cannot be shown\)\./,
    );
    expect(await c.state()).toBe("ready");
  });

  it("an endless clipboard (its owner streams without end) is cut at the limit with the limit's message, at once", async () => {
    const tools = tool(
      "xclip",
      `case "$*" in *TARGETS*) printf 'image/png\\n' ;; *image/png*) exec cat /dev/zero ;; esac`,
    );
    try {
      const c = await startChat(
        bin,
        {},
        { media: { max_bytes: 1000 } },
        { env: { DISPLAY: ":42", WAYLAND_DISPLAY: "", PATH: `${tools}:${process.env.PATH ?? ""}` } },
      );
      await c.ready();
      await recordNotes(c.t);
      const t0 = Date.now();
      await c.t.nvim.command("AcpChatAdd +");
      await c.t.waitFor(async () => (await c.notes()).length >= 1, "the refusal", 8000);
      expect((await c.notes())[0]).toEqual({
        level: 4,
        msg: "acpchat: the clipboard's image/png is over the limit for images and audio (1000 B, option media.max_bytes): not attached",
      });
      expect(Date.now() - t0).toBeLessThan(2000);
      expect(await winbar(c)).toBe("");
    } finally {
      rmSync(tools, { recursive: true, force: true });
    }
  });

  it("the chat closed while the clipboard is read or a clip is opened: no media folder is left behind, no error", async () => {
    const image = png(4, 4);
    const tmp = realpathSync(mkdtempSync(join(tmpdir(), "acpchat-tmp-")));
    const tools = tool(
      "xclip",
      `case "$*" in *TARGETS*) printf 'image/png\\n' ;; *image/png*) sleep 1; cat ${JSON.stringify(join(tmpdir(), "never"))} 2>/dev/null || printf 'PNGDATA' ;; esac`,
    );
    try {
      const c = await startChat(
        bin,
        {
          turns: [
            [
              {
                update: {
                  sessionUpdate: "agent_message_chunk",
                  content: { type: "image", mimeType: "image/png", data: image.toString("base64") },
                },
              },
            ],
          ],
        },
        {},
        { env: { TMPDIR: tmp, DISPLAY: ":42", WAYLAND_DISPLAY: "", PATH: `${tools}:${process.env.PATH ?? ""}` } },
      );
      await c.ready();
      await recordNotes(c.t);
      await recordOpens(c);
      await sendAndWait(c, "show me");
      const row = await rowOf(c, /^\[image\] image\/png/);
      await c.focus();
      await c.t.lua("vim.api.nvim_win_set_cursor(0, { ..., 0 })", [row + 1]);
      // gx and the close in one go: the open is under way when the close arrives.
      await c.t.lua("vim.api.nvim_feedkeys('gx', 'mx', false); vim.cmd('AcpChatAdd +'); vim.cmd('AcpChatClose')");
      await new Promise((r) => setTimeout(r, 2500));
      expect(readdirSync(tmp).filter((f) => f.startsWith("acpchat-media-"))).toEqual([]);
      expect((await c.notes()).filter((n) => n.level >= 3)).toEqual([]);
      expect(
        await c.t.lua<string[]>(
          "return vim.tbl_filter(function(m) return m:match('E%d+') ~= nil end, vim.split(vim.fn.execute('messages'), '\\n'))",
        ),
      ).toEqual([]);
    } finally {
      rmSync(tools, { recursive: true, force: true });
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
