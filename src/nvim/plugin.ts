/**
 * The remote plugin's entry, loaded by the neovim node host (`rplugin/node/acpchat`). Lua starts
 * that host itself, in the background, and calls one function: `AcpChatNotify([method, params,
 * ref])`, always as an RPC notification (contract.ts), so the editor never waits on the host.
 */
import type { NvimPlugin } from "neovim";
import { ChatHost } from "./chat-host.js";

// Whoever holds the editor's RPC address controls the editor: nothing this host starts (agents,
// terminals, sign-in commands) may inherit it.
for (const name of ["NVIM", "NVIM_LISTEN_ADDRESS"]) delete process.env[name];

export const FUNCTION_NAME = "AcpChatNotify";

export default function acpchat(plugin: NvimPlugin): void {
  plugin.setOptions({ dev: false });
  const host = new ChatHost(plugin.nvim);
  plugin.registerFunction(FUNCTION_NAME, (args: unknown[]) => host.receive(args), { sync: false });
}

// For the build, which writes the Lua mirror of the contract (lua/acpchat/host/contract.lua).
export { LUA_METHODS, NODE_EVENTS, NODE_REQUESTS } from "./contract.js";
