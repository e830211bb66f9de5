/**
 * The unstable ACP additions of a session (option `unstable`; the installed SDK's
 * schema.unstable.json), on top of its SessionState:
 * - `plan_update` / `plan_removed`: plans kept by id, drawn where they first appear in a turn and
 *   redrawn in place; a removed plan is marked so (the transcript is history).
 * - `subagent_update`: a child session the agent created. The child's own `session/update`s
 *   arrive on the same connection under its session id; they build the child's transcript (a
 *   SessionState of its own, redacted like the parent's), drawn nested in the parent's block.
 *   A child may have children: each child is an UnstableSession too.
 * - `session_message` / `session_message_chunk`: a message this session sent to or received
 *   from another session, a block of its own (upserted by message id).
 * Pure: no I/O. Every text shown is redacted with the chat's Redactor before it is kept.
 */
import type { SessionUpdate } from "../protocol/schema.js";
import { isUnstableUpdate, type UnstableSessionUpdate } from "../protocol/unstable-schema.js";
import type { Redactor } from "../trace/redact.js";
import { ChunkRedactor } from "./chunk-redactor.js";
import { SessionState, contentText, type TranscriptEvent } from "./session-state.js";
import type { UnstableBlock } from "./unstable-blocks.js";

type PlanBlock = Extract<UnstableBlock, { type: "plan_doc" }>;
type SubagentBlock = Extract<UnstableBlock, { type: "subagent" }>;
type MessageBlock = Extract<UnstableBlock, { type: "session_message" }>;

interface Child {
  state: SessionState;
  unstable: UnstableSession;
  chunks: ChunkRedactor;
  block: SubagentBlock;
}

/** The most child sessions one session keeps (an agent that announces more gets a note). */
const MAX_CHILDREN = 200;

export class UnstableSession {
  private readonly children = new Map<string, Child>();
  /** The block that shows each plan id now (its latest turn's). */
  private readonly plans = new Map<string, string>();

  constructor(
    readonly state: SessionState,
    private readonly redactor: Redactor,
  ) {}

  /** An unstable update for this session. */
  apply(u: UnstableSessionUpdate): TranscriptEvent[] {
    const safe = this.redactor.value(u);
    switch (safe.sessionUpdate) {
      case "plan_update":
        return this.planUpdate(safe);
      case "plan_removed":
        return this.planRemoved(safe.planId);
      case "subagent_update":
        return this.subagentUpdate(safe);
      case "session_message":
        return this.sessionMessage(safe);
      case "session_message_chunk":
        return this.sessionMessageChunk(safe);
    }
  }

  /** Whether `sessionId` is a child (or a child's child) of this session. */
  owns(sessionId: string): boolean {
    return this.children.has(sessionId) || [...this.children.values()].some((c) => c.unstable.owns(sessionId));
  }

  /**
   * A `session/update` for one of the children (at any depth): applied to that child's
   * transcript; returns this session's events (its child's block redrawn), or undefined when
   * `sessionId` is no child of this session.
   */
  route(sessionId: string, update: SessionUpdate | UnstableSessionUpdate): TranscriptEvent[] | undefined {
    const direct = this.children.get(sessionId);
    if (direct) {
      if (isUnstableUpdate(update)) direct.unstable.apply(update);
      else for (const u of direct.chunks.push(update)) direct.state.apply(u);
      return [{ type: "update", block: direct.block }];
    }
    for (const c of this.children.values()) {
      if (c.unstable.route(sessionId, update)) return [{ type: "update", block: c.block }];
    }
    return undefined;
  }

  /** The child session `sessionId` (at any depth): its block and transcript, for its own view. */
  child(sessionId: string): { block: SubagentBlock; state: SessionState } | undefined {
    const direct = this.children.get(sessionId);
    if (direct) return { block: direct.block, state: direct.state };
    for (const c of this.children.values()) {
      const found = c.unstable.child(sessionId);
      if (found) return found;
    }
    return undefined;
  }

  /** Text held back in the children's chunk redactors comes out (the parent's turn ended). */
  flush(): TranscriptEvent[] {
    const events: TranscriptEvent[] = [];
    for (const c of this.children.values()) {
      const out = c.chunks.flush();
      for (const u of out) c.state.apply(u);
      const inner = c.unstable.flush();
      if (out.length > 0 || inner.length > 0) events.push({ type: "update", block: c.block });
    }
    return events;
  }

  // ---------- plans ----------

