/**
 * The pure parts of terminals: the capped output buffer (against a plain reference), the exit
 * status helpers, and the choice between the shell and a direct exec.
 */
import { describe, expect, it } from "vitest";
import { OutputBuffer } from "../../src/terminals/output-buffer.js";
import { describeTerminalExit, terminalFailed } from "../../src/terminals/exit-status.js";
import { executableFor } from "../../src/terminals/shell-command.js";
import { cpuMsSince } from "../support/cpu-time.js";

/** What the buffer must hold: the last `limit` bytes, without a leading partial character. */
function expected(all: Buffer, limit: number): Buffer {
  if (all.length <= limit) return all;
  let start = all.length - limit;
  while (start < all.length && (all[start]! & 0xc0) === 0x80) start++;
  return all.subarray(start);
}

/** Deterministic pseudo-random numbers (xorshift), so a failure can be replayed. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe("OutputBuffer", () => {
  it("keeps the last bytes on a character boundary, for any chunking and limit", () => {
    const text = Buffer.from("aé€😀b\n".repeat(2000)); // 1-, 2-, 3- and 4-byte characters
    const rand = rng(42);
    for (const limit of [0, 1, 2, 3, 5, 20, 999, 1024, 1025, 5000, 70_000, 200_000]) {
      for (let round = 0; round < 5; round++) {
        const buf = new OutputBuffer(limit);
        let fed = 0;
        while (fed < text.length) {
          // Mostly small chunks, some bigger than a block or than the limit.
          const r = rand();
          const n = Math.min(text.length - fed, r < 0.8 ? 1 + Math.floor(rand() * 40) : Math.floor(rand() * 90_000));
          buf.append(text.subarray(fed, fed + n));
          fed += n;
          const want = expected(text.subarray(0, fed), limit);
          if (rand() < 0.05 || fed === text.length) {
            expect(Buffer.from(buf.text()).equals(want) || buf.text() === want.toString("utf8")).toBe(true);
          }
          expect(buf.bytes).toBe(want.length);
          expect(buf.truncated).toBe(fed > limit);
        }
        expect(buf.text()).toBe(expected(text, limit).toString("utf8"));
        expect(buf.text()).not.toMatch(/^\uFFFD/);
      }
    }
  });

  it("tail gives the last characters without a broken first one", () => {
    const buf = new OutputBuffer(1 << 20);
    for (let i = 0; i < 5000; i++) buf.append(Buffer.from(`${i}€😀\n`));
    const tail = buf.tail(100);
    expect(tail.length).toBeLessThanOrEqual(100);
    expect(tail.length).toBeGreaterThan(90);
    expect(buf.text().endsWith(tail)).toBe(true);
    expect(tail).not.toContain("\uFFFD");
    expect(new OutputBuffer(10).tail(5)).toBe("");
  });

  it("a limit of 0 keeps nothing and says it truncated", () => {
    const buf = new OutputBuffer(0);
    buf.append(Buffer.from("hello"));
    expect(buf.text()).toBe("");
    expect(buf.truncated).toBe(true);
  });

  it("many tiny chunks are packed into blocks (time linear in the bytes, not the retained size)", () => {
    const buf = new OutputBuffer(4 * 1024 * 1024);
    const line = Buffer.from("y\n");
    const t0 = process.cpuUsage();
    for (let i = 0; i < 4_000_000; i++) buf.append(line); // 8 MB in 2-byte chunks
    const ms = cpuMsSince(t0);
    expect(buf.bytes).toBe(4 * 1024 * 1024);
    expect(buf.truncated).toBe(true);
    expect(ms).toBeLessThan(5000);
  });
});

describe("exit status", () => {
  it("describes and judges: non-zero exit and signals are failures", () => {
    expect(describeTerminalExit(undefined)).toBeUndefined();
    expect(describeTerminalExit({ exitCode: 0, signal: null })).toBe("exit 0");
    expect(describeTerminalExit({ exitCode: 3, signal: null })).toBe("exit 3");
    expect(describeTerminalExit({ exitCode: null, signal: "SIGTERM" })).toBe("signal SIGTERM");
    expect(terminalFailed(undefined)).toBe(false);
    expect(terminalFailed({ exitCode: 0, signal: null })).toBe(false);
    expect(terminalFailed({ exitCode: 3, signal: null })).toBe(true);
    expect(terminalFailed({ exitCode: 127, signal: null })).toBe(true);
    expect(terminalFailed({ exitCode: null, signal: "SIGKILL" })).toBe(true);
    expect(terminalFailed({ exitCode: null, signal: null })).toBe(true);
  });
});

describe("executableFor", () => {
  it("a command line without args goes through the user's shell, else sh", () => {
    expect(executableFor("ls -la src", undefined, "/bin/bash")).toEqual({
      file: "/bin/bash",
      args: ["-c", "ls -la src"],
    });
    expect(executableFor("ls -la src", [], "/bin/bash")).toEqual({ file: "/bin/bash", args: ["-c", "ls -la src"] });
    expect(executableFor("ls -la src", [], undefined)).toEqual({ file: "sh", args: ["-c", "ls -la src"] });
    expect(executableFor("ls -la src", [], "/no/such/shell")).toEqual({ file: "sh", args: ["-c", "ls -la src"] });
    expect(executableFor("ls -la src", [], "bash")).toEqual({ file: "sh", args: ["-c", "ls -la src"] });
  });

  it("a program with args runs directly", () => {
    expect(executableFor("ls", ["-la", "src"], "/bin/bash")).toEqual({ file: "ls", args: ["-la", "src"] });
  });
});
