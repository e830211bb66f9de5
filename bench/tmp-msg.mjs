import { spawn } from "node:child_process";
import { attach } from "neovim";
import { pinger } from "./nvim.mjs";
async function main() {
const sock = `/tmp/26a-msg-${process.pid}.sock`;
const proc = spawn(process.env.NVIM, ["--embed", "--headless", "-u", "NONE", "-i", "NONE", "-n", "--listen", sock], { stdio: ["pipe", "pipe", "inherit"] });
const nvim = attach({ proc });
await nvim.eval("1");
const second = attach({ socket: sock });
await second.eval("1");
for (const mb of [1, 4, 12, 24]) {
  const s = "x".repeat(mb * 1048576);
  const stop = pinger(second);
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  nvim.notify("nvim_exec_lua", ["_G.got = #(...)", [s]]);
  while (!(await nvim.lua("return _G.got"))) await new Promise((r) => setTimeout(r, 2));
  const dt = performance.now() - t0;
  await nvim.lua("_G.got = nil");
  const p = await stop();
  process.stderr.write(`${mb} MB event: ${dt.toFixed(0)} ms to arrive, longest block ${p.max.toFixed(1)} ms` + "\n");
}
proc.kill();
process.exit(0);
}
main();
