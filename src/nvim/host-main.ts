/**
 * The Node host Lua starts (lua/acpchat/host/bridge.lua): the node client's own host, as its
 * `neovim/bin/cli.js` runs it, bundled into dist/host.cjs with winston replaced by
 * host-logger.ts (scripts/build.mjs). One file read instead of ~120 modules resolved and read,
 * and no winston: about half of what `require("neovim")` cost each host's start. The host then
 * loads the remote plugin (rplugin/node/acpchat -> dist/acpchat.cjs) with require(), as before.
 */
import { Decoder } from "@msgpack/msgpack";
import { NeovimClient } from "neovim/lib/api/client.js";
import { Host } from "neovim/lib/host/index.js";
import { growUnreadInPlace } from "./msgpack-append.js";

/** The client's stream decoder copies a long message once per read; it grows it in place instead. */
growUnreadInPlace(Decoder);

/**
 * The client asks Neovim for `nvim_get_api_info` at attach and keeps only the channel id from it:
 * the whole API's metadata crossed the pipe and was decoded at every start (~50 ms of CPU, a
 * cold msgpack decoder). `nvim_get_chan_info(0)` gives the same id. Its transport is the
 * client's own (a request through the client would wait for the very readiness this makes).
 */
type Requester = { request(method: string, args: unknown[], cb: (err: unknown, res: unknown) => void): void };
NeovimClient.prototype.requestApi = function requestApi(this: NeovimClient): Promise<unknown[]> {
  const { transport } = this as unknown as { transport: Requester };
  return new Promise((resolve, reject) =>
    transport.request("nvim_get_chan_info", [0], (err, info) =>
      err ? reject(err) : resolve([(info as { id: number }).id]),
    ),
  );
};

try {
  void new Host().start({ proc: process });
} catch (err) {
  const e = err as Error;
  process.stderr.write(`failed to start Nvim plugin host: ${e.name}: ${e.message}\n`);
}

process.on("unhandledRejection", (reason, p) => {
  process.stderr.write(`Unhandled Rejection at: ${String(p)} reason: ${String(reason)}\n`);
});
