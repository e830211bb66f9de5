/**
 * The sweep of channel folders left by killed hosts (src/editor-tools/channel-dir.ts): only a
 * gone host's folders go, and it runs once per folder in the background, never on a chat's start.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sweepStale } from "../../src/editor-tools/channel-dir.js";

describe("sweepStale", () => {
  it("removes a gone host's folders in the background, once; keeps live hosts' and others'", async () => {
    const base = mkdtempSync(join(tmpdir(), "acpchat-sweep-test-"));
    // A pid that was a process and is gone now.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid!;
    const dirs = {
      gone: join(base, `acpchat-${gone}-abc123`),
      mine: join(base, `acpchat-${process.pid}-abc123`),
      live: join(base, `acpchat-${process.ppid}-abc123`),
      other: join(base, "acpchat-notes"),
    };
    for (const d of Object.values(dirs)) mkdirSync(d);
    const sweeping = sweepStale(base);
    // The call returned before anything was listed or removed: a chat's start does not wait.
    expect(existsSync(dirs.gone)).toBe(true);
    await sweeping;
    expect(Object.fromEntries(Object.entries(dirs).map(([k, d]) => [k, existsSync(d)]))).toEqual({
      gone: false,
      mine: true,
      live: true,
      other: true,
    });
    // Once per folder in this process: a later chat's start does not list it again.
    mkdirSync(dirs.gone);
    expect(sweepStale(base)).toBe(sweeping);
    await sweepStale(base);
    expect(existsSync(dirs.gone)).toBe(true);
  });

  it("a folder that cannot be listed is no error", async () => {
    await expect(sweepStale(join(tmpdir(), "acpchat-no-such-folder-here"))).resolves.toBeUndefined();
  });
});
