/**
 * The transcript blocks of the feature modules: a plan by id (plans.ts), a child session
 * (subagents.ts) and a message between sessions (session-messages.ts). Types only, so that
 * session-state.ts can name them without depending on the modules that make them.
 */
import type { PlanEntry } from "../../protocol/schema.js";

/** A child session's foreground state as the agent last reported it (running, idle, requires_action, unknown, …). */
export interface SubagentStateView {
  state: string;
  stopReason?: string;
}

export type FeatureBlock =
  /** A plan the agent keeps by id (`plan_update`): entries, markdown or a file; marked when removed. */
  | {
      id: string;
      type: "plan_doc";
      planId: string;
      kind: "items" | "markdown" | "file";
      entries: PlanEntry[];
      markdown?: string;
      /** A file plan: its path when the URI is a file:// one, else the URI. */
      location?: string;
      removed?: boolean;
      turn: number;
    }
  /**
   * A child session the agent created (`subagent_update`), with its own transcript: `blocks` are
   * the child's SessionState blocks (typed loosely here; session-state.ts's Block).
   */
  | {
      id: string;
      type: "subagent";
      sessionId: string;
      title?: string;
      description?: string;
      state?: SubagentStateView;
      /** The agent lets the client cancel the child's current work (its capabilities.cancel). */
      canCancel?: boolean;
      /** The child's transcript, live (the child SessionState's own array). */
      blocks: readonly unknown[];
      turn: number;
    }
  /** A message this session sent to, or received from, another session (`session_message`). */
  | {
      id: string;
      type: "session_message";
      messageId: string;
      direction: "to" | "from" | "between";
      /** The other session's title (or id) as known when the message arrived. */
      peer?: string;
      text: string;
      /** Characters past the most kept (session-messages.ts MAX_MESSAGE_CHARS), not kept. */
      omitted?: number;
      turn: number;
    };
