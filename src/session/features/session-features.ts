/**
 * The feature modules' state in one session (the chat's own, or a child's): each update of a
 * feature's kinds goes to that feature's handler, and each change returns events. The chat's
 * own set also routes its children's updates (through the subagents feature, when on) and says
 * in its transcript what a child refused (a child's may be folded or too deep to see).
 * Pure: no I/O.
 */
import type { FeatureUpdate } from "../../client/client-feature.js";
import type { SessionUpdate } from "../../protocol/schema.js";
import type { Redactor } from "../../trace/redact.js";
import type { TranscriptEvent } from "../blocks.js";
import type { SessionState } from "../session-state.js";
import type {
  ChildSessions,
  Feature,
  FeatureContext,
  FeatureHandler,
  SessionFeatureSet,
  SubagentBlock,
} from "./feature.js";

/** Shared by a chat's whole tree of sessions: the ids in it and what was refused (each said once). */
interface Tree {
  ids: Set<string>;
  noted: Set<string>;
  /** The chat's own transcript, where refusals are said. */
  root: SessionState;
  /** Events of notes in `root` made while routing to a child: returned by the root's apply or route. */
  pending: TranscriptEvent[];
  /** The chat's own session id (no subagent may have it). */
  rootId?: string;
}

export class SessionFeatures implements SessionFeatureSet {
  /** Each handler, in the features' order (a flush comes out in that order). */
  private readonly handlers: FeatureHandler[] = [];
  private readonly byKind = new Map<string, FeatureHandler>();
  private readonly kids: ChildSessions | undefined;

  constructor(
    readonly state: SessionState,
    redactor: Redactor,
    /** The features that are on (index.ts). */
    features: readonly Feature[],
    /** 0 for the chat's own session, 1 for its children, … */
    private readonly depth = 0,
    private readonly tree: Tree = { ids: new Set(), noted: new Set(), root: state, pending: [] },
  ) {
    const ctx: FeatureContext = {
      state,
      redactor,
      depth,
      tree,
      noteOnce: (key, text) => this.noteOnce(key, text),
      children: () => this.kids,
      spawn: (child) => new SessionFeatures(child, redactor, features, depth + 1, tree),
    };
    let kids: ChildSessions | undefined;
    for (const f of features) {
      const h = f.session?.(ctx);
      if (!h) continue;
      this.handlers.push(h);
      for (const k of f.updateKinds ?? []) this.byKind.set(k, h);
      if (f.name === "subagents") kids = h as ChildSessions;
    }
    this.kids = kids;
  }

  /** The chat's own session id, set by the chat as it learns it: a subagent announced with it is a cycle. */
  set rootId(id: string | undefined) {
    this.tree.rootId = id;
  }

  handles(update: SessionUpdate | FeatureUpdate): update is FeatureUpdate {
    return this.byKind.has(update.sessionUpdate);
  }

  /** An update of one of the features' kinds, for this session. */
  apply(u: FeatureUpdate): TranscriptEvent[] {
    return this.withPending(this.byKind.get(u.sessionUpdate)?.apply(u) ?? []);
  }

  /**
   * A `session/update` for one of the children (at any depth): applied to that child's
   * transcript; returns this session's events (its child's block redrawn), or undefined when
   * `sessionId` is no child of this session.
   */
  route(sessionId: string, update: SessionUpdate | FeatureUpdate): TranscriptEvent[] | undefined {
    const events = this.kids?.route(sessionId, update);
    return events && this.withPending(events);
  }

  /** The child session `sessionId` (at any depth): its block and transcript, for its own view. */
  child(sessionId: string): { block: SubagentBlock; state: SessionState } | undefined {
    return this.kids?.child(sessionId);
  }

  /** Whether `sessionId` is a child (or a child's child) of this session. */
  owns(sessionId: string): boolean {
    return this.kids?.owns(sessionId) ?? false;
  }

  /** Text held back by the features (and in the children) comes out: the turn ended. */
  flush(): TranscriptEvent[] {
    return this.handlers.flatMap((h) => h.flush?.() ?? []);
  }

  private withPending(events: TranscriptEvent[]): TranscriptEvent[] {
    return this.depth === 0 && this.tree.pending.length > 0 ? [...events, ...this.tree.pending.splice(0)] : events;
  }

  private noteOnce(key: string, text: string): TranscriptEvent[] {
    if (this.tree.noted.has(key)) return [];
    this.tree.noted.add(key);
    const events = this.tree.root.note(text, "warn");
    if (this.depth === 0) return events;
    this.tree.pending.push(...events);
    return [];
  }
}
