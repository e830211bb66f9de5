/**
 * `:AcpChat` on a chat whose agent died: how it starts again (resume or load the session when
 * the agent can, else a new one), and what the view shows meanwhile. The transcript stays as it
 * is until the replacement succeeded: what a continued session draws while it starts is held
 * back; a load's replay then replaces the transcript, anything else is added below it, and a
 * failure leaves it as it was.
 */
import type { RenderOp } from "../wire/index.js";
import type { Chat } from "../session/chat/chat.js";
import type { Entry } from "./chat-entry.js";
import type { OpenParams } from "./contract.js";

export type RestartHow = "resume" | "load" | "new" | "running";

/** How a chat starts again; "running" when it is not dead (a second :AcpChat while one starts). */
export function restartHow(chat: Chat, fresh: boolean): RestartHow {
  if (chat.status !== "failed") return "running";
  if (fresh || chat.sessionId === undefined) return "new";
  return chat.continuation() ?? "new";
}

/**
 * What a restarted chat is opened with: the old one's params, media folder and checkpoints, and
 * the next incarnation (its block ids never repeat the old one's, so the transcript keeps both).
 */
export interface Reopen {
  params: OpenParams;
  restart: "continue" | "new";
  media: Entry["media"];
  checkpoints: Entry["checkpoints"];
  incarnation: number;
}

/**
 * Start `old` again: its render queue and questions end, the old chat closes, and a new one
 * (from `open`) continues its transcript.
 */
export function restartChat(
  old: Entry,
  fresh: boolean,
  withdraw: () => void,
  open: (r: Reopen) => Entry,
): { how: RestartHow; next?: Entry } {
  const how = restartHow(old.chat, fresh);
  // Asked twice (a second :AcpChat while the first restart starts): the one starting goes on.
  if (how === "running") return { how };
  const sessionId = old.chat.sessionId;
  old.queue.flush();
  old.queue.dispose();
  withdraw();
  void old.chat.close();
  // The transcript keeps what it showed (or is replayed): its clips still open by their ids.
  old.media.keep(old.chat.blocks);
  const params = {
    ...old.params,
    fork: undefined /* a forked chat continues its own session */,
    resume: how !== "new" ? sessionId : undefined,
  };
  const next = open({
    params,
    restart: how === "new" ? "new" : "continue",
    media: old.media,
    checkpoints: old.checkpoints,
    incarnation: old.incarnation + 1,
  });
  // Turns go on from the transcript above (a load's replay numbers them itself).
  if (how !== "load") next.chat.continueTurnsFrom(old.chat.state.turn);
  return { how, next };
}

/**
 * The view of a chat that starts again: ops pass straight through, except that a continued
 * session's are held (status changes excepted) until it started or failed. The blocks drawn
 * before stay as they are (new ids never repeat theirs); a load's replay replaces them.
 */
export class RestartView {
  /** The held batches, as they came: drawn as so many messages, so none holds the editor long. */
  private held: RenderOp[][] | undefined;

  constructor(
    restart: "continue" | "new" | undefined,
    private readonly draw: (ops: RenderOp[]) => void,
  ) {
    this.held = restart === "continue" ? [] : undefined;
  }

  /** Ops for the view. */
  send(ops: RenderOp[]): void {
    // Status changes are drawn at once; the replay waits for the load to succeed.
    if (this.held) {
      const kept = ops.filter((o) => o.op !== "meta");
      if (kept.length > 0) this.held.push(kept);
    }
    const shown = this.held ? ops.filter((o) => o.op === "meta") : ops;
    if (shown.length > 0) this.draw(shown);
  }

  /** The chat started (after `flush` sent what it had drawn): what was held is drawn. */
  started(continuedBy: Chat["continuedBy"]): void {
    if (!this.held) return;
    const drawn = this.held;
    this.held = undefined;
    // A load replayed the conversation: it replaces the view. A resume replays nothing.
    if (continuedBy === "load") this.draw([{ op: "reset" }]);
    for (const batch of drawn) this.draw(batch);
  }

  /** The chat failed to start: true when it was a restart, whose old transcript stays. */
  failed(): boolean {
    if (!this.held) return false;
    // The old transcript stays; what the failed load drew is dropped.
    this.held = undefined;
    return true;
  }

  /** Ops are being held (a restart that has not started yet). */
  get holding(): boolean {
    return this.held !== undefined;
  }
}
