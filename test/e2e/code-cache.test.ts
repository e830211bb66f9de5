/**
 * The host's V8 code cache (src/nvim/code-cache.ts), in a real Neovim with its real host: a host
 * started from a built checkout loads the bundle from dist/acpchat.cjs.v8cache (the ping says so,
 * and so does :checkhealth acpchat); a damaged or stale cache beside the bundle is refused, the host
 * still starts and answers, writes its own cache to stdpath("cache")/acpchat, and the next host
 * loads from that one.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkoutCopy, scratchDir } from "../support/checkout-copy.js";
import { nvimBins, ROOT, startNvim, type TestNvim } from "../support/nvim.js";

interface Ping {
  pid: number;
  code_cache: { used: boolean; file?: string; why: string };
}

const scratch = scratchDir("acpchat-codecache-");
let open: TestNvim[] = [];
afterEach(async () => {
  for (const t of open) await t.quit();
  open = [];
});

/** An init that puts `root`'s plugin on the runtimepath (test/nvim/init.lua's, for a copy). */
function initFor(root: string): string {
  const init = join(scratch, `init-${Math.random().toString(36).slice(2)}.lua`);
  writeFileSync(
    init,
    `vim.opt.rtp:prepend(${JSON.stringify(root)})\nvim.opt.swapfile = false\nvim.cmd("runtime plugin/acpchat.lua")\n`,
  );
  return init;
}

async function ping(t: TestNvim): Promise<Ping> {
  return t.lua<Ping>("return require('acpchat.host.bridge').call_sync('ping', {}, 10000)");
}

describe.each(nvimBins())("nvim $version", (bin) => {
  it("a built checkout's host loads the bundle from its code cache; :checkhealth says so", async () => {
    const t = await startNvim(bin, {});
    open.push(t);
    const res = await ping(t);
    expect(res.code_cache).toMatchObject({ used: true, file: join(ROOT, "dist/acpchat.cjs.v8cache") });
    await t.nvim.command("checkhealth acpchat");
    const health = (await t.lines(0)).join("\n");
    expect(health).toContain(`code cache: ${join(ROOT, "dist/acpchat.cjs.v8cache")}`);
  });

  it.each(["damaged", "stale"])(
    "a %s cache is refused, the host starts; its own cache serves the next",
    async (how) => {
      const copy = checkoutCopy(join(scratch, `${bin.version}-${how}`));
      const beside = join(copy, "dist/acpchat.cjs.v8cache");
      if (how === "damaged") {
        const raw = readFileSync(beside);
        for (let i = raw.length - 4096; i < raw.length; i += 7) raw[i] = raw[i]! ^ 0x5a;
        writeFileSync(beside, raw);
      } else {
        // A rebuilt bundle (one byte changed, same length: V8 alone would take the old cache).
        const bundle = join(copy, "dist/acpchat.cjs");
        const text = readFileSync(bundle, "latin1");
        expect(text.startsWith('"use strict";')).toBe(true);
        writeFileSync(bundle, `'use strict';${text.slice(13)}`, "latin1");
      }
      const init = initFor(copy);
      const first = await startNvim(bin, {}, {}, init);
      open.push(first);
      const a = await ping(first);
      expect(a.code_cache.used).toBe(false);
      expect(a.code_cache.why).toContain(how === "damaged" ? "is damaged" : "made for another bundle or Node");
      const userDir = join(first.dir, "cache/nvim/acpchat");
      expect(a.code_cache.file?.startsWith(userDir)).toBe(true);
      // The host writes it a few seconds after its start, off the first answers' way.
      await first.waitFor(
        async () => readdirSync(userDir).some((f) => f.endsWith(".v8cache")),
        "the user cache",
        20_000,
      );
      await first.lua("vim.fn.jobstop(require('acpchat.host.bridge').channel)");
      await first.waitFor(
        async () => (await first.lua<number | null>("return require('acpchat.host.bridge').channel")) === null,
        "host gone",
      );
      const b = await ping(first);
      expect(b.pid).not.toBe(a.pid);
      expect(b.code_cache).toMatchObject({ used: true, file: a.code_cache.file });
    },
  );
});
