/**
 * Prompts the user sent while the agent could not take them (starting, signing in, busy with a
 * turn): kept in order, sent one at a time when the agent is ready, and given back whole when
 * they cannot be sent (cancel, crash) so that nothing typed is lost.
 */
import type { ContextItem } from "../wire/index.js";

export interface QueuedPrompt {
  id: number;
  text: string;
  context: ContextItem[];
  /** The unsaved file buffers the editor sent with it: true only while it has not waited. */
  unsaved?: string[];
}

export class PromptQueue {
  private items: QueuedPrompt[] = [];
  private next = 1;

  add(text: string, context: ContextItem[], unsaved?: string[]): QueuedPrompt {
    const p: QueuedPrompt = { id: this.next++, text, context, unsaved };
    this.items.push(p);
    return p;
  }

  shift(): QueuedPrompt | undefined {
    return this.items.shift();
  }

  /** Every waiting prompt, oldest first; the queue is empty afterwards. */
  takeAll(): QueuedPrompt[] {
    return this.items.splice(0);
  }

  get length(): number {
    return this.items.length;
  }

  /** What the transcript shows of the queue. */
  view(): { id: number; text: string }[] {
    return this.items.map((p) => ({ id: p.id, text: p.text }));
  }
}
