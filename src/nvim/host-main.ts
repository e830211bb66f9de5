/**
 * The Node host Lua starts (lua/acpchat/host/bridge.lua): the node client's own host, as its
 * `neovim/bin/cli.js` runs it, bundled into dist/host.cjs with winston replaced by
 * host-logger.ts (scripts/build.mjs). One file read instead of ~120 modules resolved and read,
 * and no winston: about half of what `require("neovim")` cost each host's start. The host then
 * loads the remote plugin (rplugin/node/acpchat -> dist/acpchat.cjs) with require(), as before.
 */
import { Host } from "neovim/lib/host/index.js";

try {
  void new Host().start({ proc: process });
} catch (err) {
  const e = err as Error;
  process.stderr.write(`failed to start Nvim plugin host: ${e.name}: ${e.message}\n`);
}

process.on("unhandledRejection", (reason, p) => {
  process.stderr.write(`Unhandled Rejection at: ${String(p)} reason: ${String(reason)}\n`);
});