  private planUpdate(u: Extract<UnstableSessionUpdate, { sessionUpdate: "plan_update" }>): TranscriptEvent[] {
    const p = u.plan;
    const id = `plandoc:${p.planId}:${this.state.turn}`;
    const fields: Pick<PlanBlock, "kind" | "entries" | "markdown" | "location" | "removed"> = {
      kind: p.type,
      entries: p.type === "items" ? p.entries : [],
      markdown: p.type === "markdown" ? p.content : undefined,
      location: p.type === "file" ? fileLocation(p.uri) : undefined,
      removed: undefined,
    };
    this.plans.set(p.planId, id);
    const existing = this.state.blockById(id);
    if (existing && existing.type === "plan_doc") {
      Object.assign(existing, fields);
      return [{ type: "update", block: existing }];
    }
    return this.state.placeBlock({ id, type: "plan_doc", planId: p.planId, ...fields, turn: this.state.turn });
  }

  private planRemoved(planId: string): TranscriptEvent[] {
    const id = this.plans.get(planId);
    const block = id ? this.state.blockById(id) : undefined;
    if (!block || block.type !== "plan_doc") return this.state.note(`The agent removed a plan it never showed (${planId}).`);
    this.plans.delete(planId);
    block.removed = true;
    return [{ type: "update", block }];
  }

  // ---------- child sessions ----------

  private subagentUpdate(u: Extract<UnstableSessionUpdate, { sessionUpdate: "subagent_update" }>): TranscriptEvent[] {
    let child = this.children.get(u.sessionId);
    const events: TranscriptEvent[] = [];
    if (!child) {
      if (this.children.size >= MAX_CHILDREN) return this.state.note(`The agent started more than ${MAX_CHILDREN} subagents in this session; ${u.sessionId} is not shown.`, "warn");
      const state = new SessionState(u.title ?? "subagent");
      const id = `subagent:${u.sessionId}`;
      const placed = this.state.placeBlock({ id, type: "subagent", sessionId: u.sessionId, blocks: state.blocks, turn: this.state.turn });
      const block = this.state.blockById(id) as SubagentBlock;
      child = { state, unstable: new UnstableSession(state, this.redactor), chunks: new ChunkRedactor(this.redactor), block };
      this.children.set(u.sessionId, child);
      events.push(...placed);
    }
    // Omitted: unchanged; null: cleared (the schema's patch semantics).
    const b = child.block;
    if (u.title !== undefined) b.title = u.title ?? undefined;
    if (u.description !== undefined) b.description = u.description ?? undefined;
    // A concrete capability set replaces the whole set; null clears it (no mutations allowed).
    if (u.capabilities !== undefined) b.canCancel = u.capabilities?.cancel != null || undefined;
    if (u.state !== undefined) b.state = u.state === null ? undefined : { state: u.state.state, stopReason: typeof u.state.stopReason === "string" ? u.state.stopReason : undefined };
    return events.length > 0 ? events : [{ type: "update", block: b }];
  }

  /** How this session refers to another: a child's title, else its id. */
  private peerName(sessionId: string | null | undefined): string | undefined {
    if (!sessionId) return undefined;
    return this.children.get(sessionId)?.block.title ?? sessionId;
  }

  private message(messageId: string): { block: MessageBlock; events: TranscriptEvent[] } {
    const id = `message:${messageId}`;
    const found = this.state.blockById(id);
    if (found && found.type === "session_message") return { block: found, events: [] };
    const events = this.state.placeBlock({ id, type: "session_message", messageId, direction: "between", text: "", turn: this.state.turn });
    return { block: this.state.blockById(id) as MessageBlock, events };
  }

  private sessionMessage(u: Extract<UnstableSessionUpdate, { sessionUpdate: "session_message" }>): TranscriptEvent[] {
    const { block, events } = this.message(u.messageId);
    // A message to a child was sent by this session; one from a child was received by it.
    if (u.recipientSessionId && this.children.has(u.recipientSessionId)) {
      block.direction = "to";
      block.peer = this.peerName(u.recipientSessionId);
    } else if (u.senderSessionId && this.children.has(u.senderSessionId)) {
      block.direction = "from";
      block.peer = this.peerName(u.senderSessionId);
    } else if (u.recipientSessionId || u.senderSessionId) {
      block.direction = u.recipientSessionId ? "to" : "from";
      block.peer = this.peerName(u.recipientSessionId ?? u.senderSessionId);
    }
    if (u.content !== undefined) block.text = (u.content ?? []).map(contentText).join("");
    return events.length > 0 ? events : [{ type: "update", block }];
  }

  private sessionMessageChunk(u: Extract<UnstableSessionUpdate, { sessionUpdate: "session_message_chunk" }>): TranscriptEvent[] {
    const { block, events } = this.message(u.messageId);
    // Redacted whole after each chunk: a secret may arrive split across chunks.
    block.text = this.redactor.text(block.text + contentText(u.content));
    return events.length > 0 ? events : [{ type: "update", block }];
  }
}

/** A plan file's URI as the transcript shows it: a path for file:// URIs (so gf opens it), else the URI. */
export function fileLocation(uri: string): string {
  if (!uri.startsWith("file://")) return uri;
  try {
    return decodeURIComponent(new URL(uri).pathname);
  } catch {
    return uri;
  }
}
