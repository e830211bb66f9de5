#!/usr/bin/env node
// A stand-in for the plugin's node host, for the test that the host's exit takes every process
// tree with it. Loads the bundle built by the test (argv[2]), starts a terminal and an agent that
// each run the daemon script (argv[3]) with their own pid directory (argv[4]/term, argv[4]/agent),
// waits until every daemon wrote its pid, then exits without killing anything itself.
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";

const [bundle, script, dir] = process.argv.slice(2);
const { TerminalManager, AgentProcess } = createRequire(import.meta.url)(bundle);
const names = ["leader", "setsid", "setsid-f", "double", "daemon", "nohup"];

new TerminalManager().create({ command: `sh '${script}' '${dir}/term' wait`, cwd: dir });
new AgentProcess({ command: "sh", args: [script, `${dir}/agent`, "cat"], cwd: dir });

const ready = (d) => names.every((n) => existsSync(`${d}/${n}`) && readFileSync(`${d}/${n}`, "utf8").trim() !== "");
const timer = setInterval(() => {
  if (ready(`${dir}/term`) && ready(`${dir}/agent`)) {
    clearInterval(timer);
    process.exit(0);
  }
}, 20);
