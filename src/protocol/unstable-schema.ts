/**
 * zod schemas for what the installed SDK's *unstable* v1 schema
 * (`@agentclientprotocol/sdk/schema/v1/schema.unstable.json`) defines for clients, used only
 * when the user turned on `unstable` (config.lua): plans by id (`plan_update`, `plan_removed`),
 * child sessions (`subagent_update`) and the messages between sessions (`session_message`,
 * `session_message_chunk`), `auth/status_update`, `mcp/message`, and the answers to
 * `session/fork` and `session/set_title`.
 *
 * Like the opt-in variants (schema.ts, parseOptInUpdate) these are parsed apart from
 * KnownSessionUpdate and after it, so the hot path for text chunks is untouched: an unstable
 * variant reaches here as an `unknown` update, and parseUnstableUpdate takes it from there.
 * With the option off nothing calls it, and the variants stay unknown (a visible note).
 */
import { z } from "zod";
import {
  ContentBlock,
  PlanEntry,
  SessionConfigOption,
  SessionModeState,
  type SessionUpdate,
  type UnknownSessionUpdate,
} from "./schema.js";

const meta = { _meta: z.record(z.string(), z.unknown()).nullish() };

/** `plan_update`'s content: structured entries, a file, or markdown; always with its plan's id. */
export const PlanUpdateContent = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("items"), planId: z.string(), entries: z.array(PlanEntry), ...meta }),
  z.looseObject({ type: z.literal("file"), planId: z.string(), uri: z.string(), ...meta }),
  z.looseObject({ type: z.literal("markdown"), planId: z.string(), content: z.string(), ...meta }),
]);
export type PlanUpdateContent = z.infer<typeof PlanUpdateContent>;

/** A child session's foreground state: running, idle (with why it stopped), requires_action, unknown, or a custom one. */
export const SubagentState = z.looseObject({ state: z.string(), stopReason: z.string().nullish() });
export type SubagentState = z.infer<typeof SubagentState>;

export const PlanUpdate = z.looseObject({ sessionUpdate: z.literal("plan_update"), plan: PlanUpdateContent, ...meta });
export const PlanRemoved = z.looseObject({ sessionUpdate: z.literal("plan_removed"), planId: z.string(), ...meta });
/** Omitted fields keep their value, `null` clears them (the schema's patch semantics). */
export const SubagentUpdate = z.looseObject({
  sessionUpdate: z.literal("subagent_update"),
  sessionId: z.string(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  capabilities: z.looseObject({ cancel: z.looseObject({}).nullish() }).nullish(),
  state: SubagentState.nullish(),
  cwd: z.string().nullish(),
  additionalDirectories: z.array(z.string()).nullish(),
  ...meta,
});
/** An upsert of a message sent to (or received from) another session; `content` replaces when present. */
export const SessionMessage = z.looseObject({
  sessionUpdate: z.literal("session_message"),
  messageId: z.string(),
  senderSessionId: z.string().nullish(),
  recipientSessionId: z.string().nullish(),
  senderMessageId: z.string().nullish(),
  recipientMessageId: z.string().nullish(),
  content: z.array(ContentBlock).nullish(),
  ...meta,
});
/** One content block appended to a session message. */
export const SessionMessageChunk = z.looseObject({
  sessionUpdate: z.literal("session_message_chunk"),
  messageId: z.string(),
  content: ContentBlock,
  ...meta,
});

export const UnstableSessionUpdate = z.discriminatedUnion("sessionUpdate", [
  PlanUpdate,
  PlanRemoved,
  SubagentUpdate,
  SessionMessage,
  SessionMessageChunk,
]);
export type UnstableSessionUpdate = z.infer<typeof UnstableSessionUpdate>;
export const UNSTABLE_UPDATE_KINDS = new Set(
  UnstableSessionUpdate.options.map((o) => o.shape.sessionUpdate.value as string),
);

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
export const AuthStatusUpdate = z.looseObject({
  /** authenticated, unauthenticated, not_required, unknown, or a custom / future one (read as unknown). */
  state: z.string(),
  accounts: z.array(z.looseObject({ label: z.string(), active: z.boolean().nullish() })).nullish(),
  ...meta,
});
export type AuthStatusUpdate = z.infer<typeof AuthStatusUpdate>;

/** `mcp/message` (agent -> client request): an MCP message for an MCP server the client declared with the `acp` transport. */
export const MessageMcpRequest = z.looseObject({
  serverId: z.string(),
  requestId: z.union([z.string(), z.number()]),
  method: z.string(),
  params: z.looseObject({}).nullish(),
  ...meta,
});
export type MessageMcpRequest = z.infer<typeof MessageMcpRequest>;

/** The answer to `session/fork`: the new session, set up like session/new's. */
export const ForkSessionResponse = z.looseObject({
  sessionId: z.string(),
  modes: SessionModeState.nullish(),
  configOptions: z.array(SessionConfigOption).nullish(),
  ...meta,
});
/** The answer to `session/set_title`: the title the agent stored (it may have normalized it). */
export const SetSessionTitleResponse = z.looseObject({ title: z.string(), ...meta });
