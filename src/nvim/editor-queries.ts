/**
 * Questions to the editor itself (not to the user) for the editor's MCP tools: the
 * `editorQuery` event carries a key, and lua/acpchat/editor/editor_tools.lua answers later with the
 * `editorAnswer` call (language servers answer asynchronously; nothing waits in Lua). An
 * aborted query (time limit, chat closed) is forgotten; a late answer is dropped.
 */
import type { RawResult } from "../editor-tools/format.js";
import type { ToolName } from "../editor-tools/tools.js";
import type { Bridge } from "./bridge.js";

interface Pending {
  chat: number;
  resolve: (r: RawResult) => void;
  reject: (e: Error) => void;
}

export class EditorQueries {
  private readonly pending = new Map<string, Pending>();
  private next = 0;

  constructor(private readonly bridge: Bridge) {}

  query(chat: number, tool: ToolName, args: Record<string, unknown>, signal: AbortSignal): Promise<RawResult> {
    const key = `q${chat}:${this.next++}`;
    return new Promise<RawResult>((resolve, reject) => {
      this.pending.set(key, { chat, resolve, reject });
      signal.addEventListener("abort", () => this.pending.delete(key), { once: true });
      this.bridge.emit("editorQuery", { chat, key, tool, argsJson: JSON.stringify(args) });
    });
  }

  /** Lua's answer; false when nobody waits for it any more. */
  answer(key: string, valueJson: string | undefined, error: string | undefined): boolean {
    const p = this.pending.get(key);
    if (!p) return false;
    this.pending.delete(key);
    if (error !== undefined) p.reject(new Error(error));
    else {
      try {
        p.resolve((valueJson ? JSON.parse(valueJson) : {}) as RawResult);
      } catch {
        p.reject(new Error("the editor's answer was not JSON"));
      }
    }
    return true;
  }

  /** A chat closed: its queries end. */
  dropAll(chat: number): void {
    for (const [key, p] of this.pending) {
      if (p.chat !== chat) continue;
      this.pending.delete(key);
      p.reject(new Error("the chat closed"));
    }
  }
}
