/** The one decision of what a write does (src/workspace/write-plan.ts): pure, so tested on plain data. */
import { describe, expect, it } from "vitest";
import type { DiskSnapshot } from "../../src/workspace/disk.js";
import { hashBytes } from "../../src/workspace/disk.js";
import { decodeBytes, encodeText, joinText } from "../../src/workspace/text-codec.js";
import {
  commitFor,
  decideSync,
  decideWrite,
  reviewQuestion,
  type BufferState,
  type WriteRequest,
} from "../../src/workspace/write-plan.js";
import { splitText } from "../../src/workspace/text-codec.js";
import { rebase } from "../../src/workspace/three-way.js";

function disk(
  bytes: Buffer | string | undefined,
  extra: Partial<{ mode: number; nlink: number; readonly: boolean }> = {},
): DiskSnapshot {
  if (bytes === undefined) return { exists: false, fingerprint: { exists: false } };
  const b = typeof bytes === "string" ? Buffer.from(bytes) : bytes;
  const d = decodeBytes(b);
  const base = {
    exists: true as const,
    size: b.length,
    mode: extra.mode ?? 0o644,
    nlink: extra.nlink ?? 1,
    readonly: extra.readonly ?? false,
    fingerprint: { exists: true, hash: hashBytes(b) },
  };
  return d.ok ? { ...base, file: d.file } : { ...base, refused: { why: "binary", message: `f ${d.message}` } };
}

function buffer(lines: string[], more: Partial<BufferState> = {}): BufferState {
  return {
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
  };
}

const req = (
  content: string,
  current: WriteRequest["current"],
  mode: WriteRequest["mode"] = "buffer",
  more: Partial<WriteRequest> = {},
): WriteRequest => ({ path: "/p/f", content, current, mode, ...more });

