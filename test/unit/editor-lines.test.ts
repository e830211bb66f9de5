/**
 * The editor channel's line reader (src/editor-tools/lines.ts) over a real socket: a line of
 * many megabytes (the editor's read_file of a big buffer) arriving in small chunks costs time in
 * proportion to its size, and the lines around it come whole and in order.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readLines } from "../../src/editor-tools/lines.js";

const dir = mkdtempSync(join(tmpdir(), "acpchat-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lines read from what `write` sends over a unix socket, and the CPU ms the reader took. */
async function readAll(
  maxBytes: number,
  write: (s: Socket) => Promise<void>,
): Promise<{ lines: unknown[]; faults: string[]; ms: number }> {
  const path = join(dir, `s${Math.random().toString(36).slice(2)}`);
  const lines: unknown[] = [];
  const faults: string[] = [];
  let ms = 0;
  const closed = new Promise<void>((resolve) => {
    const server = createServer((sock) => {
      readLines(
        sock,
        maxBytes,
        (v) => lines.push(v),
        (why) => faults.push(why),
      );
      // Timed around each read: the reader's own work, whatever the machine's load.
      sock.prependListener("data", () => {
        const t0 = process.cpuUsage();
        setImmediate(() => {
          const d = process.cpuUsage(t0);
          ms += (d.user + d.system) / 1000;
        });
      });
      sock.on("close", () => {
        server.close();
        resolve();
      });
    });
    server.listen(path);
  });
  const client = connect(path);
  await new Promise((r) => client.once("connect", r));
  await write(client);
  client.end();
  await closed;
  return { lines, faults, ms };
}

const send = (s: Socket, text: string) => new Promise<void>((r) => s.write(text, () => r()));

describe("the editor channel's lines", () => {
  it("a 15 MB line in 8 KB writes is read in time proportional to it, between two short lines", async () => {
    const big = "é".repeat(7_500_000); // 15 MB of two-byte characters
    const line = `${JSON.stringify({ id: 2, text: big })}\n`;
    const r = await readAll(32 * 1024 * 1024, async (s) => {
      await send(s, `${JSON.stringify({ id: 1 })}\n`);
      for (let i = 0; i < line.length; i += 8192) await send(s, line.slice(i, i + 8192));
      await send(s, `${JSON.stringify({ id: 3 })}\n`);
    });
    process.stderr.write(`a 15 MB line in 8 KB writes: the reader took ${r.ms.toFixed(0)} ms of CPU\n`);
    expect(r.faults).toEqual([]);
    expect(r.lines.map((l) => (l as { id: number }).id)).toEqual([1, 2, 3]);
    expect((r.lines[1] as { text: string }).text === big).toBe(true);
    // Quadratic (the whole pending text searched and measured at each chunk) took seconds of CPU here.
    expect(r.ms).toBeLessThan(1500);
  }, 60_000);

  it("a line over the limit ends the reading once, however it is cut", async () => {
    const r = await readAll(1000, async (s) => {
      await send(s, `${JSON.stringify({ id: 1 })}\n{"id":2,"x":"`);
      for (let i = 0; i < 10; i++) await send(s, "a".repeat(300));
      // Read before the line ends (else it might come whole in one read, and be taken).
      await new Promise((r) => setTimeout(r, 200));
      await send(s, `"}\n${JSON.stringify({ id: 3 })}\n`);
    });
    expect(r.lines).toEqual([{ id: 1 }]);
    expect(r.faults).toEqual(["a line longer than 1000 bytes"]);
  });

  it("several lines in one chunk and a line split at every byte come whole", async () => {
    const r = await readAll(1000, async (s) => {
      await send(s, '{"a":1}\n\n{"a":2}\n{"a"');
      for (const c of ':"é"}\n') await send(s, c);
    });
    expect(r.faults).toEqual([]);
    expect(r.lines).toEqual([{ a: 1 }, { a: 2 }, { a: "é" }]);
  });
});
