/** The editor channel's framing (src/editor-tools/lines.ts): lines, limits, linear cost. */
import { EventEmitter } from "node:events";
import { createConnection, createServer, type Socket } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readLines, writeLine } from "../../src/editor-tools/lines.js";
import { cpuMsSince } from "../support/cpu-time.js";

/** A socket stand-in whose chunks the test hands over one by one, as small as it likes. */
function fakeSocket(): Socket & { feed(b: Buffer | string): void } {
  const e = new EventEmitter() as unknown as Socket & { feed(b: Buffer | string): void };
  (e as unknown as { setEncoding(): void }).setEncoding = () => undefined;
  e.feed = (b) => e.emit("data", typeof b === "string" ? Buffer.from(b) : b);
  return e;
}

describe("editor channel lines", () => {
  it("a whole file's answer crosses a real socket as one line: UTF-8 split anywhere, then the next line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acpchat-lines-"));
    const path = join(dir, "s.sock");
    const text = `${"é€😀 line\twith\ttabs\n".repeat(150_000)}end`;
    const got: unknown[] = [];
    const done = new Promise<void>((resolve, reject) => {
      const server = createServer((s) => {
        readLines(
          s,
          64 << 20,
          (value) => {
            got.push(value);
            if (got.length === 3) {
              server.close();
              s.destroy();
              resolve();
            }
          },
          (why) => reject(new Error(why)),
        );
      });
      server.listen(path, () => {
        const c = createConnection(path, () => {
          writeLine(c, { id: 1, result: { content: [{ type: "text", text }] } });
          writeLine(c, { id: 2, error: true });
          writeLine(c, { ok: true });
        });
      });
    });
    await done;
    expect(got).toEqual([
      { id: 1, result: { content: [{ type: "text", text }] } },
      { id: 2, error: true },
      { ok: true },
    ]);
  });

  it("a character split between chunks of a line joins; a line over the limit is a fault", () => {
    const s = fakeSocket();
    const values: unknown[] = [];
    const faults: string[] = [];
    readLines(
      s,
      100,
      (v) => values.push(v),
      (w) => faults.push(w),
    );
    const line = Buffer.from(`${JSON.stringify({ t: "é😀" })}\n`);
    for (let i = 0; i < line.length; i++) s.feed(line.subarray(i, i + 1));
    expect(values).toEqual([{ t: "é😀" }]);
    // Complete in one chunk, and still too long.
    s.feed(`${JSON.stringify({ t: "x".repeat(200) })}\n`);
    expect(faults).toEqual(["a line longer than 100 bytes"]);
    s.feed(`${JSON.stringify({ t: 1 })}\n`);
    expect(values).toHaveLength(1);
  });

  it("a long line arriving in many small chunks costs time linear in its length", () => {
    // 2 MiB in 4 KiB chunks: searching or measuring all that is pending on each chunk is 512
    // passes over megabytes (11 s measured on the loaded machine); taking each chunk once, 80 ms.
    const s = fakeSocket();
    let got = "";
    readLines(
      s,
      64 << 20,
      (v) => (got = (v as { t: string }).t),
      (w) => {
        throw new Error(w);
      },
    );
    const whole = Buffer.from(`${JSON.stringify({ t: "y".repeat(2 << 20) })}\n`);
    const start = process.cpuUsage();
    for (let at = 0; at < whole.length; at += 4096) s.feed(whole.subarray(at, at + 4096));
    const ms = cpuMsSince(start);
    expect(got.length).toBe(2 << 20);
    expect(ms).toBeLessThan(2_000);
  });
});
