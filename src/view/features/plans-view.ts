/** A plan by id as the transcript shows it (src/session/features/plans.ts), for lua/acpchat/features/plans.lua. */
import { oneLine } from "../../session/one-line.js";
import type { FeatureBlock } from "../../session/features/blocks.js";

export interface PlanDocView {
  id: string;
  type: "plan_doc";
  planId: string;
  kind: string;
  entries: { content: string; status: string; priority: string }[];
  markdown?: string;
  location?: string;
  removed?: boolean;
  /** Entries (or markdown lines) past the most shown (PLAN_ROWS). */
  more?: number;
}

/** The most plan entries (or markdown lines) drawn: a plan is redrawn whole at each update. */
export const PLAN_ROWS = 200;

export function planDocView(b: Extract<FeatureBlock, { type: "plan_doc" }>): PlanDocView {
  const md = b.markdown === undefined ? undefined : firstLines(b.markdown, PLAN_ROWS);
  const more = Math.max(0, b.entries.length - PLAN_ROWS) + (md?.more ?? 0);
  return {
    id: b.id,
    type: "plan_doc",
    planId: oneLine(b.planId, 80),
    kind: b.kind,
    entries: b.entries
      .slice(0, PLAN_ROWS)
      .map((e) => ({ content: oneLine(e.content, 500), status: e.status, priority: e.priority })),
    markdown: md?.text,
    location: b.location === undefined ? undefined : oneLine(b.location, 300),
    removed: b.removed || undefined,
    more: more > 0 ? more : undefined,
  };
}

/** The first `max` lines of `s`, and how many more there were. */
function firstLines(s: string, max: number): { text: string; more: number } {
  let at = -1;
  for (let n = 0; n < max; n++) {
    at = s.indexOf("\n", at + 1);
    if (at < 0) return { text: s, more: 0 };
  }
  let more = 1;
  for (let i = s.indexOf("\n", at + 1); i >= 0; i = s.indexOf("\n", i + 1)) more++;
  return { text: s.slice(0, at), more };
}