describe("decideWrite", () => {
  it("a loaded buffer gets line edits against its tick; its own format and encoding are kept", () => {
    const plan = decideWrite(
      req("a\nB\nc\n", { kind: "buffer", buffer: buffer(["a", "b", "c"], { fileformat: "dos" }) }),
    );
    expect(plan).toMatchObject({
      action: "commit",
      commit: { to: "buffer", tick: 5, edits: [{ start: 1, end: 2, lines: ["B"] }], save: false },
    });
    // An agent echoing CRLF into a dos buffer: the buffer never gets "\r" in its lines.
    const crlf = decideWrite(
      req("a\r\nB\r\nc\r\n", { kind: "buffer", buffer: buffer(["a", "b", "c"], { fileformat: "dos" }) }),
    );
    expect(crlf).toMatchObject({ action: "commit", commit: { edits: [{ start: 1, end: 2, lines: ["B"] }] } });
  });

  it("the same content again is nothing to do, not a conflict", () => {
    expect(decideWrite(req("a\nb\n", { kind: "buffer", buffer: buffer(["a", "b"], { modified: true }) }))).toEqual({
      action: "unchanged",
      where: "buffer",
    });
    expect(decideWrite(req("x\r\ny\r\n", { kind: "disk", disk: disk("x\r\ny\r\n") }, "review"))).toEqual({
      action: "unchanged",
      where: "disk",
    });
  });

  it("unsaved edits of the user's are reviewed (conflict); review mode reviews; only a per-hunk review of this very text approves", () => {
    const modified = { kind: "buffer" as const, buffer: buffer(["mine", "b"], { modified: true }) };
    expect(decideWrite(req("agent\nb\n", modified))).toMatchObject({ action: "review", reason: "conflict" });
    expect(decideWrite(req("agent\nb\n", { kind: "buffer", buffer: buffer(["a"]) }, "review"))).toMatchObject({
      action: "review",
      reason: "review",
    });
    expect(decideWrite(req("agent\nb\n", { kind: "disk", disk: disk(undefined) }, "review"))).toMatchObject({
      action: "review",
      reason: "review",
    });
    const mine = { lines: ["mine", "b"], eol: true };
    expect(decideWrite(req("agent\nb\n", modified, "review", { reviewedAgainst: mine }))).toMatchObject({
      action: "commit",
    });
    // Reviewed against other text (the user typed since, or the question showed no diff): reviewed again.
    const before = { lines: ["a", "b"], eol: true };
    for (const mode of ["review", "buffer", "save"] as const) {
      expect(decideWrite(req("agent\nb\n", modified, mode, { reviewedAgainst: before }))).toMatchObject({
        action: "review",
        reason: "conflict",
      });
      expect(decideWrite(req("agent\nb\n", modified, mode))).toMatchObject({ action: "review", reason: "conflict" });
    }
    expect(decideWrite(req("agent\nb\n", modified, "buffer", { refresh: true }))).toMatchObject({
      action: "review",
      reason: "refresh",
    });
  });

  it("a write over the user's unsaved edits goes on top of them, from what the agent knew; overlapping lines are a conflict", () => {
    const modified = {
      kind: "buffer" as const,
      buffer: buffer(["a", "b", "c", "MINE"], { modified: true }),
      disk: disk("a\nb\nc\n"),
    };
    // Built on the disk (the agent read it itself): its change only, the user's line stays.
    const merged = decideWrite(req("a\nB\nc\n", modified, "save"));
    expect(merged).toMatchObject({ action: "review", reason: "merged", prepared: { save: false } });
    if (merged.action !== "review") throw new Error("unreachable");
    expect(merged.prepared.next.lines).toEqual(["a", "B", "c", "MINE"]);
    expect(merged.prepared.diff.hunks).toHaveLength(1);
    // It read the buffer whole (its unsaved line included) and left that line out: its choice, shown as it is.
    const saw = { lines: ["a", "b", "c", "MINE"], eol: true };
    expect(decideWrite(req("a\nB\nc\n", modified, "buffer", { agentSaw: saw }))).toMatchObject({
      action: "review",
      reason: "conflict",
      prepared: { next: { lines: ["a", "B", "c"] } },
    });
    // It read part of the buffer: what it built on is unknown, shown as it is.
    expect(decideWrite(req("a\nB\nc\n", modified, "buffer", { agentSaw: null }))).toMatchObject({
      reason: "conflict",
    });
    // Its change touches the user's line: a conflict, shown as it is.
    expect(decideWrite(req("a\nb\nc\nAGENT\n", modified, "buffer"))).toMatchObject({
      reason: "conflict",
      prepared: { next: { lines: ["a", "b", "c", "AGENT"] } },
    });
    // Its change is already in the buffer (the user typed the same): nothing to do, said so.
    const same = { ...modified, buffer: buffer(["a", "B", "c", "MINE"], { modified: true }) };
    expect(decideWrite(req("a\nB\nc\n", same, "buffer"))).toEqual({ action: "unchanged", where: "buffer", kept: true });
    // A conflict in one place takes the agent's lines there only: the user's edit elsewhere stays.
    const two = { ...modified, buffer: buffer(["MINE1", "b", "c", "MINE"], { modified: true }) };
    const c = decideWrite(req("a\nb\nc\nAGENT\n", two, "buffer"));
    expect(c).toMatchObject({ action: "review", reason: "conflict" });
    if (c.action !== "review") throw new Error("unreachable");
    expect(c.prepared.next.lines).toEqual(["MINE1", "b", "c", "AGENT"]);
    // Cut down in a permission review of an older buffer: built on that text, put on top of the new one.
    const older = { lines: ["a", "b", "c"], eol: true };
    expect(
      decideWrite(req("a\nB\nc\n", modified, "buffer", { reviewedAgainst: older, agentSaw: older })),
    ).toMatchObject({ reason: "merged", prepared: { next: { lines: ["a", "B", "c", "MINE"] } } });
  });

  it("save: only a buffer without the user's edits is saved; a disk that changed behind the buffer is not overwritten", () => {
    expect(
      decideWrite(req("a\nB\n", { kind: "buffer", buffer: buffer(["a", "b"]), disk: disk("a\nb\n") }, "save")),
    ).toMatchObject({ action: "commit", commit: { save: true } });
    expect(
      decideWrite(
        req("a\nB\n", { kind: "buffer", buffer: buffer(["a", "b"]), disk: disk("a\nb\nsomeone else\n") }, "save"),
      ),
    ).toMatchObject({
      action: "refuse",
      message: expect.stringContaining("changed on disk since it was loaded"),
    });
    // A file without a final newline, loaded with 'fixeol': the buffer still is the disk.
    expect(
      decideWrite(
        req("a\nB\n", { kind: "buffer", buffer: buffer(["a", "b"], { eol: false }), disk: disk("a\nb") }, "save"),
      ),
    ).toMatchObject({ action: "commit" });
    const plan = decideWrite(
      req("a\nB\n", { kind: "buffer", buffer: buffer(["a", "b"], { modified: true }), disk: disk("a\nb\n") }, "save", {
        reviewedAgainst: { lines: ["a", "b"], eol: true },
      }),
    );
    expect(plan).toMatchObject({ action: "commit", commit: { save: false } });
  });

  it("refuses binary, oversized, read-only files and text their encoding cannot hold; never writes replacement characters", () => {
    expect(decideWrite(req("x", { kind: "disk", disk: disk(Buffer.from([0x7f, 0x45, 0, 1])) }))).toMatchObject({
      action: "refuse",
      message: expect.stringMatching(/binary.*not overwritten/),
    });
    const big: DiskSnapshot = {
      exists: true,
      size: 99,
      mode: 0o644,
      nlink: 1,
      readonly: false,
      fingerprint: { exists: true },
      refused: { why: "too-large", message: "/p/f is 99 bytes, over the 10-byte read limit" },
    };
    expect(decideWrite(req("x", { kind: "disk", disk: big }))).toMatchObject({
      action: "refuse",
      message: expect.stringContaining("not overwritten"),
    });
    expect(decideWrite(req("x", { kind: "disk", disk: disk("a\n", { mode: 0o444, readonly: true }) }))).toMatchObject({
      action: "refuse",
      message: expect.stringContaining("read-only (mode 0444)"),
    });
    expect(decideWrite(req("x", { kind: "buffer", buffer: buffer(["a"], { readonly: true }) }))).toMatchObject({
      action: "refuse",
    });
    expect(decideWrite(req("x", { kind: "buffer", buffer: buffer(["a"], { modifiable: false }) }))).toMatchObject({
      action: "refuse",
    });
    expect(decideWrite(req("x", { kind: "buffer", buffer: buffer(["ELF\n\u0001"]) }))).toMatchObject({
      action: "refuse",
      message: expect.stringContaining("binary"),
    });
    // As Neovim's API hands a NUL byte over.
    expect(decideWrite(req("x", { kind: "buffer", buffer: buffer(["ELF\u0000\u0001"]) }))).toMatchObject({
      action: "refuse",
      message: expect.stringContaining("binary"),
    });
    const latin1 = disk(Buffer.from([0x63, 0xe9, 0x81, 0x0a]));
    expect(decideWrite(req("c€\n", { kind: "disk", disk: latin1 }))).toMatchObject({
      action: "refuse",
      message: expect.stringContaining("latin1 cannot hold"),
    });
    expect(
      decideWrite(req("日本\n", { kind: "buffer", buffer: buffer(["a"], { fileencoding: "latin1" }) })),
    ).toMatchObject({ action: "refuse" });
    expect(decideWrite(req("\ud800\n", { kind: "disk", disk: disk(undefined) }))).toMatchObject({ action: "refuse" });
  });

  it("disk writes keep encoding, BOM, line breaks and final newline; new files are the agent's bytes", () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\r\nb\r\nc", "utf16le")]);
    const plan = decideWrite(req("a\nB\nc", { kind: "disk", disk: disk(bytes) }));
    if (plan.action !== "commit" || plan.commit.to !== "disk") throw new Error(JSON.stringify(plan));
    expect(
      plan.commit.bytes.equals(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\r\nB\r\nc", "utf16le")])),
    ).toBe(true);
    const cp = disk(Buffer.from([0x80, 0x0a, 0x61, 0x0a]));
    const p2 = decideWrite(req("€\nb\n", { kind: "disk", disk: cp }));
    if (p2.action !== "commit" || p2.commit.to !== "disk") throw new Error(JSON.stringify(p2));
    expect([...p2.commit.bytes]).toEqual([0x80, 0x0a, 0x62, 0x0a]);
    const p3 = decideWrite(req("\ufeffnew\r\nfile", { kind: "disk", disk: disk(undefined) }));
    if (p3.action !== "commit" || p3.commit.to !== "disk") throw new Error(JSON.stringify(p3));
    expect(p3.commit.bytes.equals(Buffer.from("\ufeffnew\r\nfile"))).toBe(true);
    expect(p3.commit.create).toBe(true);
  });

  it("a review's accepted hunks make the commit; the question carries the same hunks and counts", () => {
    const plan = decideWrite(req("1\nX\n3\n4\nY\n", { kind: "disk", disk: disk("1\n2\n3\n4\n5\n") }, "review"));
    if (plan.action !== "review") throw new Error(plan.action);
    const q = reviewQuestion(plan.prepared, plan.reason);
    expect(q).toMatchObject({
      current: "1\n2\n3\n4\n5",
      currentLines: 5,
      proposed: "1\nX\n3\n4\nY",
      proposedLines: 5,
      added: 2,
      removed: 2,
      whole: false,
    });
    expect(q.hunks).toEqual([
      { oldStart: 1, oldCount: 1, newStart: 1, newCount: 1 },
      { oldStart: 4, oldCount: 1, newStart: 4, newCount: 1 },
    ]);
    const c = commitFor(plan.prepared, [1]);
    expect(c.to === "disk" && c.bytes.toString()).toBe("1\n2\n3\n4\nY\n");
    const eol = decideWrite(req("a", { kind: "disk", disk: disk("a\n") }, "review"));
    if (eol.action !== "review") throw new Error(eol.action);
    expect(reviewQuestion(eol.prepared, "review").eolChange).toBe("removed");
  });

  it("an empty buffer's one phantom line is replaced, not kept", () => {
    const plan = decideWrite(req("x\ny\n", { kind: "buffer", buffer: buffer([""], { empty: true }) }));
    expect(plan).toMatchObject({ commit: { edits: [{ start: 0, end: 1, lines: ["x", "y"] }] } });
  });
});

