/**
 * Messages by id (ACP v2, through the protocol translation): each message's text has its own
 * block, so that messages streamed in turns (interleaved) each grow where they began, and a
 * whole message sent again replaces its text. Updates without a message id (v1) keep v1's
 * rule: a chunk continues the last block of its kind.
 */
import { messageMeta } from "../protocol/v2/meta.js";
import type { Block, TranscriptEvent } from "./blocks.js";

type Kind = "user" | "agent" | "thought";
type TextBlock = Extract<Block, { type: Kind }>;

export class MessageBlocks {
  private readonly blocks = new Map<string, TextBlock>();

  /**
   * A chunk of a message that has a block which is not the last one, or a whole message's new
   * text: the block changed, redrawn in place. Undefined: the ordinary way (the last block or a new one).
   */
  route(kind: Kind, meta: unknown, text: string, last: Block | undefined): TranscriptEvent[] | undefined {
    const m = messageMeta(meta);
    const b = m && this.blocks.get(`${kind}:${m.id}`);
    if (!m || !b) return undefined;
    if (m.replace) b.text = text;
    else if (b === last) return undefined;
    else b.text += text;
    return [{ type: "update", block: b }];
  }

  /** Whether a chunk continues `last` (v1: any chunk of its kind does). */
  continues(kind: Kind, meta: unknown, last: Block): boolean {
    const m = messageMeta(meta);
    return !m || this.blocks.get(`${kind}:${m.id}`) === last;
  }

  /** A message's first chunk made `block`. */
  remember(kind: Kind, meta: unknown, event: TranscriptEvent): void {
    const m = messageMeta(meta);
    if (m && event.type === "add") this.blocks.set(`${kind}:${m.id}`, event.block as TextBlock);
  }
}
