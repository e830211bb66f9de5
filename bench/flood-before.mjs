// Figures of bench/flood-stream.mjs from earlier runs, printed by bench/run.mjs beside the current
// ones; each ratio (plugin / baseline, host CPU / baseline CPU) is from one run, so ratios compare.
// FIRST: before any work on streaming speed, the plugin at commit 16bbc73, measured with this bench
// (commit 72b8e33) on the machine of bench/RESULTS.md.
export const FIRST = {
  ui: [
    { chunks: 20000, long: false, pluginMs: 91, baseMs: 41, ratio: 2.21, hostCpuMs: 92, nvimCpuMs: 8, baseCpuMs: 44, cpuRatio: 2.09, p99: 2.46, max: 2.46 },
    { chunks: 20000, long: true, pluginMs: 104, baseMs: 44, ratio: 2.34, hostCpuMs: 100, nvimCpuMs: 14, baseCpuMs: 31, cpuRatio: 3.28, p99: 4.12, max: 4.12 },
    { chunks: 200000, long: false, pluginMs: 1244, baseMs: 305, ratio: 4.08, hostCpuMs: 1184, nvimCpuMs: 66, baseCpuMs: 248, cpuRatio: 4.77, p99: 4.1, max: 9.83 },
    { chunks: 200000, long: true, pluginMs: 1257, baseMs: 254, ratio: 4.95, hostCpuMs: 1193, nvimCpuMs: 449, baseCpuMs: 218, cpuRatio: 5.47, p99: 17.75, max: 34.04 },
  ],
  headless: [
    { chunks: 20000, long: false, pluginMs: 98, baseMs: 40, ratio: 2.46, hostCpuMs: 96, nvimCpuMs: 6, baseCpuMs: 43, cpuRatio: 2.24, p99: 4.49, max: 4.49 },
    { chunks: 20000, long: true, pluginMs: 92, baseMs: 35, ratio: 2.65, hostCpuMs: 85, nvimCpuMs: 11, baseCpuMs: 33, cpuRatio: 2.58, p99: 6.78, max: 6.78 },
    { chunks: 200000, long: false, pluginMs: 1259, baseMs: 268, ratio: 4.7, hostCpuMs: 1210, nvimCpuMs: 56, baseCpuMs: 219, cpuRatio: 5.52, p99: 5.91, max: 13.41 },
    { chunks: 200000, long: true, pluginMs: 1261, baseMs: 252, ratio: 5.01, hostCpuMs: 1142, nvimCpuMs: 437, baseCpuMs: 223, cpuRatio: 5.12, p99: 17.32, max: 23.04 },
  ],
};

// BEFORE: the plugin at commit c6f0e65 (bench/RESULTS.md of that commit: trace written in
// batches, faster redaction, appends at the end of the line), before text chunks were coalesced.
export const BEFORE = {
  ui: [
    { chunks: 20000, long: false, pluginMs: 80, baseMs: 41, ratio: 1.96, hostCpuMs: 91, nvimCpuMs: 8, baseCpuMs: 39, cpuRatio: 2.35, p99: 2.8, max: 2.8 },
    { chunks: 20000, long: true, pluginMs: 92, baseMs: 38, ratio: 2.4, hostCpuMs: 103, nvimCpuMs: 14, baseCpuMs: 35, cpuRatio: 2.94, p99: 3.9, max: 3.9 },
    { chunks: 200000, long: false, pluginMs: 1121, baseMs: 264, ratio: 4.25, hostCpuMs: 1185, nvimCpuMs: 79, baseCpuMs: 236, cpuRatio: 5.03, p99: 6.2, max: 8.9 },
    { chunks: 200000, long: true, pluginMs: 934, baseMs: 249, ratio: 3.76, hostCpuMs: 978, nvimCpuMs: 191, baseCpuMs: 219, cpuRatio: 4.46, p99: 9.8, max: 22.5 },
  ],
  headless: [
    { chunks: 20000, long: false, pluginMs: 90, baseMs: 42, ratio: 2.16, hostCpuMs: 82, nvimCpuMs: 8, baseCpuMs: 38, cpuRatio: 2.15, p99: 2.7, max: 2.7 },
    { chunks: 20000, long: true, pluginMs: 107, baseMs: 47, ratio: 2.25, hostCpuMs: 110, nvimCpuMs: 13, baseCpuMs: 44, cpuRatio: 2.51, p99: 3.2, max: 3.2 },
    { chunks: 200000, long: false, pluginMs: 1093, baseMs: 264, ratio: 4.14, hostCpuMs: 1201, nvimCpuMs: 65, baseCpuMs: 214, cpuRatio: 5.61, p99: 4.2, max: 12.0 },
    { chunks: 200000, long: true, pluginMs: 1065, baseMs: 249, ratio: 4.28, hostCpuMs: 1087, nvimCpuMs: 288, baseCpuMs: 210, cpuRatio: 5.19, p99: 11.3, max: 31.4 },
  ],
};
