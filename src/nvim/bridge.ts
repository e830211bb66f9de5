/**
 * Node's side of the contract (contract.ts): events to Lua and the buffer requests, each through
 * one entry point in lua/acpchat/host/bridge.lua, with values converted once (wire.ts).
 */
import type { Neovim } from "neovim";
import type { NodeEvent, NodeEvents, NodeRequest, NodeRequests } from "./contract.js";
import { TextPipe } from "./text-pipe.js";
import { fromWire, toWire, wireName } from "./wire.js";

export class Bridge {
  /** Where buffer texts cross once Lua has connected (text-pipe.ts says why). */
  private readonly texts = new TextPipe();

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
   * Lines [first, last) of buffer `buf` at change tick `tick` as one text joined with "\n":
   * undefined when it changed or went away, null when a line holds a NUL byte (a binary file:
   * readers refuse it), false when the slice is too big to cross as one string (read it with
   * bufferLines; lua/acpchat/host/bridge.lua says why). One string per slice because the
   * node-client decodes every short string in JavaScript: for a 10,000-line buffer of 450 KB
   * that decoding cost twice the rest of the read (14-16 ms of the host's CPU as lines, 5-8 ms
   * as one text, at load 8). `numberFrom`: each line numbered as the agents' own read tools do
   * (`%6d\t`), the first as `numberFrom`. Once Lua has connected the text pipe (text-pipe.ts), the
   * text comes there and the RPC answer is only its length.
   */
  async bufferText(
    buf: number,
    tick: number,
    first: number,
    last: number,
    numberFrom?: number,
  ): Promise<string | null | false | undefined> {
    this.texts.open((path, token) =>
      this.nvim.request("nvim_exec_lua", ['require("acpchat.host.text_pipe").connect(...)', [path, token]]),
    );
    const frame = this.texts.nextFrame();
    const r = await this.nvim.request("nvim_exec_lua", [
      'return require("acpchat.host.bridge").buffer_text(...)',
      [buf, tick, first, last, numberFrom ?? null, frame ?? null],
    ]);
    // Sent on the pipe: its length in bytes. Lost there, the slice reads as changed (read again, over RPC).
    if (typeof r === "number" && frame !== undefined) return this.texts.take(frame, r);
    if (typeof r === "string" || r === false) return r;
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
