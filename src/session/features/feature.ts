/**
 * A feature module: what it tells the ACP client (ClientFeature: capabilities, the agent's
 * capabilities that turn it on, the updates and methods it owns) and, for one with updates, its
 * state in each session of a chat (the chat's own, and each child session's). As
 * vscode-languageclient's `StaticFeature`, one small file per feature; index.ts lists them and
 * gates them on the option `unstable`, in one place.
 */
import type { ClientFeature, FeatureUpdate } from "../../client/client-feature.js";
import type { SessionUpdate } from "../../protocol/schema.js";
import type { Redactor } from "../../trace/redact.js";
import type { TranscriptEvent } from "../blocks.js";
import type { SessionState } from "../session-state.js";
import type { FeatureBlock } from "./blocks.js";

export type SubagentBlock = Extract<FeatureBlock, { type: "subagent" }>;

/** A feature's state in one session: it applies the updates of its kinds, each returning events. */
export interface FeatureHandler {
  apply(update: FeatureUpdate): TranscriptEvent[];
  /** Text held back comes out (the turn ended). */
  flush?(): TranscriptEvent[];
}

/** One session's features as a whole (session-features.ts): what a child session is made of. */
export interface SessionFeatureSet {
  apply(update: FeatureUpdate): TranscriptEvent[];
  /** Whether `update` is one of the features' kinds (else SessionState's). */
  handles(update: SessionUpdate | FeatureUpdate): update is FeatureUpdate;
  route(sessionId: string, update: SessionUpdate | FeatureUpdate): TranscriptEvent[] | undefined;
  child(sessionId: string): { block: SubagentBlock; state: SessionState } | undefined;
  owns(sessionId: string): boolean;
  flush(): TranscriptEvent[];
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
  spawn(state: SessionState): SessionFeatureSet;
}

export interface Feature extends ClientFeature {
  /** Its state in one session; a feature without updates has none. */
  session?(ctx: FeatureContext): FeatureHandler;
  /** Why it is unavailable while off (shown to the user who asks for it). */
  readonly offHint?: string;
}
