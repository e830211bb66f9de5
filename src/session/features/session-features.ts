/**
 * The feature modules' state in one session (the chat's own, or a child's): each update of a
 * feature's kinds goes to that feature's handler, and each change returns events. The chat's
 * own set also routes its children's updates (through the subagents feature, when on) and says
 * in its transcript what a child refused (a child's may be folded or too deep to see).
 * Pure: no I/O.
 *
 * A feature module (Feature: what it tells the ACP client, and its state in each session) is one
 * small file, as vscode-languageclient's `StaticFeature`; index.ts lists them and gates them on
 * the option `unstable`, in one place.
 */
import type { ClientFeature, FeatureUpdate } from "../../client/client-feature.js";
import type { SessionUpdate } from "../../protocol/schema.js";
import type { Redactor } from "../../trace/redact.js";
import type { FeatureBlock, TranscriptEvent } from "../blocks.js";
import type { SessionState } from "../session-state.js";

export type SubagentBlock = Extract<FeatureBlock, { type: "subagent" }>;

/** A feature's state in one session: it applies the updates of its kinds, each returning events. */
export interface FeatureHandler {
  apply(update: FeatureUpdate): TranscriptEvent[];
  /** Text held back comes out (the turn ended). */
  flush?(): TranscriptEvent[];
}

/** The handler of the feature that holds child sessions (subagents.ts): the tree routes through it. */
export interface ChildSessions extends FeatureHandler {
  route(sessionId: string, update: SessionUpdate | FeatureUpdate): TranscriptEvent[] | undefined;
  child(sessionId: string): { block: SubagentBlock; state: SessionState } | undefined;
  /** A direct child's block (its title names it), or undefined when `sessionId` is none. */
  direct(sessionId: string): SubagentBlock | undefined;
  owns(sessionId: string): boolean;
}

/** What a feature's handler gets of its session and of the chat's tree of sessions. */
export interface FeatureContext {
  readonly state: SessionState;
  /** Every text shown is redacted with the chat's Redactor before it is kept. */
  readonly redactor: Redactor;
  /** 0 for the chat's own session, 1 for its children, … */
  readonly depth: number;
  /** The session ids in the chat's tree, and the chat's own (no child may have it). */
  readonly tree: { readonly ids: Set<string>; readonly rootId?: string };
  /** A note in the chat's own transcript, once per chat for each `key` (a flood of refusals is one note). */
  noteOnce(key: string, text: string): TranscriptEvent[];
  /** This session's children, when the subagents feature is on. */
  children(): ChildSessions | undefined;
  /** The features of a new child session of this one (with `state`, one level deeper). */
  spawn(state: SessionState): SessionFeatures;
}

export interface Feature extends ClientFeature {
  /** Its state in one session; a feature without updates has none. */
  session?(ctx: FeatureContext): FeatureHandler;
  /** Why it is unavailable while off (shown to the user who asks for it). */
  readonly offHint?: string;
}

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

export class SessionFeatures {
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
