import { readdirSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** Unit tests that run Neovim: they belong to the Neovim lane, not to `npm run test:unit`. */
const NEEDS_NVIM = ["test/unit/lua-specs.test.ts", "test/unit/doc-help.test.ts"];
const UNIT = readdirSync("test/unit")
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `test/unit/${f}`)
  .filter((f) => !NEEDS_NVIM.includes(f));

/**
 * The slowest files start first (times of a whole run: test/durations.json, written by
 * scripts/test-durations.mjs), across both projects, so the two workers end together instead of
 * one waiting out a long file picked last. Files not listed yet go first: they may be slow.
 * vitest's own order needs its cache, which a fresh clone (CI) does not have.
 */
const DURATIONS: Record<string, number> = JSON.parse(readFileSync("test/durations.json", "utf8"));
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ms = (f: TestSpecification) => DURATIONS[relative(this.ctx.config.root, f.moduleId)] ?? Infinity;
    return [...files].sort((a, b) => ms(b) - ms(a) || 0);
  }
}

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end tests start Neovim and agents: two cores, so keep the fan-out modest.
    maxWorkers: 2,
    fileParallelism: true,
    sequence: { sequencer: SlowestFirst },
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", ["json", { outputFile: ".cache/vitest-results.json" }]],
    // Two lanes: `vitest run --project unit` (no Neovim, no build) and `--project nvim` (the rest).
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          // A test here that starts Neovim fails at once instead of finding one.
          env: { NVIM_BINS: "/the-unit-lane-has-no-neovim" },
        },
      },
      { extends: true, test: { name: "nvim", include: ["test/**/*.test.ts"], exclude: UNIT } },
    ],
  },
});
