/**
 * The feature modules' blocks as the transcript shows them, one view module per feature
 * (src/session/features/ makes the blocks); view-model.ts hands each such block here.
 */
import type { FeatureBlock } from "../../session/features/blocks.js";
import { planDocView, type PlanDocView } from "./plans-view.js";
import { sessionMessageView, type SessionMessageView } from "./session-messages-view.js";
import { subagentBlockView, type SubagentView } from "./subagents-view.js";
import type { ViewHelpers } from "./view-helpers.js";

export type FeatureBlockView = PlanDocView | SubagentView | SessionMessageView;

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
