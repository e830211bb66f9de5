/** A message between sessions as the transcript shows it (src/session/features/session-messages.ts). */
import { oneLine } from "../../session/one-line.js";
import type { FeatureBlock } from "../../session/features/blocks.js";

export interface SessionMessageView {
  id: string;
  type: "session_message";
  direction: string;
  peer?: string;
  text: string;
  omitted?: number;
}

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
