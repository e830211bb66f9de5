/**
 * Keeps secrets out of the session's state while updates stream: the agent's configured secrets
 * and values that look like API keys (see src/trace/redact.ts). A secret can arrive split across
 * chunks ("sk-live-12" + "34…"), so the end of each text chunk that could be the start of a
 * secret is held back until the next chunk (or the end of the run of chunks) shows what it is;
 * terminal output streamed in a tool call's `_meta` is held back the same way, per terminal,
 * until its next piece, its exit, the end of its tool call or the end of the turn (a chunk that
 * comes after the exit would otherwise wait for ever).
 * Every other update that carries text the user sees (tool calls, plans, session titles,
 * commands) is redacted whole, so whatever is drawn from the state (transcript, winbar,
 * statusline, session index, saved transcript) is already clean.
 */
import type { SessionUpdate } from "../protocol/schema.js";
import type { Redactor } from "../trace/redact.js";
import { messageMeta, REPLACE_META } from "../protocol/v2/meta.js";
import { ENDED } from "./blocks.js";

type ChunkKind = "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk";
const CHUNKS = new Set<string>(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);
/** Updates whose text is shown: redacted whole. (Modes and config options carry ids sent back to the agent.) */
const SHOWN = new Set<string>([
  "tool_call",
  "tool_call_update",
  "plan",
  "session_info_update",
  "available_commands_update",
  "unknown",
]);

type TerminalMeta = {
  terminal_output?: { terminal_id?: string; data?: unknown; [REPLACE_META]?: unknown };
  terminal_exit?: { terminal_id?: string };
};

export class ChunkRedactor {
  private held: { kind: ChunkKind; text: string; base: SessionUpdate } | undefined;
  /** The held-back end of each terminal's output streamed in `_meta`, and the tool call it came in. */
  private readonly heldTerminal = new Map<string, { text: string; toolCallId: string | undefined }>();

  constructor(private readonly redactor: Redactor) {}

  /** The updates to apply now for `update` (held text may come out first). */
  push(update: SessionUpdate): SessionUpdate[] {
    if (CHUNKS.has(update.sessionUpdate)) {
      const u = update as SessionUpdate & { sessionUpdate: ChunkKind; content: { type: string; text?: string } };
      if (u.content.type === "text" && typeof u.content.text === "string") {
        const message = messageMeta((u as { _meta?: unknown })._meta);
        // A message's whole new text (v2) is redacted whole: nothing of it waits for a next piece.
        if (message?.replace) return [...this.flush(), withText(u, this.redactor.text(u.content.text))];
        // Held text belongs to its own message (v2 messages interleave by id).
        const other = this.held && messageMeta((this.held.base as { _meta?: unknown })._meta)?.id !== message?.id;
        const out = this.held && (this.held.kind !== u.sessionUpdate || other) ? this.flush() : [];
        const combined = (this.held?.text ?? "") + u.content.text;
        const { shown, held } = this.redactor.split(combined);
        this.held = held ? { kind: u.sessionUpdate, text: held, base: u } : undefined;
        if (shown) out.push(shown === u.content.text ? u : withText(u, shown));
        return out;
      }
    }
    const out = this.flush();
    if (!SHOWN.has(update.sessionUpdate)) {
      out.push(update);
      return out;
    }
    out.push(this.redactor.value(this.terminalMeta(update)));
    // The call ended: what its other terminals held back is all there is.
    const u = update as { toolCallId?: unknown; status?: unknown };
    if (typeof u.toolCallId === "string" && typeof u.status === "string" && ENDED.has(u.status))
      out.push(...this.releaseTerminals(u.toolCallId));
    return out;
  }

  /** Whatever is held, redacted (the run of chunks ended, or the turn did). */
  flush(): SessionUpdate[] {
    const h = this.held;
    this.held = undefined;
    return h ? [withText(h.base, this.redactor.text(h.text))] : [];
  }

  /** Everything held comes out, redacted (the turn ended: no next piece will come). */
  end(): SessionUpdate[] {
    return [...this.flush(), ...this.releaseTerminals()];
  }

  /** The terminals' held-back ends (of one tool call's terminals, or all), as updates of their calls. */
  private releaseTerminals(toolCallId?: string): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    for (const [id, h] of this.heldTerminal) {
      if (toolCallId !== undefined && h.toolCallId !== toolCallId) continue;
      this.heldTerminal.delete(id);
      if (h.toolCallId === undefined) continue;
      out.push({
        sessionUpdate: "tool_call_update",
        toolCallId: h.toolCallId,
        _meta: { terminal_output: { terminal_id: id, data: this.redactor.text(h.text) } },
      } as SessionUpdate);
    }
    return out;
  }

  /**
   * `_meta.terminal_output.data`: the end that may begin a secret waits for the next piece, the
   * exit, or the end of the call this update ends.
   */
  private terminalMeta(update: SessionUpdate): SessionUpdate {
    const meta = (update as { _meta?: unknown })._meta as TerminalMeta | undefined;
    if (!meta || typeof meta !== "object") return update;
    const out = meta.terminal_output;
    const exit = meta.terminal_exit;
    const id = (out && typeof out.data === "string" ? out.terminal_id : undefined) ?? exit?.terminal_id;
    if (!id) return update;
    // A snapshot (v2) replaces the output: what was held of the old one goes with it.
    if (out?.[REPLACE_META] === true) this.heldTerminal.delete(id);
    const combined =
      (this.heldTerminal.get(id)?.text ?? "") +
      (out && typeof out.data === "string" && out.terminal_id === id ? out.data : "");
    const u = update as { toolCallId?: unknown; status?: unknown };
    const toolCallId = typeof u.toolCallId === "string" ? u.toolCallId : undefined;
    let data: string;
    if (exit?.terminal_id === id || (typeof u.status === "string" && ENDED.has(u.status))) {
      this.heldTerminal.delete(id);
      data = this.redactor.text(combined);
    } else {
      const { shown, held } = this.redactor.split(combined);
      if (held) this.heldTerminal.set(id, { text: held, toolCallId });
      else this.heldTerminal.delete(id);
      data = shown;
    }
    return { ...update, _meta: { ...meta, terminal_output: { ...out, terminal_id: id, data } } } as SessionUpdate;
  }
}

function withText(u: SessionUpdate, text: string): SessionUpdate {
  const c = u as SessionUpdate & { content: Record<string, unknown> };
  return { ...c, content: { ...c.content, text } } as SessionUpdate;
}
