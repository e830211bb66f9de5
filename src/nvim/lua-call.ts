/** Calls from Node into the plugin's Lua modules. */
import type { Neovim } from "neovim";
import { toLua } from "./lua-value.js";

/**
 * Fire and forget: `require(module)[fn](...args)` as one nvim_exec_lua notification. Lua runs it
 * under pcall and shows an error, since a notification has nobody to report it to.
 */
export function notifyLua(nvim: Neovim, module: string, fn: string, args: unknown[]): void {
  try {
    nvim.notify("nvim_exec_lua", ['require("acpchat.util").safe_call(...)', [module, fn, ...toLua(args)]]);
  } catch {
    // Neovim is gone; the host shuts down.
  }
}

/** A request: resolves with what the Lua function returns; rejects with its error. */
export function requestLua<T>(nvim: Neovim, module: string, fn: string, args: unknown[]): Promise<T> {
  return nvim.lua(`return require(${JSON.stringify(module)}).${fn}(...)`, toLua(args) as never[]) as Promise<T>;
}
