/**
 * The remote plugin's entry, loaded by the neovim node host (`rplugin/node/acpchat`).
 * It registers two functions, the whole surface Lua needs:
 *   AcpChatRequest(method, params)  sync: returns a value (open, send, status, …)
 *   AcpChatNotify(method, params)   async: fire and forget (answers to questions, …)
 * The specs are mirrored in lua/acpchat/rplugin_specs.lua (written by the build, checked by a test).
 */
import type { NvimPlugin } from "neovim";
import { ChatHost } from "./chat-host.js";

export const FUNCTION_SPECS = [
  { name: "AcpChatRequest", sync: true },
  { name: "AcpChatNotify", sync: false },
] as const;

export default function acpchat(plugin: NvimPlugin): void {
  plugin.setOptions({ dev: false });
  const host = new ChatHost(plugin.nvim);
  const dispatch = (args: unknown[]) => {
    const [method, params] = args as [string, Record<string, unknown> | undefined];
    return host.dispatch(method, params ?? {});
  };
  plugin.registerFunction("AcpChatRequest", (args: unknown[]) => dispatch(args), { sync: true });
  plugin.registerFunction(
    "AcpChatNotify",
    (args: unknown[]) => {
      void Promise.resolve(dispatch(args)).catch((e) => host.report(e));
    },
    { sync: false },
  );
}
