/**
 * A subagent's block as the transcript shows it (src/session/features/subagents.ts): its header
 * and the last of its child's blocks, nested; lua/acpchat/features/subagents.lua draws it.
 */
import { oneLine } from "../../session/one-line.js";
import type { FeatureBlock } from "../../session/features/blocks.js";
import type { ViewHelpers } from "./view-helpers.js";

export interface SubagentView {
  id: string;
  type: "subagent";
  sessionId: string;
  title?: string;
  description?: string;
  state?: string;
  stopReason?: string;
  /** The client may cancel the child's work (session/cancel with its id). */
  canCancel?: boolean;
  /** The child's transcript, as block views (turn and reply headers left out: the child has no "You"). */
  blocks: unknown[];
  /** Earlier blocks of the child not sent here (its own view shows them). */
  hidden?: number;
  /** Drawn inside another subagent's block (gs there opens the outer one: no hint of it). */
  nested?: boolean;
}

/** The child's blocks shown nested in the parent's transcript; its own view shows them all. */
export const NESTED_BLOCKS = 30;
/** The lines of each text block of the child shown nested (its last ones): the block is redrawn whole as the child streams. */
export const NESTED_LINES = 20;
/**
 * The same for a child's child (and deeper): without them a wide tree of subagents made one
 * block of over 10,000 lines (30 shown children of 30 blocks), redrawn whole at each update.
 */
export const INNER_BLOCKS = 3;
export const INNER_LINES = 5;

/**
 * How many subagents deep a view nests children's transcripts; a deeper child is its header and
 * a count (its own view shows it). Each level nests the message to Neovim deeper, and Neovim's
 * msgpack reader drops the channel past 32 levels (12 nested subagents ended the host).
 */
export const NESTED_DEPTH = 3;
/** How deep the view being built is (views are built synchronously, so one counter serves). */
let nesting = 0;

/** A nested text view cut to its last `max` lines, saying how many came before. */
function tailView(v: unknown, max: number): unknown {
  const t = v as { text?: unknown };
  if (typeof t.text !== "string") return v;
  // Only the end matters: find the start of the last `max` lines from the end.
  let at = t.text.length;
  for (let n = 0; n < max; n++) {
    at = t.text.lastIndexOf("\n", at - 1);
    if (at < 0) return v;
  }
  let earlier = 1;
  for (let i = t.text.indexOf("\n"); i >= 0 && i < at; i = t.text.indexOf("\n", i + 1)) earlier++;
  return { ...t, text: `… (${earlier} earlier line${earlier === 1 ? "" : "s"})${t.text.slice(at)}` };
}

/** A child transcript's blocks as views, without the turn and reply headers; the last `max` when given. */
export function childViews(
  blocks: readonly unknown[],
  h: ViewHelpers,
  max?: number,
): { views: unknown[]; hidden: number } {
  const shown = blocks.filter((b) => {
    const t = (b as { type: string }).type;
    return t !== "turn" && t !== "reply";
  });
  const from = max === undefined ? 0 : Math.max(0, shown.length - max);
  nesting++;
  let views: unknown[];
  try {
    views = shown.slice(from).map((b) => h.blockView(b as never));
  } finally {
    nesting--;
  }
  const lines = nesting === 0 ? NESTED_LINES : INNER_LINES;
  return { views: max === undefined ? views : views.map((v) => tailView(v, lines)), hidden: from };
}

export function subagentBlockView(b: Extract<FeatureBlock, { type: "subagent" }>, h: ViewHelpers): SubagentView {
  const deep = nesting >= NESTED_DEPTH;
  const { views, hidden } = deep
    ? {
        views: [],
        hidden: b.blocks.filter((x) => !["turn", "reply"].includes((x as { type: string }).type)).length,
      }
    : childViews(b.blocks, h, nesting === 0 ? NESTED_BLOCKS : INNER_BLOCKS);
  return {
    id: b.id,
    type: "subagent",
    sessionId: oneLine(b.sessionId, 120),
    title: b.title === undefined ? undefined : oneLine(b.title, 200),
    description: b.description,
    state: b.state === undefined ? undefined : oneLine(b.state.state, 40),
    stopReason: b.state?.stopReason === undefined ? undefined : oneLine(b.state.stopReason, 40),
    canCancel: b.canCancel,
    blocks: views,
    hidden: hidden > 0 ? hidden : undefined,
    nested: nesting > 0 || undefined,
  };
}
