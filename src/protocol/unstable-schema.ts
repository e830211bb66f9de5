/**
 * zod schemas for what the installed SDK's *unstable* v1 schema
 * (`@agentclientprotocol/sdk/schema/v1/schema.unstable.json`) defines for clients, used only
 * when the user turned on `unstable` (config.lua): plans by id (`plan_update`, `plan_removed`),
 * child sessions (`subagent_update`) and the messages between sessions (`session_message`,
 * `session_message_chunk`), `auth/status_update`, `mcp/message`, and the answers to
 * `session/fork` and `session/set_title`. The shapes are generated
 * (generated/acp-schema-unstable.ts, scripts/gen-schemas.mjs; leniencies in schema-overrides.ts).
 *
 * Like the opt-in variants (schema.ts, parseOptInUpdate) these are parsed apart from
 * KnownSessionUpdate and after it, so the hot path for text chunks is untouched: an unstable
 * variant reaches here as an `unknown` update, and parseUnstableUpdate takes it from there.
 * With the option off nothing calls it, and the variants stay unknown (a visible note).
 */
import { z } from "zod";
import * as U from "./generated/acp-schema-unstable.js";
import { lazy, real } from "./lazy-schema.js";
import type { SessionUpdate, UnknownSessionUpdate } from "./schema.js";

/** `plan_update`'s content: structured entries, a file, or markdown; always with its plan's id. */
export const PlanUpdateContent = U.PlanUpdateContent;
export type PlanUpdateContent = z.infer<typeof PlanUpdateContent>;

/** A child session's foreground state: running, idle (with why it stopped), requires_action, unknown, or a custom one. */
export const SubagentState = U.StateUpdate;
export type SubagentState = z.infer<typeof SubagentState>;

export const PlanUpdate = lazy(() => U.PlanUpdate.extend({ sessionUpdate: z.literal("plan_update") }));
export const PlanRemoved = lazy(() => U.PlanRemoved.extend({ sessionUpdate: z.literal("plan_removed") }));
/** Omitted fields keep their value, `null` clears them (the schema's patch semantics). */
export const SubagentUpdate = lazy(() => U.SubagentUpdate.extend({ sessionUpdate: z.literal("subagent_update") }));
/** An upsert of a message sent to (or received from) another session; `content` replaces when present. */
export const SessionMessage = lazy(() => U.SessionMessage.extend({ sessionUpdate: z.literal("session_message") }));
/** One content block appended to a session message. */
export const SessionMessageChunk = lazy(() =>
  U.SessionMessageChunk.extend({ sessionUpdate: z.literal("session_message_chunk") }),
);

export const UnstableSessionUpdate = lazy(() =>
  z.discriminatedUnion("sessionUpdate", [
    real(PlanUpdate),
    real(PlanRemoved),
    real(SubagentUpdate),
    real(SessionMessage),
    real(SessionMessageChunk),
  ]),
);
export type UnstableSessionUpdate = z.infer<typeof UnstableSessionUpdate>;
/** Its variants' names (acp-coverage-unstable.test.ts holds them to the union). */
export const UNSTABLE_UPDATE_KINDS: ReadonlySet<string> = new Set([
  "plan_update",
  "plan_removed",
  "subagent_update",
  "session_message",
  "session_message_chunk",
]);

/**
 * An update parseSessionUpdate (and parseOptInUpdate) left unknown because it is an unstable
 * variant: parsed now, or still unknown with the reason when the agent got it wrong. Anything
 * else comes back as it was.
 * Spec (unstable): https://agentclientprotocol.com/rfds/subagents, https://agentclientprotocol.com/rfds/plan-updates
 */
export function parseUnstableUpdate(update: SessionUpdate): SessionUpdate | UnstableSessionUpdate {
  if (update.sessionUpdate !== "unknown" || !UNSTABLE_UPDATE_KINDS.has(update.originalKind)) return update;
  const r = UnstableSessionUpdate.safeParse(update.raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  return {
    ...update,
    reason: `invalid ${update.originalKind}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
  } satisfies UnknownSessionUpdate;
}

export function isUnstableUpdate(u: SessionUpdate | UnstableSessionUpdate): u is UnstableSessionUpdate {
  return UNSTABLE_UPDATE_KINDS.has(u.sessionUpdate);
}

/** `auth/status_update` (agent -> client notification): the agent's sign-in state changed. */
export const AuthStatusUpdate = U.AuthStatusUpdateNotification;
export type AuthStatusUpdate = z.infer<typeof AuthStatusUpdate>;

/** `mcp/message` (agent -> client request): an MCP message for an MCP server the client declared with the `acp` transport. */
export const MessageMcpRequest = U.MessageMcpRequest;
export type MessageMcpRequest = z.infer<typeof MessageMcpRequest>;

/** The answer to `session/fork`: the new session, set up like session/new's. */
export const ForkSessionResponse = U.ForkSessionResponse;
/** The answer to `session/set_title`: the title the agent stored (it may have normalized it). */
export const SetSessionTitleResponse = U.SetSessionTitleResponse;
