/**
 * Diff figures for the transcript and permission questions: the counts of the same bounded
 * hunks a review uses (src/workspace/hunks.ts), cached per content so a render never diffs
 * twice. The cache is keyed by the strings themselves (the tool call keeps them), whose hashes
 * V8 keeps: a lookup costs no rescan of the text.
 */
import { existsSync } from "node:fs";
import { diffTexts } from "../workspace/hunks.js";
import { splitText } from "../workspace/text-codec.js";
import type { DiffFigures } from "../wire/index.js";

/** A diff's figures (`isNew`: the file did not exist when this diff was first seen; agents send no old text for edits too). */
export type DiffSummary = Omit<DiffFigures, "path">;

const MAX_ENTRIES = 64;
const cache = new Map<string, Map<string, DiffSummary>>();
const NO_OLD = "\u0000(none)";

/**
 * Old sides found for diffs sent without one (src/nvim/nvim-port.ts reads the file when such a
 * diff arrives): by path, then new text. The figures then count the real change, not a whole
 * file added.
 */
const knownOld = new Map<string, Map<string, string>>();

/** The file's text before the diff (oldText null) to `newText` of `path`. */
export function rememberOldSide(path: string, newText: string, oldText: string): void {
  let inner = knownOld.get(path);
  if (!inner) {
    inner = new Map();
    knownOld.set(path, inner);
    if (knownOld.size > MAX_ENTRIES) knownOld.delete(knownOld.keys().next().value!);
  }
  inner.set(newText, oldText);
  if (inner.size > 8) inner.delete(inner.keys().next().value!);
}

export function summarizeDiff(oldText: string | null | undefined, newText: string, path?: string): DiffSummary {
  if (oldText == null && path !== undefined) oldText = knownOld.get(path)?.get(newText) ?? oldText;
  const oldKey = oldText ?? NO_OLD + (path ?? "");
  let inner = cache.get(oldKey);
  const hit = inner?.get(newText);
  if (hit) {
    // Most recently used last.
    cache.delete(oldKey);
    cache.set(oldKey, inner!);
    return hit;
  }
  const d = diffTexts(splitText(oldText ?? ""), splitText(newText));
  // No old text: a new file, or an agent that leaves it out for edits (claude-code-acp's Write,
  // and its edit results that only add lines). Whether the file existed decides, when first seen.
  const isNew = oldText == null && !(path !== undefined && existsSync(path));
  const summary = { added: d.added, removed: d.removed, isNew };
  if (!inner) {
    inner = new Map();
    cache.set(oldKey, inner);
    if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
  }
  inner.set(newText, summary);
  return summary;
}
