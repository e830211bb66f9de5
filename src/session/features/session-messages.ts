/**
 * Messages between sessions (`session_message`, `session_message_chunk`; advertised with the
 * `subagents` capability): a message this session sent to or received from another, a block of
 * its own, upserted by message id.
 * Spec (unstable): https://agentclientprotocol.com/rfds/subagents
 */
import type { FeatureUpdate } from "../../client/client-feature.js";
import { parseUnstableUpdate } from "../../protocol/unstable-schema.js";
import { contentText, type FeatureBlock, type TranscriptEvent } from "../blocks.js";
import type { Feature, FeatureContext, FeatureHandler } from "./session-features.js";

type MessageBlock = Extract<FeatureBlock, { type: "session_message" }>;
type Message = Extract<FeatureUpdate, { sessionUpdate: "session_message" }>;
type MessageChunk = Extract<FeatureUpdate, { sessionUpdate: "session_message_chunk" }>;

/** The most characters of one session message kept (the rest is counted). */
export const MAX_MESSAGE_CHARS = 100_000;

export const sessionMessages: Feature = {
  name: "session-messages",
  unstable: true,
  updateKinds: ["session_message", "session_message_chunk"],
  parseUpdate: parseUnstableUpdate,
  session: (ctx) => new SessionMessages(ctx),
};

class SessionMessages implements FeatureHandler {
  /** The end of each streaming message that may begin a secret, held back until the next chunk or the turn's end. */
  private readonly held = new Map<string, string>();

  constructor(private readonly ctx: FeatureContext) {}

  apply(u: FeatureUpdate): TranscriptEvent[] {
    switch (u.sessionUpdate) {
      case "session_message":
        return this.message(this.ctx.redactor.value(u));
      case "session_message_chunk":
        // Not redacted alone: with the text held back before it (a secret may be split across chunks).
        return this.chunk(u);
      default:
        return [];
    }
  }

  flush(): TranscriptEvent[] {
    const events: TranscriptEvent[] = [];
    for (const [messageId, held] of this.held) {
      this.held.delete(messageId);
      const { block } = this.block(messageId);
      append(block, this.ctx.redactor.text(held));
      events.push({ type: "update", block });
    }
    return events;
  }

  /** How this session refers to another: a child's title, else its id. */
  private peerName(sessionId: string | null | undefined): string | undefined {
    if (!sessionId) return undefined;
    return this.ctx.children()?.direct(sessionId)?.title ?? sessionId;
  }

  private isChild(sessionId: string | null | undefined): boolean {
    return !!sessionId && this.ctx.children()?.direct(sessionId) !== undefined;
  }

  private block(messageId: string): { block: MessageBlock; events: TranscriptEvent[] } {
    const { state } = this.ctx;
    const id = `message:${messageId}`;
    const found = state.blockById(id);
    if (found && found.type === "session_message") return { block: found, events: [] };
    const events = state.placeBlock({
      id,
      type: "session_message",
      messageId,
      direction: "between",
      text: "",
      turn: state.turn,
    });
    return { block: state.blockById(id) as MessageBlock, events };
  }

  private message(u: Message): TranscriptEvent[] {
    const { block, events } = this.block(u.messageId);
    // A message to a child was sent by this session; one from a child was received by it.
    if (this.isChild(u.recipientSessionId)) {
      block.direction = "to";
      block.peer = this.peerName(u.recipientSessionId);
    } else if (this.isChild(u.senderSessionId)) {
      block.direction = "from";
      block.peer = this.peerName(u.senderSessionId);
    } else if (u.recipientSessionId || u.senderSessionId) {
      block.direction = u.recipientSessionId ? "to" : "from";
      block.peer = this.peerName(u.recipientSessionId ?? u.senderSessionId);
    }
    if (u.content !== undefined) {
      block.text = "";
      block.omitted = undefined;
      this.held.delete(u.messageId);
      append(block, (u.content ?? []).map(contentText).join(""));
    }
    return events.length > 0 ? events : [{ type: "update", block }];
  }

  /**
   * A chunk of a message (`u` not yet redacted): appended, the end that may begin a secret held
   * back until the next chunk or the turn's end (redacting the whole text again at each chunk
   * made a stream of chunks quadratic: 20,000 chunks took the host 18 s).
   */
  private chunk(u: MessageChunk): TranscriptEvent[] {
    const { block, events } = this.block(u.messageId);
    const { shown, held } = this.ctx.redactor.split((this.held.get(u.messageId) ?? "") + contentText(u.content));
    if (held) this.held.set(u.messageId, held);
    else this.held.delete(u.messageId);
    append(block, shown);
    return events.length > 0 ? events : [{ type: "update", block }];
  }
}

/** Redacted text added to a message, up to MAX_MESSAGE_CHARS (the rest counted in `omitted`). */
function append(block: MessageBlock, text: string): void {
  const room = MAX_MESSAGE_CHARS - block.text.length;
  if (text.length <= room) {
    block.text += text;
    return;
  }
  block.text += text.slice(0, Math.max(0, room));
  block.omitted = (block.omitted ?? 0) + text.length - Math.max(0, room);
}
