/**
 * The feature modules' blocks as the transcript shows them (src/session/features/ makes them;
 * lua/acpchat/transcript/features/ draws them): a plan by id, a child session nested under its block, and
 * a message between sessions. view-model.ts hands each such block to featureView.
 */
import { oneLine } from "../session/one-line.js";
import type { FeatureBlock } from "../session/blocks.js";
import type { BlockView, FeatureBlockView } from "../wire/index.js";

/**
 * What the subagent view gets from view-model.ts: its blockView, for the blocks a subagent's
 * block holds (the two recurse into each other, and this module does not import view-model.ts back).
 */
export interface ViewHelpers {
  blockView: (b: never) => BlockView;
}

export function featureView(b: FeatureBlock, h: ViewHelpers): FeatureBlockView {
  switch (b.type) {
    case "plan_doc":
      return planDocView(b);
    case "subagent":
      return subagentBlockView(b, h);
    case "session_message":
      return sessionMessageView(b);
  }
}

// A plan by id (src/session/features/plans.ts).

export type PlanDocView = Extract<FeatureBlockView, { type: "plan_doc" }>;

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

// A message between sessions (src/session/features/session-messages.ts).

export type SessionMessageView = Extract<FeatureBlockView, { type: "session_message" }>;

export function sessionMessageView(b: Extract<FeatureBlock, { type: "session_message" }>): SessionMessageView {
  return {
    id: b.id,
    type: "session_message",
    direction: b.direction,
    peer: b.peer === undefined ? undefined : oneLine(b.peer, 200),
    text: b.text,
    omitted: b.omitted,
  };
}

// A child session (src/session/features/subagents.ts): its header and the last of its blocks, nested.

export type SubagentView = Extract<FeatureBlockView, { type: "subagent" }>;

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
function tailView(v: BlockView, max: number): BlockView {
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
  return { ...v, text: `… (${earlier} earlier line${earlier === 1 ? "" : "s"})${t.text.slice(at)}` } as BlockView;
}

/** A child transcript's blocks as views, without the turn and reply headers; the last `max` when given. */
export function childViews(
  blocks: readonly unknown[],
  h: ViewHelpers,
  max?: number,
): { views: BlockView[]; hidden: number } {
  const shown = blocks.filter((b) => {
    const t = (b as { type: string }).type;
    return t !== "turn" && t !== "reply";
  });
  const from = max === undefined ? 0 : Math.max(0, shown.length - max);
  nesting++;
  let views: BlockView[];
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
