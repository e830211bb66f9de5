/**
 * A subagent's own view (`gs` on its block): every block of its child session, whole. Apart from
 * feature-views.ts because it imports view-model.ts (which imports that one).
 */
import type { SessionState } from "../session/session-state.js";
import type { FeatureBlock } from "../session/blocks.js";
import type { BlockView, SubagentTranscript } from "../wire/index.js";
import { blockView } from "./view-model.js";
import { childViews } from "./feature-views.js";

type SubagentBlock = Extract<FeatureBlock, { type: "subagent" }>;

export function subagentView(
  found: { block: SubagentBlock; state: SessionState } | undefined,
  sessionId: string,
): SubagentTranscript {
  if (!found) throw new Error(`no subagent ${sessionId} in this chat`);
  const { views } = childViews(found.state.blocks, { blockView: blockView as (b: never) => BlockView });
  const b = found.block;
  return {
    title: b.title,
    description: b.description,
    state: b.state?.state,
    stopReason: b.state?.stopReason,
    canCancel: b.canCancel,
    blocks: views,
  };
}