describe("rebase: a change under an open review", () => {
  const t = splitText;
  it("carries accepted changes over to a text changed elsewhere; refuses when both touched the same lines", () => {
    const base = t("1\n2\n3\n4\n5\n6\n");
    const result = t("1\nTWO\n3\n4\n5\n6\n");
    const now = t("1\n2\n3\n4\n5\nSIX\nseven\n");
    expect(joinText(rebase(base, result, now)!)).toBe("1\nTWO\n3\n4\n5\nSIX\nseven\n");
    expect(rebase(base, result, t("1\nmine\n3\n4\n5\n6\n"))).toBeUndefined();
    expect(joinText(rebase(base, t("1\n2\n3\n4\n5\n6"), t("0\n1\n2\n3\n4\n5\n6\n"))!)).toBe("0\n1\n2\n3\n4\n5\n6");
  });
});

describe("decideSync: the disk changed behind a buffer", () => {
  it("nothing when equal, reload when unmodified, a review of buffer against disk when modified", () => {
    expect(decideSync("/p/f", buffer(["a"]), disk("a\n"))).toEqual({ action: "none" });
    expect(decideSync("/p/f", buffer(["a"], { eol: false }), disk("a"))).toEqual({ action: "none" });
    expect(decideSync("/p/f", buffer(["a"]), disk("b\n"))).toEqual({ action: "reload" });
    const r = decideSync("/p/f", buffer(["mine", "a"], { modified: true }), disk("a\nagent\n"));
    expect(r).toMatchObject({ action: "review", reason: "disk", prepared: { next: { lines: ["a", "agent"] } } });
    // Known what the file held before the agent wrote it: its change only, on top of the user's.
    const was = { lines: ["a"], eol: true };
    const m = decideSync("/p/f", buffer(["mine", "a"], { modified: true }), disk("a\nagent\n"), undefined, was);
    expect(m).toMatchObject({
      action: "review",
      reason: "merged",
      prepared: { next: { lines: ["mine", "a", "agent"] } },
    });
    if (m.action !== "review") throw new Error("unreachable");
    expect(m.prepared.diff.hunks).toHaveLength(1);
    // The file is back to what it was before the agent wrote it (every hunk rejected): nothing to compare.
    expect(decideSync("/p/f", buffer(["mine", "a"], { modified: true }), disk("a\n"), undefined, was)).toEqual({
      action: "none",
    });
    // Both changed the same line: a conflict there, the agent's lines against the user's.
    const c = decideSync("/p/f", buffer(["mine"], { modified: true }), disk("agent\n"), undefined, was);
    expect(c).toMatchObject({ action: "review", reason: "conflict", prepared: { next: { lines: ["agent"] } } });
    expect(encodeText({ lines: ["x"], eol: true, encoding: "utf-8", format: "unix", bom: false }).toString()).toBe(
      "x\n",
    );
  });
});

describe("shownLines", () => {
  it("cuts only lines longer than the limit, never inside a surrogate pair, and counts them", async () => {
    const { shownLines, SHOWN_LINE_CHARS } = await import("../../src/workspace/write-plan.js");
    const long = "a".repeat(SHOWN_LINE_CHARS - 1) + "😀" + "b".repeat(10);
    const r = shownLines(["short", long, "x".repeat(SHOWN_LINE_CHARS)]);
    expect(r.cut).toBe(1);
    const [a, b, c] = r.text.split("\n");
    expect(a).toBe("short");
    expect(b).toBe(
      "a".repeat(SHOWN_LINE_CHARS - 1) +
        ` … [line cut for the review: ${Buffer.byteLength(long).toLocaleString("en")} bytes in all]`,
    );
    expect(c).toBe("x".repeat(SHOWN_LINE_CHARS));
  });
});
