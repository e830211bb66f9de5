/**
 * Node's side of the contract (contract.ts): events to Lua and the buffer requests, each through
 * one entry point in lua/acpchat/host/bridge.lua, with values converted once (wire.ts).
 */
import type { Neovim } from "neovim";
import type { NodeEvent, NodeEvents, NodeRequest, NodeRequests } from "./contract.js";
import { fromWire, toWire, wireName } from "./wire.js";

export class Bridge {
  constructor(private readonly nvim: Neovim) {}

  /** Fire and forget: Lua draws it when it can. */
  emit<E extends NodeEvent>(event: E, payload: NodeEvents[E]): void {
    try {
      this.nvim.notify("nvim_exec_lua", ['require("acpchat.host.bridge").receive(...)', [wireName(event), toWire(payload)]]);
    } catch {
      // Neovim is gone; the host shuts down.
    }
  }

  /** A buffer primitive: Lua answers at once (it never waits on the user). */
  async request<R extends NodeRequest>(method: R, params: NodeRequests[R]["params"]): Promise<NodeRequests[R]["result"]> {
    const res = await this.nvim.lua('return require("acpchat.host.bridge").answer(...)', [wireName(method), toWire(params)] as never[]);
    return fromWire<NodeRequests[R]["result"]>(res);
  }
}
