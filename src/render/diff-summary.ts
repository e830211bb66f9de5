/** Line-level diff figures and hunks, computed with the `diff` package. */
import { diffLines, structuredPatch } from "diff";

export interface DiffSummary {
  added: number;
  removed: number;
}

export function summarizeDiff(oldText: string | null | undefined, newText: string): DiffSummary {
  let added = 0;
  let removed = 0;
  for (const part of diffLines(oldText ?? "", newText)) {
    if (part.added) added += part.count ?? 0;
    else if (part.removed) removed += part.count ?? 0;
  }
  return { added, removed };
}

export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export function hunks(oldText: string, newText: string): Hunk[] {
  return structuredPatch("a", "b", oldText, newText, "", "", { context: 0 }).hunks;
}
