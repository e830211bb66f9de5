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
      this.nvim.notify("nvim_exec_lua", [
        'require("acpchat.host.bridge").receive(...)',
        [wireName(event), toWire(payload)],
      ]);
    } catch {
      // Neovim is gone; the host shuts down.
    }
  }

  /**
   * Lines [first, last) of buffer `buf` if it is still at change tick `tick` (undefined when it
   * changed or went away): Neovim's own API in one atomic call, no Lua. Returning lines through
   * Lua makes a Lua string of each (a 15 MB buffer held the editor 1.5 s on a loaded machine);
   * this serializes them straight from the buffer (1.5-14 ms for the same 15 MB).
   */
  async bufferLines(buf: number, tick: number, first: number, last: number): Promise<string[] | undefined> {
    const calls = [
      ["nvim_buf_get_changedtick", [buf]],
      ["nvim_buf_get_lines", [buf, first, last, false]],
    ];
    const [results, err] = (await this.nvim.request("nvim_call_atomic", [calls])) as [unknown[], unknown];
    if (err || results[0] !== tick || !Array.isArray(results[1])) return undefined;
    return results[1] as string[];
  }

  /**
   * Lines [first, last) of buffer `buf` at change tick `tick` as one text joined with "\n";
   * undefined when it changed or went away, null when a line holds a NUL byte (a binary file:
   * readers refuse it, and bufferLines reads it as lines). One string per slice: the
   * node-client decodes every short string in JavaScript, and for a 10,000-line buffer that
   * decoding cost twice the rest of the read (bench/file-read.mjs: 14-16 ms of the host's CPU
   * per read as lines, 5-8 ms as one text, at load 8). Lua's strings cost the editor ~1 ms per
   * 10,000 lines and 4-8 ms for 15 MB (the slice keeps a request under a frame).
   */
  async bufferText(buf: number, tick: number, first: number, last: number): Promise<string | null | undefined> {
    const r = await this.nvim.request("nvim_exec_lua", [
      'return require("acpchat.host.bridge").buffer_text(...)',
      [buf, tick, first, last],
    ]);
    if (typeof r === "string") return r;
    return r === true ? null : undefined;
  }

  /** A buffer primitive: Lua answers at once (it never waits on the user). */
  async request<R extends NodeRequest>(
    method: R,
    params: NodeRequests[R]["params"],
  ): Promise<NodeRequests[R]["result"]> {
    const res = await this.nvim.lua('return require("acpchat.host.bridge").answer(...)', [
      wireName(method),
      toWire(params),
    ] as never[]);
    return fromWire<NodeRequests[R]["result"]>(res);
  }
}
