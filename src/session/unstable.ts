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
import { SessionState } from "./session-state.js";
import { contentText, type TranscriptEvent } from "./blocks.js";
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

/** Updates the chunk redactor holds back and redacts itself. */
const TEXT_CHUNKS = new Set<string>(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

/** The most child sessions a chat keeps, at every depth together (an agent that announces more gets one note). */
export const MAX_SUBAGENTS = 200;
/** How deep child sessions nest: a child's child's child's child, no deeper (one note, then ignored). */
export const MAX_DEPTH = 4;
/** The most characters of one session message kept (the rest is counted). */
export const MAX_MESSAGE_CHARS = 100_000;

/** Shared by a chat's whole tree of sessions: the ids in it and what was refused (each said once). */
interface Tree {
  ids: Set<string>;
  noted: Set<string>;
  /** The chat's own transcript, where refusals are said (a child's may be folded or too deep to see). */
  root: SessionState;
  /** Events of notes in `root` made while routing to a child: returned by the root's apply or route. */
  pending: TranscriptEvent[];
  /** The chat's own session id (no subagent may have it). */
  rootId?: string;
}

export class UnstableSession {
  private readonly children = new Map<string, Child>();
  /** The block that shows each plan id now (its latest turn's). */
  private readonly plans = new Map<string, string>();
  /** The end of each streaming message that may begin a secret, held back until the next chunk or the turn's end. */
  private readonly heldMessages = new Map<string, string>();

  constructor(
    readonly state: SessionState,
    private readonly redactor: Redactor,
    /** 0 for the chat's own session, 1 for its children, … */
    private readonly depth = 0,
    private readonly tree: Tree = { ids: new Set(), noted: new Set(), root: state, pending: [] },
  ) {}

  /** The chat's own session id, set by the chat as it learns it: a subagent announced with it is a cycle. */
  set rootId(id: string | undefined) {
    this.tree.rootId = id;
  }

  /** An unstable update for this session. */
  apply(u: UnstableSessionUpdate): TranscriptEvent[] {
    const events = this.applyHere(u);
    return this.depth === 0 && this.tree.pending.length > 0 ? [...events, ...this.tree.pending.splice(0)] : events;
  }

  private applyHere(u: UnstableSessionUpdate): TranscriptEvent[] {
    switch (u.sessionUpdate) {
      case "plan_update":
        return this.planUpdate(this.redactor.value(u));
      case "plan_removed":
        return this.planRemoved(this.redactor.value(u).planId);
      case "subagent_update":
        return this.subagentUpdate(this.redactor.value(u));
      case "session_message":
        return this.sessionMessage(this.redactor.value(u));
      case "session_message_chunk":
        // Not redacted alone: with the text held back before it (a secret may be split across chunks).
        return this.sessionMessageChunk(u);
    }
  }

  /** A note in the chat's own transcript, once per chat for each `key` (a flood of refusals is one note). */
  private noteOnce(key: string, text: string): TranscriptEvent[] {
    if (this.tree.noted.has(key)) return [];
    this.tree.noted.add(key);
    const events = this.tree.root.note(text, "warn");
    if (this.depth === 0) return events;
    this.tree.pending.push(...events);
    return [];
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
    const events = this.routeHere(sessionId, update);
    return events && this.depth === 0 && this.tree.pending.length > 0
      ? [...events, ...this.tree.pending.splice(0)]
      : events;
  }

  private routeHere(sessionId: string, update: SessionUpdate | UnstableSessionUpdate): TranscriptEvent[] | undefined {
    const direct = this.children.get(sessionId);
    if (direct) {
      if (isUnstableUpdate(update)) direct.unstable.apply(update);
      else {
        // Text chunks are held back and redacted by the chunk redactor; every other update is
        // redacted whole here (the chunk redactor passes notices and compactions as they are:
        // the chat redacts its own, and a child's showed the agent's secrets).
        const safe = TEXT_CHUNKS.has(update.sessionUpdate) ? update : this.redactor.value(update);
        for (const u of direct.chunks.push(safe)) direct.state.apply(u);
        if (safe.sessionUpdate === "compaction_update" || safe.sessionUpdate === "compaction_summary_chunk") {
          // A secret may arrive split across summary chunks: the summary is redacted whole.
          const { block } = direct.state.compaction(safe.compactionId);
          block.summary = this.redactor.text(block.summary);
        }
      }
      return [{ type: "update", block: direct.block }];
    }
    for (const c of this.children.values()) {
      if (c.unstable.routeHere(sessionId, update)) return [{ type: "update", block: c.block }];
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
    for (const [messageId, held] of this.heldMessages) {
      this.heldMessages.delete(messageId);
      const { block } = this.message(messageId);
      appendMessage(block, this.redactor.text(held));
      events.push({ type: "update", block });
    }
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
    if (block?.type !== "plan_doc")
      return this.noteOnce(`plan:${planId}`, `The agent removed a plan it never showed (${planId}).`);
    this.plans.delete(planId);
    block.removed = true;
    return [{ type: "update", block }];
  }

  // ---------- child sessions ----------

  private subagentUpdate(u: Extract<UnstableSessionUpdate, { sessionUpdate: "subagent_update" }>): TranscriptEvent[] {
    let child = this.children.get(u.sessionId);
    const events: TranscriptEvent[] = [];
    if (!child) {
      // A hostile or confused agent: a flood of subagents, nesting without end, or an id already
      // in the tree (an ancestor's: a cycle) is refused, said once, and its updates ignored.
      if (this.tree.ids.size >= MAX_SUBAGENTS)
        return this.noteOnce(
          "count",
          `The agent started more than ${MAX_SUBAGENTS} subagents in this chat; the others are not shown.`,
        );
      if (this.depth >= MAX_DEPTH)
        return this.noteOnce(
          "depth",
          `The agent nested subagents more than ${MAX_DEPTH} deep; the deeper ones are not shown.`,
        );
      if (u.sessionId === this.tree.rootId)
        return this.noteOnce(
          "root",
          `The agent announced this chat's own session (${u.sessionId}) as a subagent; ignored.`,
        );
      if (this.tree.ids.has(u.sessionId))
        return this.noteOnce(
          `dup:${u.sessionId}`,
          `The agent announced ${u.sessionId} as a subagent here, but it is already one elsewhere in this chat; ignored.`,
        );
      const state = new SessionState(u.title ?? "subagent", this.state.idPrefix);
      const id = `subagent:${u.sessionId}`;
      const placed = this.state.placeBlock({
        id,
        type: "subagent",
        sessionId: u.sessionId,
        blocks: state.blocks,
        turn: this.state.turn,
      });
      const block = this.state.blockById(id) as SubagentBlock;
      child = {
        state,
        unstable: new UnstableSession(state, this.redactor, this.depth + 1, this.tree),
        chunks: new ChunkRedactor(this.redactor),
        block,
      };
      this.children.set(u.sessionId, child);
      this.tree.ids.add(u.sessionId);
      events.push(...placed);
    }
    // Omitted: unchanged; null: cleared (the schema's patch semantics).
    const b = child.block;
    if (u.title !== undefined) b.title = u.title ?? undefined;
    if (u.description !== undefined) b.description = u.description ?? undefined;
    // A concrete capability set replaces the whole set; null clears it (no mutations allowed).
    if (u.capabilities !== undefined) b.canCancel = u.capabilities?.cancel != null || undefined;
    if (u.state !== undefined)
      b.state =
        u.state === null
          ? undefined
          : {
              state: u.state.state,
              stopReason: typeof u.state.stopReason === "string" ? u.state.stopReason : undefined,
            };
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
    const events = this.state.placeBlock({
      id,
      type: "session_message",
      messageId,
      direction: "between",
      text: "",
      turn: this.state.turn,
    });
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
    if (u.content !== undefined) {
      block.text = "";
      block.omitted = undefined;
      this.heldMessages.delete(u.messageId);
      appendMessage(block, (u.content ?? []).map(contentText).join(""));
    }
    return events.length > 0 ? events : [{ type: "update", block }];
  }

  /**
   * A chunk of a message (`u` not yet redacted): appended, the end that may begin a secret held
   * back until the next chunk or the turn's end (redacting the whole text again at each chunk
   * made a stream of chunks quadratic: 20,000 chunks took the host 18 s).
   */
  private sessionMessageChunk(
    u: Extract<UnstableSessionUpdate, { sessionUpdate: "session_message_chunk" }>,
  ): TranscriptEvent[] {
    const { block, events } = this.message(u.messageId);
    const { shown, held } = this.redactor.split((this.heldMessages.get(u.messageId) ?? "") + contentText(u.content));
    if (held) this.heldMessages.set(u.messageId, held);
    else this.heldMessages.delete(u.messageId);
    appendMessage(block, shown);
    return events.length > 0 ? events : [{ type: "update", block }];
  }
}

/** Redacted text added to a message, up to MAX_MESSAGE_CHARS (the rest counted in `omitted`). */
function appendMessage(block: MessageBlock, text: string): void {
  const room = MAX_MESSAGE_CHARS - block.text.length;
  if (text.length <= room) {
    block.text += text;
    return;
  }
  block.text += text.slice(0, Math.max(0, room));
  block.omitted = (block.omitted ?? 0) + text.length - Math.max(0, room);
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
