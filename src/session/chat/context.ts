/**
 * What the parts of a chat share (the connection, the turns, the agent's requests, the update
 * router): its options, its state and the ways to show something. Chat implements it; the parts
 * never import Chat itself.
 */
import type { PathBoundary } from "../../workspace/path-boundary.js";
import type { Redactor } from "../../trace/redact.js";
import type { TraceLog } from "../../trace/trace-log.js";
import type { SessionState } from "../session-state.js";
import type { TranscriptEvent } from "../blocks.js";
import type { ChatOptions } from "./options.js";

export type NoticeLevel = "info" | "warn" | "error";

export interface ChatCore {
  readonly opts: ChatOptions;
  readonly state: SessionState;
  readonly redactor: Redactor;
  readonly trace: TraceLog;
  readonly boundary: PathBoundary;
  /** Aborted when the chat closes: withdraws questions that outlive a turn (sign-in, disk sync). */
  readonly lifetime: AbortSignal;
  /** Events for the view (none: nothing is sent). */
  emit(events: TranscriptEvent[]): void;
  /** Visible to the user in the transcript, and in the trace, redacted. */
  notice(text: string, level?: NoticeLevel): void;
}
