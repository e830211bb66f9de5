/**
 * Keeps the agent's configured secrets out of the transcript while text streams. A secret can
 * arrive split across chunks ("sk-live-12" + "34…"), so the end of each text chunk that could be
 * the start of a secret is held back until the next chunk (or the end of the run of chunks)
 * shows what it is. Tool calls are redacted whole. Without configured secrets it passes
 * everything through untouched.
 */
import type { SessionUpdate } from "../protocol/schema.js";
import type { Redactor } from "../trace/redact.js";

type ChunkKind = "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk";
const CHUNKS = new Set<string>(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

export class ChunkRedactor {
  private held: { kind: ChunkKind; text: string; base: SessionUpdate } | undefined;

  constructor(private readonly redactor: Redactor) {}

  /** The updates to apply now for `update` (held text may come out first). */
  push(update: SessionUpdate): SessionUpdate[] {
    if (!this.redactor.active) return [update];
    if (CHUNKS.has(update.sessionUpdate)) {
      const u = update as SessionUpdate & { sessionUpdate: ChunkKind; content: { type: string; text?: string } };
      if (u.content.type === "text" && typeof u.content.text === "string") {
        const out = this.held && this.held.kind !== u.sessionUpdate ? this.flush() : [];
        const combined = (this.held?.text ?? "") + u.content.text;
        const safe = this.redactor.text(combined);
        const keep = this.redactor.holdBack(safe);
        const now = safe.slice(0, safe.length - keep);
        this.held = keep > 0 ? { kind: u.sessionUpdate, text: safe.slice(safe.length - keep), base: u } : undefined;
        if (now) out.push(withText(u, now));
        return out;
      }
    }
    const out = this.flush();
    out.push(update.sessionUpdate === "tool_call" || update.sessionUpdate === "tool_call_update" ? this.redactor.value(update) : update);
    return out;
  }

  /** Whatever is held, as it is (the run of chunks ended, or the turn did). */
  flush(): SessionUpdate[] {
    const h = this.held;
    this.held = undefined;
    return h ? [withText(h.base, h.text)] : [];
  }
}

function withText(u: SessionUpdate, text: string): SessionUpdate {
  const c = u as SessionUpdate & { content: Record<string, unknown> };
  return { ...c, content: { ...c.content, text } } as SessionUpdate;
}
