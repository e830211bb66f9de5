/**
 * Plans by id (`plan_update`, `plan_removed`; client capability `plan`): drawn where they first
 * appear in a turn and redrawn in place; a removed plan is marked so (the transcript is history).
 * Spec (unstable): https://agentclientprotocol.com/rfds/plan-updates
 */
import type { FeatureUpdate } from "../../client/client-feature.js";
import { parseUnstableUpdate } from "../../protocol/unstable-schema.js";
import type { FeatureBlock, TranscriptEvent } from "../blocks.js";
import type { Feature, FeatureContext, FeatureHandler } from "./session-features.js";

type PlanBlock = Extract<FeatureBlock, { type: "plan_doc" }>;
type PlanUpdate = Extract<FeatureUpdate, { sessionUpdate: "plan_update" }>;

export const plans: Feature = {
  name: "plans",
  unstable: true,
  fillClientCapabilities: (caps) => Object.assign(caps, { plan: {} }),
  updateKinds: ["plan_update", "plan_removed"],
  parseUpdate: parseUnstableUpdate,
  session: (ctx) => new Plans(ctx),
};

class Plans implements FeatureHandler {
  /** The block that shows each plan id now (its latest turn's). */
  private readonly shown = new Map<string, string>();

  constructor(private readonly ctx: FeatureContext) {}

  apply(u: FeatureUpdate): TranscriptEvent[] {
    switch (u.sessionUpdate) {
      case "plan_update":
        return this.update(this.ctx.redactor.value(u));
      case "plan_removed":
        return this.removed(this.ctx.redactor.value(u).planId);
      default:
        return [];
    }
  }

  private update(u: PlanUpdate): TranscriptEvent[] {
    const { state } = this.ctx;
    const p = u.plan;
    const id = `plandoc:${p.planId}:${state.turn}`;
    const fields: Pick<PlanBlock, "kind" | "entries" | "markdown" | "location" | "removed"> = {
      kind: p.type,
      entries: p.type === "items" ? p.entries : [],
      markdown: p.type === "markdown" ? p.content : undefined,
      location: p.type === "file" ? fileLocation(p.uri) : undefined,
      removed: undefined,
    };
    this.shown.set(p.planId, id);
    const existing = state.blockById(id);
    if (existing && existing.type === "plan_doc") {
      Object.assign(existing, fields);
      return [{ type: "update", block: existing }];
    }
    return state.placeBlock({ id, type: "plan_doc", planId: p.planId, ...fields, turn: state.turn });
  }

  private removed(planId: string): TranscriptEvent[] {
    const id = this.shown.get(planId);
    const block = id ? this.ctx.state.blockById(id) : undefined;
    if (block?.type !== "plan_doc")
      return this.ctx.noteOnce(`plan:${planId}`, `The agent removed a plan it never showed (${planId}).`);
    this.shown.delete(planId);
    block.removed = true;
    return [{ type: "update", block }];
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
