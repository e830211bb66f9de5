/**
 * After a tool call touched files: buffers behind the disk (the agent wrote the file itself)
 * are reloaded, or compared with the disk when they hold the user's edits (NvimPort.syncBuffers
 * over an in-memory stand-in for the Lua primitives).
 */
import { mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Bridge } from "../../src/nvim/bridge.js";
import type { NodeRequests } from "../../src/nvim/contract.js";
import type { ReviewAnswer } from "../../src/wire/index.js";
import { NvimPort } from "../../src/nvim/nvim-port.js";
import { Questions } from "../../src/nvim/questions.js";

interface Buf {
  lines: string[];
  modified: boolean;
  tick: number;
}

/** The buffer primitives of lua/acpchat/editor/workspace.lua, in memory; questions answered by `answer`. */
function fakeBridge(
  buffers: Map<string, Buf>,
  answer: (question: Record<string, unknown>) => ReviewAnswer | undefined,
) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  let questions: Questions;
  const bridge = {
    async bufferLines(buf: number, tick: number, first: number, last: number) {
      const b = [...buffers.values()][buf];
      return b && b.tick === tick ? b.lines.slice(first, last) : undefined;
    },
    async bufferText(buf: number, tick: number, first: number, last: number) {
      const lines = await bridge.bufferLines(buf, tick, first, last);
      return lines?.some((l) => l.includes("\n")) ? null : lines?.join("\n");
    },
    emit(event: string, payload: Record<string, unknown>) {
      calls.push({ method: event, params: payload });
      if (event === "ask")
        queueMicrotask(() =>
          questions.answer(payload.key as string, answer(payload.question as Record<string, unknown>)),
        );
    },
    async request(method: keyof NodeRequests, params: Record<string, unknown>) {
      calls.push({ method, params });
      const b = buffers.get(params.path as string);
      if (!b) return method === "bufferState" ? { loaded: false } : { result: "not_loaded" };
      if (method === "bufferState") {
        const lines = b.lines.slice(
          (params.first as number | undefined) ?? 0,
          (params.last as number | undefined) ?? b.lines.length,
        );
        return {
          loaded: true,
          lineCount: b.lines.length,
          buf: [...buffers.values()].indexOf(b),
          tick: b.tick,
          modified: b.modified,
          lines,
          empty: b.lines.length === 0,
          eol: true,
          fixeol: true,
          binary: false,
          fileformat: "unix",
          fileencoding: "utf-8",
          bomb: false,
          readonly: false,
          modifiable: true,
        };
      }
      if (method === "bufferReload") return { result: "reloaded" };
      if (method === "bufferApply") {
        if (params.tick !== b.tick) return { result: "changed" };
        for (const e of params.edits as { start: number; end: number; lines: string[] }[])
          b.lines.splice(e.start, e.end - e.start, ...e.lines);
        b.tick++;
        if (params.markSaved) b.modified = false;
        return { result: "applied", tick: b.tick };
      }
      throw new Error(`unexpected ${method}`);
    },
  };
  questions = new Questions(bridge as unknown as Bridge);
  return { bridge: bridge as unknown as Bridge, questions, calls };
}

const dir = () => realpathSync(mkdtempSync(join(tmpdir(), "acpchat-sync-")));

describe("syncBuffers", () => {
  it("an unmodified buffer behind the disk is reloaded; one equal to the disk is left alone", async () => {
    const d = dir();
    writeFileSync(join(d, "a"), "agent wrote this\n");
    writeFileSync(join(d, "b"), "same\n");
    const buffers = new Map([
      [join(d, "a"), { lines: ["old"], modified: false, tick: 3 }],
      [join(d, "b"), { lines: ["same"], modified: false, tick: 3 }],
    ]);
    const { bridge, questions, calls } = fakeBridge(buffers, () => undefined);
    await new NvimPort(bridge, questions, 1).syncBuffers(
      [join(d, "a"), join(d, "b"), join(d, "not-loaded")],
      new AbortController().signal,
    );
    expect(calls.filter((c) => c.method === "bufferReload").map((c) => c.params.path)).toEqual([join(d, "a")]);
    expect(calls.some((c) => c.method === "ask")).toBe(false);
  });

  it("a buffer with the user's edits: one review of buffer against disk; what the user takes is applied and the disk acknowledged", async () => {
    const d = dir();
    const f = join(d, "f");
    writeFileSync(f, "1\n2\nagent\n4\n");
    const buffers = new Map([[f, { lines: ["MINE", "2", "3", "4"], modified: true, tick: 7 }]]);
    let asked: Record<string, unknown> | undefined;
    // The user takes the disk's hunk (the agent's line) and keeps their own.
    const { bridge, questions, calls } = fakeBridge(buffers, (q) => {
      asked = q;
      const hunks = q.hunks as { oldStart: number }[];
      return { accepted: [hunks.findIndex((h) => h.oldStart === 2)] };
    });
    await new NvimPort(bridge, questions, 1).syncBuffers([f], new AbortController().signal);
    expect(asked).toMatchObject({ reason: "disk", current: "MINE\n2\n3\n4", proposed: "1\n2\nagent\n4" });
    expect(buffers.get(f)!.lines).toEqual(["MINE", "2", "agent", "4"]);
    const apply = calls.find((c) => c.method === "bufferApply")!;
    expect(apply.params).toMatchObject({ acknowledgeDisk: true, markSaved: false });
  });

  it("taking every change from the disk leaves the buffer equal to it: marked saved", async () => {
    const d = dir();
    const f = join(d, "f");
    writeFileSync(f, "disk\n");
    const buffers = new Map([[f, { lines: ["mine"], modified: true, tick: 1 }]]);
    const { bridge, questions } = fakeBridge(buffers, (q) => ({ accepted: (q.hunks as unknown[]).map((_, i) => i) }));
    await new NvimPort(bridge, questions, 1).syncBuffers([f], new AbortController().signal);
    expect(buffers.get(f)).toMatchObject({ lines: ["disk"], modified: false });
  });
});
