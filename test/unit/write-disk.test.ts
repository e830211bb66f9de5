/** Disk writes that keep what the file is: mode, hard links, symlinks; refused when it changed (src/workspace/disk.ts). */
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diskSnapshot, writeIfUnchanged } from "../../src/workspace/disk.js";
import { decideWrite } from "../../src/workspace/write-plan.js";

const root = () => realpathSync(mkdtempSync(join(tmpdir(), "acpchat-disk-")));

async function plannedWrite(path: string, content: string) {
  const disk = await diskSnapshot(path);
  const plan = decideWrite({ path, content, current: { kind: "disk", disk }, mode: "buffer" });
  if (plan.action !== "commit" || plan.commit.to !== "disk") return plan;
  return writeIfUnchanged(path, plan.commit.bytes, plan.commit.expected);
}

describe("disk writes", () => {
  it("keep the mode, leave no temporary file, and create parents for new files", async () => {
    const d = root();
    writeFileSync(join(d, "x.sh"), "#!/bin/sh\necho 1\n", { mode: 0o751 });
    chmodSync(join(d, "x.sh"), 0o751);
    expect(await plannedWrite(join(d, "x.sh"), "#!/bin/sh\necho 2\n")).toEqual({ result: "written", how: "replaced" });
    expect(statSync(join(d, "x.sh")).mode & 0o7777).toBe(0o751);
    expect(readFileSync(join(d, "x.sh"), "utf8")).toBe("#!/bin/sh\necho 2\n");
    expect(await plannedWrite(join(d, "a/b/new.txt"), "n\n")).toEqual({ result: "written", how: "created" });
    expect(readdirSync(d).sort()).toEqual(["a", "x.sh"]);
  });

  it("a hard link to a file outside loses its name here: the outside file keeps its text", async () => {
    const d = root();
    const outside = root();
    writeFileSync(join(outside, "bashrc"), "user's\n");
    linkSync(join(outside, "bashrc"), join(d, "notes.txt"));
    expect(await plannedWrite(join(d, "notes.txt"), "agent\n")).toEqual({ result: "written", how: "replaced" });
    expect(readFileSync(join(outside, "bashrc"), "utf8")).toBe("user's\n");
    expect(readFileSync(join(d, "notes.txt"), "utf8")).toBe("agent\n");
    expect(statSync(join(d, "notes.txt")).nlink).toBe(1);
    expect(readdirSync(d)).toEqual(["notes.txt"]);
  });

  it("a symlink keeps pointing at the file (the boundary resolves the path; the target is written)", async () => {
    const d = root();
    writeFileSync(join(d, "target"), "old\n");
    symlinkSync(join(d, "target"), join(d, "link"));
    expect(await plannedWrite(realpathSync(join(d, "link")), "new\n")).toMatchObject({ result: "written" });
    expect(readFileSync(join(d, "link"), "utf8")).toBe("new\n");
  });

  it("read-only, binary and oversized files are refused and left untouched", async () => {
    const d = root();
    writeFileSync(join(d, "ro"), "keep\n");
    chmodSync(join(d, "ro"), 0o444);
    expect(await plannedWrite(join(d, "ro"), "x\n")).toMatchObject({
      action: "refuse",
      message: expect.stringContaining("read-only"),
    });
    expect(readFileSync(join(d, "ro"), "utf8")).toBe("keep\n");
    const bin = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2]);
    writeFileSync(join(d, "bin"), bin);
    expect(await plannedWrite(join(d, "bin"), "x\n")).toMatchObject({
      action: "refuse",
      message: expect.stringContaining("binary"),
    });
    expect(readFileSync(join(d, "bin")).equals(bin)).toBe(true);
    writeFileSync(join(d, "big"), "y".repeat(100));
    const disk = await diskSnapshot(join(d, "big"), 10);
    expect(
      decideWrite({ path: join(d, "big"), content: "x", current: { kind: "disk", disk }, mode: "buffer" }),
    ).toMatchObject({ action: "refuse", message: expect.stringContaining("over the 10-byte read limit") });
    expect(readFileSync(join(d, "big"), "utf8")).toBe("y".repeat(100));
  });

  it("nothing is written when the file changed since the decision (or appeared, for a new file)", async () => {
    const d = root();
    const f = join(d, "f");
    writeFileSync(f, "one\n");
    const before = await diskSnapshot(f);
    writeFileSync(f, "someone else\n");
    expect(await writeIfUnchanged(f, Buffer.from("agent\n"), before.fingerprint)).toEqual({ result: "changed" });
    expect(readFileSync(f, "utf8")).toBe("someone else\n");
    const g = join(d, "g");
    const missing = await diskSnapshot(g);
    writeFileSync(g, "created meanwhile\n");
    expect(await writeIfUnchanged(g, Buffer.from("agent\n"), missing.fingerprint)).toEqual({ result: "changed" });
    expect(readFileSync(g, "utf8")).toBe("created meanwhile\n");
  });

  it("a file that grows past the limit after its stat is not read to its end (/proc: size 0, many bytes)", async () => {
    const snap = await diskSnapshot(`/proc/${process.pid}/maps`, 10);
    expect(snap).toMatchObject({ exists: true, refused: { why: "too-large" } });
  });

  it("a folder flipped to a link to outside, again and again, while new files are written: nothing lands outside", async () => {
    const d = root();
    const outside = root();
    mkdirSync(join(d, "sub"));
    // The agent's daemon, as fast as renames go: sub is a link to outside half of the time.
    symlinkSync(outside, join(d, "sub.link"));
    // (A write that makes "sub" while it is away stops a rename for a moment, not the loop.)
    const flip = `const fs = require("fs"); process.chdir(process.argv[1]);
      const mv = (a, b) => { try { fs.renameSync(a, b); } catch {} };
      for (;;) { mv("sub", "sub.real"); mv("sub.link", "sub"); mv("sub", "sub.link"); mv("sub.real", "sub"); }`;
    const flipper = spawn(process.execPath, ["-e", flip, d], { stdio: "ignore" });
    try {
      await new Promise((r) => setTimeout(r, 50));
      const until = Date.now() + 6000;
      for (let i = 0; i < 1000 && Date.now() < until; i++) {
        await writeIfUnchanged(join(d, "sub", `n${i}`), Buffer.from(`${i}\n`), { exists: false }).catch(
          () => undefined,
        );
      }
    } finally {
      const exited = new Promise((r) => flipper.once("exit", r));
      flipper.kill("SIGKILL");
      await exited;
    }
    expect(readdirSync(outside)).toEqual([]);
  }, 60_000);

  it("round trips Latin-1, CP1252, UTF-16 with BOM, UTF-8 with BOM, CRLF and no final newline byte for byte", async () => {
    const d = root();
    const cases: [string, Buffer, string, Buffer][] = [
      [
        "latin1",
        Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x81, 0x0a]),
        "café\n\u0081\nmore\n",
        Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x81, 0x0a, 0x6d, 0x6f, 0x72, 0x65, 0x0a]),
      ],
      ["cp1252", Buffer.from([0x93, 0x71, 0x94, 0x0a]), "“q” €\n", Buffer.from([0x93, 0x71, 0x94, 0x20, 0x80, 0x0a])],
      [
        "utf16",
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\r\nb\r\n", "utf16le")]),
        "a\nB\n",
        Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\r\nB\r\n", "utf16le")]),
      ],
      ["utf8bom", Buffer.from("\ufeffx\ny\n"), "x\nY\n", Buffer.from("\ufeffx\nY\n")],
      ["crlf", Buffer.from("a\r\nb\r\nc\r\n"), "a\nb\nC\n", Buffer.from("a\r\nb\r\nC\r\n")],
      ["noeol", Buffer.from("a\nb"), "a\nB", Buffer.from("a\nB")],
    ];
    for (const [name, before, content, after] of cases) {
      const f = join(d, name);
      writeFileSync(f, before);
      expect(await plannedWrite(f, content), name).toMatchObject({ result: "written" });
      expect(readFileSync(f).toString("hex"), name).toBe(after.toString("hex"));
    }
  });
});
