/** Accepted means on disk (src/workspace/write-plan.ts): which buffer writes of the "review" mode are saved. */
import { describe, expect, it } from "vitest";
import type { DiskSnapshot } from "../../src/workspace/disk.js";
import { hashBytes } from "../../src/workspace/disk.js";
import { decodeBytes } from "../../src/workspace/text-codec.js";
import { commitFor, decideWrite, type BufferState, type WriteMode } from "../../src/workspace/write-plan.js";

function disk(text: string | undefined): DiskSnapshot {
  if (text === undefined) return { exists: false, fingerprint: { exists: false } };
  const b = Buffer.from(text);
  const d = decodeBytes(b);
  if (!d.ok) throw new Error("not text");
  return {
    exists: true,
    size: b.length,
    mode: 0o644,
    nlink: 1,
    readonly: false,
    fingerprint: { exists: true, hash: hashBytes(b) },
    file: d.file,
  };
}

const buffer = (lines: string[], more: Partial<BufferState> = {}): BufferState => ({
  tick: 5,
  modified: false,
  lines,
  empty: lines.length === 0,
  eol: true,
  fixeol: true,
  binary: false,
  fileformat: "unix",
  fileencoding: "utf-8",
  bomb: false,
  readonly: false,
  modifiable: true,
  ...more,
});

/** Whether the accepted write (every hunk) is saved, and against which disk. */
function saved(mode: WriteMode, b: BufferState, d: DiskSnapshot | undefined) {
  const plan = decideWrite({ path: "/p/f", content: "a\nB\n", current: { kind: "buffer", buffer: b, disk: d }, mode });
  if (plan.action !== "review" && plan.action !== "commit") throw new Error(plan.action);
  const c = commitFor(
    plan.prepared,
    plan.prepared.diff.hunks.map((_, i) => i),
  );
  return c.to === "buffer" ? { save: c.save, expectedDisk: c.expectedDisk } : undefined;
}

describe("review mode saves what the user accepts", () => {
  it("a buffer without the user's edits whose file is what it read: saved, only onto that file", () => {
    expect(saved("review", buffer(["a", "b"]), disk("a\nb\n"))).toEqual({
      save: true,
      expectedDisk: disk("a\nb\n").fingerprint,
    });
    // A buffer of a file not written yet: saving creates it.
    expect(saved("review", buffer([]), disk(undefined))).toMatchObject({ save: true });
  });

  it("not saved: the user's unsaved edits, a file changed behind the buffer, an unknown disk, write = buffer", () => {
    expect(saved("review", buffer(["a", "mine"], { modified: true }), disk("a\nb\n"))).toMatchObject({ save: false });
    expect(saved("review", buffer(["a", "b"]), disk("a\nb\nfrom someone else\n"))).toMatchObject({ save: false });
    expect(saved("review", buffer(["a", "b"]), undefined)).toMatchObject({ save: false });
    expect(saved("buffer", buffer(["a", "b"]), disk("a\nb\n"))).toMatchObject({ save: false });
    expect(saved("save", buffer(["a", "b"]), disk("a\nb\n"))).toMatchObject({ save: true });
  });
});
