/** What the user reads when the agent is gone or one of its messages could not be taken. */
import type { DroppedLine } from "../../protocol/jsonrpc.js";
import { humanSize } from "../media.js";

/** What the user does about a dead agent: said wherever its death is. */
export const RESTART_HINT =
  "Run :AcpChat to start it again (the session continues when the agent can resume it); your prompt stays in the prompt window.";
/** For an agent that never had a session: there is nothing to continue. */
export const START_HINT = "Run :AcpChat to try again; your prompt stays in the prompt window.";

/** A message over the line limit (a large image or audio clip, say) was dropped: not in silence. */
export function droppedLineText(d: DroppedLine): string {
  const size = d.bytes !== undefined ? `of ${humanSize(d.bytes)}, ` : "";
  return `The agent sent a message ${size}over the limit of ${humanSize(d.limit)} for one message: it was dropped (an image or audio clip this large cannot be shown).`;
}
