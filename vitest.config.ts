import { readdirSync } from "node:fs";
import { defineConfig } from "vitest/config";

/** Unit tests that run Neovim: they belong to the Neovim lane, not to `npm run test:unit`. */
const NEEDS_NVIM = ["test/unit/lua-specs.test.ts", "test/unit/doc-help.test.ts"];
const UNIT = readdirSync("test/unit")
  .filter((f) => f.endsWith(".test.ts"))
  .map((f) => `test/unit/${f}`)
  .filter((f) => !NEEDS_NVIM.includes(f));

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end tests start Neovim and agents: two cores, so keep the fan-out modest.
    maxWorkers: 2,
    fileParallelism: true,
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
