/**
 * Subagents (`subagent_update`; client capability `subagents`): a child session the agent
 * created. The child's own `session/update`s arrive on the same connection under its session
 * id; they build the child's transcript (a SessionState of its own, redacted like the parent's),
 * drawn nested in the parent's block. A child has the same features as its parent, children too.
 * Spec (unstable): https://agentclientprotocol.com/rfds/subagents
 */
import type { FeatureUpdate } from "../../client/client-feature.js";
import type { SessionUpdate } from "../../protocol/schema.js";
import { parseUnstableUpdate } from "../../protocol/unstable-schema.js";
import type { TranscriptEvent } from "../blocks.js";
import { ChunkRedactor } from "../chunk-redactor.js";
import { SessionState } from "../session-state.js";
import type { ChildSessions, Feature, FeatureContext, SessionFeatures, SubagentBlock } from "./session-features.js";

type SubagentUpdate = Extract<FeatureUpdate, { sessionUpdate: "subagent_update" }>;

interface Child {
  state: SessionState;
  features: SessionFeatures;
  chunks: ChunkRedactor;
  block: SubagentBlock;
}

/** Updates the chunk redactor holds back and redacts itself. */
const TEXT_CHUNKS = new Set<string>(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

/** The most child sessions a chat keeps, at every depth together (an agent that announces more gets one note). */
export const MAX_SUBAGENTS = 200;
/** How deep child sessions nest: a child's child's child's child, no deeper (one note, then ignored). */
export const MAX_DEPTH = 4;

export const subagents: Feature = {
  name: "subagents",
  unstable: true,
  fillClientCapabilities: (caps) => Object.assign(caps, { subagents: {} }),
  updateKinds: ["subagent_update"],
  parseUpdate: parseUnstableUpdate,
  session: (ctx) => new Subagents(ctx),
};

class Subagents implements ChildSessions {
  private readonly children = new Map<string, Child>();

  constructor(private readonly ctx: FeatureContext) {}

  apply(u: FeatureUpdate): TranscriptEvent[] {
    switch (u.sessionUpdate) {
      case "subagent_update":
        return this.update(this.ctx.redactor.value(u));
      default:
        return [];
    }
  }

  direct(sessionId: string): SubagentBlock | undefined {
    return this.children.get(sessionId)?.block;
  }

  owns(sessionId: string): boolean {
    return this.children.has(sessionId) || [...this.children.values()].some((c) => c.features.owns(sessionId));
  }

  /**
   * A `session/update` for one of the children (at any depth): applied to that child's
   * transcript; returns this session's events (its child's block redrawn), or undefined when
   * `sessionId` is no child of this session.
   */
  route(sessionId: string, update: SessionUpdate | FeatureUpdate): TranscriptEvent[] | undefined {
    const direct = this.children.get(sessionId);
    if (direct) {
      if (direct.features.handles(update)) direct.features.apply(update);
      else {
        // Text chunks are held back and redacted by the chunk redactor; every other update is
        // redacted whole here (the chunk redactor passes notices and compactions as they are:
        // the chat redacts its own, and a child's showed the agent's secrets).
        const { redactor } = this.ctx;
        const safe = TEXT_CHUNKS.has(update.sessionUpdate) ? update : redactor.value(update);
        for (const u of direct.chunks.push(safe)) direct.state.apply(u);
        if (safe.sessionUpdate === "compaction_update" || safe.sessionUpdate === "compaction_summary_chunk") {
          // A secret may arrive split across summary chunks: the summary is redacted whole.
          const { block } = direct.state.compaction(safe.compactionId);
          block.summary = redactor.text(block.summary);
        }
      }
      return [{ type: "update", block: direct.block }];
    }
    for (const c of this.children.values()) {
      if (c.features.route(sessionId, update)) return [{ type: "update", block: c.block }];
    }
    return undefined;
  }

  child(sessionId: string): { block: SubagentBlock; state: SessionState } | undefined {
    const direct = this.children.get(sessionId);
    if (direct) return { block: direct.block, state: direct.state };
    for (const c of this.children.values()) {
      const found = c.features.child(sessionId);
      if (found) return found;
    }
    return undefined;
  }

  /** Text held back in the children's chunk redactors comes out (the parent's turn ended). */
  flush(): TranscriptEvent[] {
    const events: TranscriptEvent[] = [];
    for (const c of this.children.values()) {
      const out = c.chunks.end();
      for (const u of out) c.state.apply(u);
      const inner = c.features.flush();
      if (out.length > 0 || inner.length > 0) events.push({ type: "update", block: c.block });
    }
    return events;
  }

  private update(u: SubagentUpdate): TranscriptEvent[] {
    const { ctx } = this;
    let child = this.children.get(u.sessionId);
    const events: TranscriptEvent[] = [];
    if (!child) {
      // A hostile or confused agent: a flood of subagents, nesting without end, or an id already
      // in the tree (an ancestor's: a cycle) is refused, said once, and its updates ignored.
      if (ctx.tree.ids.size >= MAX_SUBAGENTS)
        return ctx.noteOnce(
          "count",
          `The agent started more than ${MAX_SUBAGENTS} subagents in this chat; the others are not shown.`,
        );
      if (ctx.depth >= MAX_DEPTH)
        return ctx.noteOnce(
          "depth",
          `The agent nested subagents more than ${MAX_DEPTH} deep; the deeper ones are not shown.`,
        );
      if (u.sessionId === ctx.tree.rootId)
        return ctx.noteOnce(
          "root",
          `The agent announced this chat's own session (${u.sessionId}) as a subagent; ignored.`,
        );
      if (ctx.tree.ids.has(u.sessionId))
        return ctx.noteOnce(
          `dup:${u.sessionId}`,
          `The agent announced ${u.sessionId} as a subagent here, but it is already one elsewhere in this chat; ignored.`,
        );
      const state = new SessionState(u.title ?? "subagent", ctx.state.idPrefix);
      const id = `subagent:${u.sessionId}`;
      const placed = ctx.state.placeBlock({
        id,
        type: "subagent",
        sessionId: u.sessionId,
        blocks: state.blocks,
        turn: ctx.state.turn,
      });
      const block = ctx.state.blockById(id) as SubagentBlock;
      child = { state, features: ctx.spawn(state), chunks: new ChunkRedactor(ctx.redactor), block };
      this.children.set(u.sessionId, child);
      ctx.tree.ids.add(u.sessionId);
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
}
