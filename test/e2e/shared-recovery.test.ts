/**
 * The harness's shared Neovim (test/support/shared-nvim.ts) recovers from a Neovim that stopped
 * answering: it is killed and dropped within the harness's answer time, and the next test gets a
 * fresh one at once instead of waiting out its whole timeout on the dead one (daily-wear in
 * shared mode lost 8 tests x 60 s that way). Drives acquire/release directly, as chat.ts does.
 */
import { describe, expect, it } from "vitest";
import { nvimBins, type TestNvim } from "../support/nvim.js";
import { acquire, answerWithin, release, shareNvim } from "../support/shared-nvim.js";

const bins = nvimBins();
process.env.ACPCHAT_SHARE_NVIM = "1";
shareNvim();
const ANSWER_MS = 3000;
answerWithin(ANSWER_MS);

/** Neovim's main loop stops (as in a blocking prompt): it answers nothing more. */
const hang = (t: TestNvim) => t.lua("vim.schedule(function() while true do end end)");
const gone = (t: TestNvim) => t.proc.exitCode !== null || t.proc.signalCode !== null;

describe.each(bins)("Neovim $version", (bin) => {
  it("a shared Neovim that stops answering during a test is dropped at the reset, and the next test gets a fresh one", async () => {
    const a = (await acquire(bin, {}, {}, undefined))!;
    expect(a).toBeDefined();
    await hang(a);
    const t0 = Date.now();
    await expect(release(a, false)).rejects.toThrow(/did not answer/);
    // Within the answer time and the kill, not a test's timeout.
    expect(Date.now() - t0).toBeLessThan(ANSWER_MS + 5000);
    await expect.poll(() => gone(a), { timeout: 5000 }).toBe(true);
    const b = (await acquire(bin, {}, {}, undefined))!;
    expect(b.proc.pid).not.toBe(a.proc.pid);
    expect(await b.lua<number>("return 1 + 1")).toBe(2);
    expect(await release(b, false)).toBe(true);
  });

  it("one that stops answering between tests: the next test starts its own Neovim promptly", async () => {
    const a = (await acquire(bin, {}, {}, undefined))!;
    expect(await release(a, false)).toBe(true);
    await hang(a);
    const t0 = Date.now();
    // undefined: the caller (chat.ts's nvim()) starts a Neovim of its own.
    expect(await acquire(bin, {}, {}, undefined)).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(ANSWER_MS + 5000);
    await expect.poll(() => gone(a), { timeout: 5000 }).toBe(true);
    // And the one after that shares a fresh Neovim again.
    const b = (await acquire(bin, {}, {}, undefined))!;
    expect(b.proc.pid).not.toBe(a.proc.pid);
    expect(await release(b, false)).toBe(true);
  });
});
