/**
 * What taking a change back does to one file (src/checkpoints/restore-plan.ts), on plain data:
 * an untouched file comes back whole, byte for byte; a file edited since is merged three-way so
 * only the agent's lines change; overlapping edits, and files created or removed then edited,
 * are conflicts (nothing written).
 */
import { describe, expect, it } from "vitest";
import {
  planRewind,
  planTakeback,
  stepHunks,
  type Now,
  type RestoreAction,
  type Step,
  type Version,
} from "../../src/checkpoints/restore-plan.js";
import type { FileAt } from "../../src/checkpoints/types.js";
import { diffTexts } from "../../src/workspace/hunks.js";

const lines = (n: number, tag = "line") => Array.from({ length: n }, (_, i) => `${tag} ${i + 1}`);
const file = (ls: string[] | string, mode: "100644" | "100755" = "100644"): FileAt => ({
  kind: "file",
  mode,
  bytes: Buffer.from(typeof ls === "string" ? ls : ls.join("\n") + "\n"),
});
const bytesFile = (b: Buffer, mode: "100644" | "100755" = "100644"): FileAt => ({ kind: "file", mode, bytes: b });
/** `ls` with line `i` (1-based) replaced. */
const edit = (ls: string[], i: number, to: string) => ls.map((l, k) => (k === i - 1 ? to : l));
const disk = (v: Version): Now => ({ disk: v });

function merged(a: RestoreAction): string[] {
  if (a.action !== "merge") throw new Error(`expected a merge, got ${JSON.stringify(a)}`);
  return a.text.lines;
}

