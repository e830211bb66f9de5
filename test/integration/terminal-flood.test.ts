/**
 * A terminal flooded with output keeps only what the client's cap allows, even when the agent
 * sets no limit or a huge one, and the host's memory stays flat while a gigabyte flows through.
 */
import { describe, expect, it } from "vitest";
import { tmpdir } from "node:os";
import v8 from "node:v8";
import vm from "node:vm";
import { TerminalManager } from "../../src/terminals/terminal-manager.js";

const MiB = 1024 * 1024;

/**
 * Full garbage collections (the flag is not on in test workers; it can be set at run time).
 * Twice, with a turn of the event loop between: buffers are freed by a later pass.
 */
async function collect(): Promise<void> {
  v8.setFlagsFromString("--expose-gc");
  const gc = vm.runInNewContext("gc") as () => void;
  gc();
  await new Promise((r) => setTimeout(r, 10));
  gc();
}
const PATTERN = Buffer.from("héllo wörld\n"); // 14 bytes, two 2-byte characters

/** The last `n` bytes of PATTERN repeated over `total` bytes. */
function patternSuffix(total: number, n: number): Buffer {
  const out = Buffer.alloc(n);
  for (let i = 0; i < n; i++) out[i] = PATTERN[(total - n + i) % PATTERN.length]!;
  return out;
}

describe("terminal output cap", () => {
  it("1 GiB through a terminal with no outputByteLimit: 4 MiB kept, memory flat", { timeout: 60_000 }, async () => {
    const total = 1024 * MiB;
    const m = new TerminalManager();
    await collect();
    const before = process.memoryUsage();
    let peakRss = before.rss;
    let peakBuffers = before.arrayBuffers;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss);
      peakBuffers = Math.max(peakBuffers, now.arrayBuffers);
    }, 20);
    const t0 = performance.now();
    const t = m.create({ command: `yes 'héllo wörld' | head -c ${total}`, cwd: tmpdir() });
    expect(await t.exited).toEqual({ exitCode: 0, signal: null });
    await t.outputEnded;
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    await collect();
    const after = process.memoryUsage();

    const kept = Buffer.from(t.output());
    expect(t.truncated).toBe(true);
    expect(kept.length).toBeLessThanOrEqual(4 * MiB);
    expect(kept.length).toBeGreaterThan(4 * MiB - 4);
    expect(kept.equals(patternSuffix(total, kept.length))).toBe(true); // starts on a character
    const mib = (n: number) => (n / MiB).toFixed(1);
    const keptAfterGc = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    console.log(
      `flood: ${total / MiB} MiB in ${seconds.toFixed(1)} s (${(total / MiB / seconds).toFixed(0)} MiB/s); ` +
        `peak growth: rss +${mib(peakRss - before.rss)} MiB, buffers +${mib(peakBuffers - before.arrayBuffers)} MiB; ` +
        `held after gc: +${mib(keptAfterGc)} MiB (heap +${mib(after.heapUsed - before.heapUsed)}, buffers +${mib(after.arrayBuffers - before.arrayBuffers)})`,
    );
    // What stays is the 4 MiB kept plus block slack; the pipe's chunks are garbage as they come.
    expect(keptAfterGc).toBeLessThan(12 * MiB);
    // Retaining the flood would take 1024 MiB; uncollected chunks between collections are what
    // may pile up at the peak.
    expect(peakRss - before.rss).toBeLessThan(256 * MiB);
  });

  it("the agent's limit applies below the cap, the cap above it", async () => {
    const m = new TerminalManager(undefined, { outputCapBytes: 1000 });
    const cmd = `yes 'héllo wörld' | head -c 100000`;
    const huge = m.create({ command: cmd, cwd: tmpdir(), outputByteLimit: 2 ** 40 });
    const small = m.create({ command: cmd, cwd: tmpdir(), outputByteLimit: 100 });
    const none = m.create({ command: cmd, cwd: tmpdir() });
    await Promise.all([huge, small, none].map((t) => t.outputEnded));
    for (const [t, limit] of [
      [huge, 1000],
      [small, 100],
      [none, 1000],
    ] as const) {
      const kept = Buffer.from(t.output());
      expect(t.truncated).toBe(true);
      expect(kept.length).toBeLessThanOrEqual(limit);
      expect(kept.length).toBeGreaterThan(limit - 4);
      expect(kept.equals(patternSuffix(100000, kept.length))).toBe(true);
    }
  });
});
