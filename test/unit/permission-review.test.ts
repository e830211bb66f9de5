/**
 * The per-hunk review of a permission question's diff (src/session/permission/review.ts): the
 * whole-file sides of what agents send, and a partly accepted edit cut down for the write.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PartialEdits, wholeFile } from "../../src/session/permission/review.js";
import type { LiveFiles } from "../../src/checkpoints/apply.js";
import { splitText } from "../../src/workspace/text-codec.js";

const file = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`).join("\n") + "\n";

describe("wholeFile", () => {
  const now = splitText(file(10));
  it("no old text (claude-agent-acp's Write): the old side is the file as it is", () => {
    const { before, after } = wholeFile(now, null, file(10).replace("line 4\n", "FOUR\n"));
    expect(before).toEqual(now);
    expect(after.lines[3]).toBe("FOUR");
    expect(after.lines).toHaveLength(10);
  });
  it("a snippet (an Edit's old_string) is replaced in the file when it occurs once", () => {
    const { before, after } = wholeFile(now, "line 7\nline 8\n", "SEVEN\n");
    expect(before.lines).toHaveLength(10);
    expect(after.lines).toEqual([
      "line 1",
      "line 2",
      "line 3",
      "line 4",
      "line 5",
      "line 6",
      "SEVEN",
      "line 9",
      "line 10",
    ]);
  });
  it("a snippet found twice, or not at all, is the agent's two texts as they are", () => {
    const twice = splitText("a\nb\na\nb\n");
    expect(wholeFile(twice, "a\n", "c\n").before.lines).toEqual(["a"]);
    expect(wholeFile(now, "nowhere\n", "x\n").after.lines).toEqual(["x"]);
  });
  it("a new file (no buffer, no disk): everything is added", () => {
    const { before, after } = wholeFile(undefined, null, "x\ny\n");
    expect(before.lines).toEqual([]);
    expect(after.lines).toEqual(["x", "y"]);
  });
});

describe("PartialEdits", () => {
  /** A LiveFiles with no loaded buffers, answering reviews from a list. */
  const live: LiveFiles = {
    buffer: async () => undefined,
    setBuffer: async () => "done",
    reload: async () => undefined,
  };
  const request = (path: string, newText: string) => ({
    sessionId: "s",
    toolCall: { toolCallId: "t1", content: [{ type: "diff" as const, path, oldText: null, newText }] },
    options: [
      { optionId: "y", name: "Yes", kind: "allow_once" as const },
      { optionId: "n", name: "No", kind: "reject_once" as const },
    ],
  });

  it("a subset of hunks allows, and the write is cut down to them; none rejects; all allows unchanged", async () => {
    const path = "/nonexistent-dir-for-test/p.txt"; // no such file: the old side is empty
    const full = "a\n";
    const edits = new PartialEdits();
    // One hunk only (a new file): all accepted.
    expect(await edits.review(request(path, full) as never, live, async () => ({ accepted: [0] }))).toEqual({
      outcome: "selected",
      optionId: "y",
    });
    expect(edits.forWrite(path, full)).toMatchObject({ content: full });
    expect(await edits.review(request(path, full) as never, live, async () => ({ accepted: [] }))).toEqual({
      outcome: "selected",
      optionId: "n",
    });
    expect(edits.forWrite(path, full)).toBeUndefined();
    // Withdrawn: cancelled.
    expect(await edits.review(request(path, full) as never, live, async () => undefined)).toEqual({
      outcome: "cancelled",
    });
  });

  it("of two hunks, one accepted: the write keeps that one only, byte for byte otherwise", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-pr-"));
    const path = join(dir, "p.txt");
    writeFileSync(path, file(20));
    const full = file(20).replace("line 3\n", "THREE\n").replace("line 15\n", "FIFTEEN\n");
    const edits = new PartialEdits();
    let asked: { hunks: unknown[] } | undefined;
    const outcome = await edits.review(request(path, full) as never, live, async (q) => {
      asked = q as { hunks: unknown[] };
      return { accepted: [1] };
    });
    expect(asked!.hunks).toHaveLength(2);
    expect(outcome).toEqual({ outcome: "selected", optionId: "y" });
    expect(edits.forWrite(path, full)!.content).toBe(file(20).replace("line 15\n", "FIFTEEN\n"));
    // Used once.
    expect(edits.forWrite(path, full)).toBeUndefined();
  });
});