describe("planRewind", () => {
  it("untouched since the agent: the start version comes back whole (the same bytes, mode, a link as a link, absence)", () => {
    const crlf = bytesFile(Buffer.from("caf\xe9\r\nno eol", "latin1"), "100755");
    const after = file(lines(3));
    const r = planRewind([{ start: crlf, end: after }], disk(file(lines(3))));
    expect(r).toEqual({ action: "restore", version: crlf });
    expect((r as { version: { bytes: Buffer } }).version.bytes.equals(Buffer.from("caf\xe9\r\nno eol", "latin1"))).toBe(
      true,
    );
    // A link the agent pointed elsewhere comes back as the link it was.
    const link: FileAt = { kind: "link", target: "a.txt" };
    expect(
      planRewind([{ start: link, end: { kind: "link", target: "b.txt" } }], disk({ kind: "link", target: "b.txt" })),
    ).toEqual({ action: "restore", version: link });
    // Created by the agent: restored as absent (removed).
    expect(planRewind([{ start: undefined, end: after }], disk(file(lines(3))))).toEqual({
      action: "restore",
      version: undefined,
    });
    // Deleted by the agent: comes back.
    expect(planRewind([{ start: after, end: undefined }], disk(undefined))).toEqual({
      action: "restore",
      version: after,
    });
    // Only a mode change: the old mode comes back.
    const exec = file(lines(3), "100755");
    expect(planRewind([{ start: exec, end: after }], disk(file(lines(3))))).toEqual({
      action: "restore",
      version: exec,
    });
  });

  it("already put back by the user (by hand, or u and :w): nothing to do, not a conflict", () => {
    expect(planRewind([{ start: file(lines(3)), end: file(lines(4)) }], disk(file(lines(3))))).toEqual({
      action: "none",
    });
    const base = lines(20);
    const agent = edit(base, 7, "AGENT 7");
    expect(
      planRewind([{ start: file(base), end: file(agent) }], { disk: file(agent), unsaved: { lines: base, eol: true } }),
    ).toEqual({ action: "none" });
  });

  it("several turns, the first one's change already undone by the user: the later turn is still taken back", () => {
    const base = lines(20);
    const t1 = edit(base, 3, "TURN1 3");
    const t2 = edit(t1, 15, "TURN2 15");
    const now = edit(t2, 3, "line 3"); // the user put turn 1's line back by hand
    const r = planRewind(
      [
        { start: file(base), end: file(t1) },
        { start: file(t1), end: file(t2) },
      ],
      disk(file(now)),
    );
    expect(merged(r)).toEqual(base);
  });

  it("an unsaved edit in the buffer is not 'untouched': the agent's change is merged out of the buffer's text", () => {
    const base = lines(20);
    const agent = edit(base, 3, "AGENT 3");
    const user = edit(agent, 15, "USER 15");
    const r = planRewind([{ start: file(base), end: file(agent) }], {
      disk: file(agent),
      unsaved: { lines: user, eol: true },
    });
    expect(merged(r)).toEqual(edit(base, 15, "USER 15"));
  });

  it("the user edited the file after the agent, elsewhere: three-way merge keeps the user's lines, takes out the agent's", () => {
    const base = lines(30);
    const agent = edit(edit(base, 5, "AGENT 5"), 25, "AGENT 25");
    const now = edit(agent, 15, "USER 15");
    const r = planRewind([{ start: file(base), end: file(agent) }], disk(file(now)));
    expect(merged(r)).toEqual(edit(base, 15, "USER 15"));
    // The file's encoding and line endings are what the disk has now.
    const crlfNow = Buffer.from(now.join("\r\n") + "\r\n");
    const r2 = planRewind([{ start: file(base), end: file(agent) }], disk(bytesFile(crlfNow)));
    expect(r2.action).toBe("merge");
    expect((r2 as { like?: { format: string } }).like?.format).toBe("dos");
  });

  it("the user edited the agent's own lines: a conflict, nothing written", () => {
    const base = lines(10);
    const agent = edit(base, 3, "AGENT 3");
    const r = planRewind([{ start: file(base), end: file(agent) }], disk(file(edit(agent, 3, "USER 3"))));
    expect(r).toMatchObject({ action: "conflict", why: "it was edited after the agent's change, in the same lines" });
    // Both sides are kept for a merge with markers, if the user asks for one.
    expect(r).toMatchObject({
      overlap: { ours: { lines: edit(agent, 3, "USER 3") }, base: { lines: agent }, theirs: { lines: base } },
    });
    // The line next to the agent's counts as the same place.
    const r2 = planRewind([{ start: file(base), end: file(agent) }], disk(file(edit(agent, 4, "USER 4"))));
    expect(r2.action).toBe("conflict");
  });

  it("created by the agent, then edited: a conflict (removing it would lose the edit)", () => {
    const made = lines(5, "new");
    const r = planRewind([{ start: undefined, end: file(made) }], disk(file([...made, "user line"])));
    expect(r).toEqual({ action: "conflict", why: "the agent created it, and it was edited after" });
  });

  it("deleted by the agent, then made again by the user: a conflict", () => {
    const r = planRewind([{ start: file(lines(5)), end: undefined }], disk(file(["the user's own"])));
    expect(r).toEqual({ action: "conflict", why: "the agent removed it, and it was made again after" });
  });

  it("removed after the agent's change: a conflict", () => {
    const r = planRewind([{ start: file(lines(5)), end: file(lines(6)) }], disk(undefined));
    expect(r).toEqual({ action: "conflict", why: "it was removed after the agent's change" });
  });

  it("binary and changed since: a conflict (no merge of bytes)", () => {
    const bin = (b: number[]) => bytesFile(Buffer.from(b));
    const r = planRewind([{ start: bin([0, 1, 2]), end: bin([0, 1, 3]) }], disk(bin([0, 1, 4])));
    expect(r.action).toBe("conflict");
    // Untouched binary: restored byte for byte.
    expect(planRewind([{ start: bin([0, 1, 2]), end: bin([0, 1, 3]) }], disk(bin([0, 1, 3])))).toEqual({
      action: "restore",
      version: bin([0, 1, 2]),
    });
  });

  it("several turns in a row, untouched: the first turn's start comes back whole", () => {
    const a = file(lines(10));
    const b = file(edit(lines(10), 2, "T1"));
    const c = file(edit(edit(lines(10), 2, "T1"), 8, "T2"));
    expect(
      planRewind(
        [
          { start: a, end: b },
          { start: b, end: c },
        ],
        disk(c),
      ),
    ).toEqual({ action: "restore", version: a });
  });

  it("several turns with a user edit between them: each turn is undone newest first, the user's edit kept", () => {
    const base = lines(40);
    const t1 = edit(base, 5, "TURN1 5");
    const userBetween = edit(t1, 20, "USER 20");
    const t2 = edit(userBetween, 35, "TURN2 35");
    const steps: Step[] = [
      { start: file(base), end: file(t1) },
      { start: file(userBetween), end: file(t2) },
    ];
    const r = planRewind(steps, disk(file(t2)));
    expect(merged(r)).toEqual(edit(base, 20, "USER 20"));
    // And a user edit after the last turn as well: both kept.
    const after = edit(t2, 30, "USER 30");
    expect(merged(planRewind(steps, disk(file(after))))).toEqual(edit(edit(base, 20, "USER 20"), 30, "USER 30"));
  });

  it("no steps: nothing to do", () => {
    expect(planRewind([], disk(file(lines(2))))).toEqual({ action: "none" });
  });
});

