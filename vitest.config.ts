import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // End-to-end tests start Neovim and agents: two cores, so keep the fan-out modest.
    maxWorkers: 2,
    fileParallelism: true,
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", ["json", { outputFile: ".cache/vitest-results.json" }]],
  },
});
