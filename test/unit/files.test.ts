import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  renameSync,
  symlinkSync,
  writeFileSync,
  readdirSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFileWindow, sliceLines, writeFileAtomic } from "../../src/workspace/files.js";
import { PathBoundary } from "../../src/workspace/path-boundary.js";

const root = () => realpathSync(mkdtempSync(join(tmpdir(), "acpchat-files-")));

describe("files on disk", () => {
  it("sliceLines: line is 1-based, limit counts lines", () => {
    expect(sliceLines("a\nb\nc\nd", 2, 2)).toBe("b\nc");
    expect(sliceLines("a\nb\nc", 3)).toBe("c");
    expect(sliceLines("a\nb", null, 1)).toBe("a");
    expect(sliceLines("a\nb", 9, 1)).toBe("");
  });

  it("refuses directories, binaries and files over the limit with clear errors", async () => {
    const d = root();
    writeFileSync(join(d, "bin"), Buffer.from([1, 0, 2]));
    writeFileSync(join(d, "big"), "x".repeat(100));
    await expect(readFileWindow(d)).rejects.toThrow(/is a directory/);
    await expect(readFileWindow(join(d, "bin"))).rejects.toThrow(/looks binary/);
    await expect(readFileWindow(join(d, "big"), null, null, 10)).rejects.toThrow(
      /100 bytes, over the 10-byte read limit/,
    );
    await expect(readFileWindow(join(d, "none"))).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining("Resource not found"),
    });
  });

  it("writes atomically, keeping the file's mode, creating parents, leaving no temp file", async () => {
    const d = root();
    writeFileSync(join(d, "f"), "old", { mode: 0o640 });
    await writeFileAtomic(join(d, "f"), "new");
    await writeFileAtomic(join(d, "a", "b", "g"), "deep");
    expect(readFileSync(join(d, "f"), "utf8")).toBe("new");
    expect(readFileSync(join(d, "a/b/g"), "utf8")).toBe("deep");
    expect(readdirSync(d).sort()).toEqual(["a", "f"]);
  });

  it("a folder swapped for a symlink after the boundary check is caught, for reads and writes", async () => {
    const d = root();
    const work = join(d, "work");
    const outside = join(d, "outside");
    mkdirSync(join(work, "sub"), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(work, "sub", "f.txt"), "inside");
    writeFileSync(join(outside, "f.txt"), "SECRET");
    const boundary = new PathBoundary(work);
    const readPath = boundary.check(join(work, "sub", "f.txt"), "read");
    const writePath = boundary.check(join(work, "sub", "new.txt"), "write");
    // The swap, between the check and the operation.
    renameSync(join(work, "sub"), join(work, "old-sub"));
    symlinkSync(outside, join(work, "sub"));
    await expect(readFileWindow(readPath)).rejects.toThrow(/changed \(a symlink was swapped in\)/);
    await expect(writeFileAtomic(writePath, "PWNED")).rejects.toThrow(/changed \(a symlink was swapped in\)/);
    expect(readdirSync(outside)).toEqual(["f.txt"]);
    expect(readFileSync(join(outside, "f.txt"), "utf8")).toBe("SECRET");
  });
});