describe("planTakeback", () => {
  const base = lines(40);
  const agent = edit(edit(edit(base, 5, "AGENT 5"), 20, "AGENT 20"), 35, "AGENT 35");
  const step: Step = { start: file(base), end: file(agent) };
  const h = stepHunks(step)!;

  it("the step's hunks are the agent's three edits", () => {
    expect(h.hunks.map((x) => [x.oldStart, x.oldCount, x.newStart, x.newCount])).toEqual([
      [4, 1, 4, 1],
      [19, 1, 19, 1],
      [34, 1, 34, 1],
    ]);
  });

  it("untouched: the hunks taken back are undone, the others kept", () => {
    const r = planTakeback(step, h.hunks, [1], disk(file(agent)));
    expect(merged(r)).toEqual(edit(edit(base, 5, "AGENT 5"), 35, "AGENT 35"));
    expect(planTakeback(step, h.hunks, [0, 2], disk(file(agent))).action).toBe("merge");
    expect(merged(planTakeback(step, h.hunks, [0, 2], disk(file(agent))))).toEqual(edit(base, 20, "AGENT 20"));
  });

  it("all hunks: the file comes back whole, byte for byte (a rewind of the step)", () => {
    const crlf = bytesFile(Buffer.from(base.join("\r\n") + "\r\n"));
    const s: Step = { start: crlf, end: file(agent) };
    const hh = stepHunks(s)!;
    expect(planTakeback(s, hh.hunks, [0, 1, 2], disk(file(agent)))).toEqual({ action: "restore", version: crlf });
  });

  it("none: nothing to do", () => {
    expect(planTakeback(step, h.hunks, [], disk(file(agent)))).toEqual({ action: "none" });
  });

  it("a hunk the user already put back by hand: nothing to do, not a conflict", () => {
    expect(planTakeback(step, h.hunks, [1], disk(file(edit(agent, 20, "line 20"))))).toEqual({ action: "none" });
  });

  it("the user edited elsewhere since: three-way merge keeps the user's edit", () => {
    const now = edit(agent, 12, "USER 12");
    expect(merged(planTakeback(step, h.hunks, [1], disk(file(now))))).toEqual(
      edit(edit(edit(base, 5, "AGENT 5"), 12, "USER 12"), 35, "AGENT 35"),
    );
    // Unsaved in the buffer: the same, from the buffer's text.
    expect(merged(planTakeback(step, h.hunks, [1], { disk: file(agent), unsaved: { lines: now, eol: true } }))).toEqual(
      edit(edit(edit(base, 5, "AGENT 5"), 12, "USER 12"), 35, "AGENT 35"),
    );
  });

  it("the user edited the hunk's own line: a conflict; another hunk can still be taken back", () => {
    const now = edit(agent, 20, "USER over AGENT 20");
    expect(planTakeback(step, h.hunks, [1], disk(file(now)))).toMatchObject({
      action: "conflict",
      why: "it was edited after the agent's change, in the same lines",
    });
    expect(merged(planTakeback(step, h.hunks, [0], disk(file(now))))).toEqual(
      edit(edit(base, 20, "USER over AGENT 20"), 35, "AGENT 35"),
    );
  });

  it("a created file, taken back in part: only its other hunks stay", () => {
    // Created: one hunk for all of it; taking it back in part is not possible (one hunk), all is a removal.
    const made: Step = { start: undefined, end: file(lines(3, "new")) };
    const hm = stepHunks(made)!;
    expect(hm.hunks.length).toBe(1);
    expect(planTakeback(made, hm.hunks, [0], disk(file(lines(3, "new"))))).toEqual({
      action: "restore",
      version: undefined,
    });
    expect(planTakeback(made, hm.hunks, [0], disk(file([...lines(3, "new"), "user"]))).action).toBe("conflict");
  });

  it("a binary change: no hunks", () => {
    expect(stepHunks({ start: bytesFile(Buffer.from([0, 1])), end: bytesFile(Buffer.from([0, 2])) })).toBeUndefined();
  });

  it("the merged text keeps the file's own line endings (like: the disk now)", () => {
    const crlfNow = bytesFile(Buffer.from(agent.join("\r\n") + "\r\n"));
    const r = planTakeback(step, h.hunks, [0], disk(crlfNow));
    expect(r.action).toBe("merge");
    const m = r as Extract<RestoreAction, { action: "merge" }>;
    expect(m.like?.format).toBe("dos");
    expect(diffTexts({ lines: base, eol: true }, m.text).hunks.length).toBe(2);
  });
});
