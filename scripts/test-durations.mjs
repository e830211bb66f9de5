// Writes test/durations.json (each test file's run time, ms) from the JSON report of a whole run
// (.cache/vitest-results.json, written by `npm test`). vitest.config.ts starts the slowest files
// first from it, so the two workers end together: a fresh clone has no vitest cache to go by.
import { readFileSync, writeFileSync } from "node:fs";

const root = new URL("..", import.meta.url).pathname;
const report = JSON.parse(readFileSync(`${root}.cache/vitest-results.json`, "utf8"));
const durations = Object.fromEntries(
  report.testResults
    // Paths from the repository's root (test/...), whichever checkout ran the report.
    .map((f) => [f.name.slice(f.name.lastIndexOf("/test/") + 1), Math.round((f.endTime - f.startTime) / 100) * 100])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(`${root}test/durations.json`, `${JSON.stringify(durations, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(durations).length} files`);
