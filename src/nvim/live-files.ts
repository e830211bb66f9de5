/**
 * LiveFiles (src/checkpoints/apply.ts) on Neovim: a file's loaded buffer through the bridge's
 * buffer primitives (contract.ts `buffer*` requests), which answer at once.
 */
import type { LiveFiles } from "../checkpoints/apply.js";
import { diffTexts, editsFor, allHunks } from "../workspace/hunks.js";
import type { Text } from "../workspace/text-codec.js";
import { bufferText, type BufferState } from "../workspace/write-plan.js";
import type { Bridge } from "./bridge.js";
import { readBuffer } from "./buffer-reader.js";

export function liveFiles(bridge: Bridge): LiveFiles {
  return {
    async buffer(path) {
      const r = await readBuffer(bridge, path);
      if (!r.loaded) return undefined;
      const { loaded: _, lineCount: __, ...b } = r;
      const state = b as BufferState;
      return { modified: state.modified, text: bufferText(state), tick: state.tick };
    },
    async setBuffer(path: string, tick: number, from: Text, to: Text, save: boolean) {
      const d = diffTexts(from, to, { maxEdits: 20_000, timeoutMs: 500 });
      const edits =
        from.lines.length === 0 ? [{ start: 0, end: 1, lines: to.lines }] : editsFor(to, d.hunks, allHunks(d.hunks));
      const eol = to.eol !== from.eol && to.lines.length > 0 ? to.eol : undefined;
      const r = await bridge.request("bufferApply", { path, tick, edits, eol });
      if (r.result !== "applied") return "changed";
      if (!save) return "done";
      const s = await bridge.request("bufferSave", { path, tick: r.tick });
      return s.result === "saved" ? "done" : "not_saved";
    },
    async reload(path) {
      await bridge.request("bufferReload", { path });
    },
  };
}
