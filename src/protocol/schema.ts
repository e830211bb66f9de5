/**
 * ACP v1's messages as this client reads them: the generated zod layer
 * (generated/acp-schema.ts, made by scripts/gen-schemas.mjs from the SDK's `schema.json`, with
 * the leniencies of schema-overrides.ts inside it) composed into what the client parses, plus the
 * policy that is not shape: which `session/update` variants are known and which opt-in, the
 * unknown update, the extra fields some agents send, error mapping. Text chunks take the
 * hand-checked hot path first (hot-path.ts), held to these schemas by its property tests.
 * Every object is a `looseObject`: unknown fields are kept (the spec reserves `_meta`, and agents
 * add their own). Session updates with an unknown `sessionUpdate` are parsed by
 * `parseSessionUpdate` into an `unknown` update instead of being rejected.
 */
import { z } from "zod";
import { ErrorCodes, RpcError } from "./errors.js";
import * as G from "./generated/acp-schema.js";
import { isEnvelope, isTextChunk } from "./hot-path.js";
import { lazy, real } from "./lazy-schema.js";

export const PROTOCOL_VERSION = 1;

// ---------- the generated shapes the client uses as they are ----------
export const {
  Annotations,
  TextContent,
  ImageContent,
  AudioContent,
  ResourceLink,
  EmbeddedResourceResource,
  EmbeddedResource,
  ContentBlock,
  ToolKind,
  ToolCallStatus,
  ToolCallLocation,
  ToolCallContent,
  ToolCall,
  ToolCallUpdate,
  PlanEntry,
  AvailableCommand,
  SessionMode,
  SessionModeState,
  SessionConfigSelectOption,
  SessionConfigSelectGroup,
  SessionConfigOption,
  PromptCapabilities,
  AgentCapabilities,
  AuthMethod,
  Implementation,
  InitializeResponse,
  SessionInfo,
  ListSessionsResponse,
  StopReason,
  PromptResponse,
  PermissionOptionKind,
  PermissionOption,
  RequestPermissionRequest,
  ReadTextFileRequest,
  WriteTextFileRequest,
  CreateTerminalRequest,
  CreateElicitationRequest,
  CompleteElicitationNotification,
} = G;
export type ContentBlock = z.infer<typeof ContentBlock>;
export type ToolCallStatus = z.infer<typeof ToolCallStatus>;
export type ToolCallContent = z.infer<typeof ToolCallContent>;
export type ToolCallUpdate = z.infer<typeof ToolCallUpdate>;
export type PlanEntry = z.infer<typeof PlanEntry>;
export type AvailableCommand = z.infer<typeof AvailableCommand>;
export type SessionModeState = z.infer<typeof SessionModeState>;
export type SessionConfigOption = z.infer<typeof SessionConfigOption>;
export type AgentCapabilities = z.infer<typeof AgentCapabilities>;
export type AuthMethod = z.infer<typeof AuthMethod>;
export type InitializeResponse = z.infer<typeof InitializeResponse>;
export type SessionInfo = z.infer<typeof SessionInfo>;
export type StopReason = z.infer<typeof StopReason>;
export type PermissionOption = z.infer<typeof PermissionOption>;
export type RequestPermissionRequest = z.infer<typeof RequestPermissionRequest>;
export type ReadTextFileRequest = z.infer<typeof ReadTextFileRequest>;
export type WriteTextFileRequest = z.infer<typeof WriteTextFileRequest>;
export type CreateTerminalRequest = z.infer<typeof CreateTerminalRequest>;
export type CreateElicitationRequest = z.infer<typeof CreateElicitationRequest>;
/** `terminal/output`, `wait_for_exit`, `kill` and `release` take the same params. */
export const TerminalRequest = G.TerminalOutputRequest;

// ---------- policy: what the schema does not say ----------
/** gemini-cli's pre-config-option model list (non-schema `models` field of session/new and load). */
export const LegacyModels = lazy(() =>
  z.looseObject({
    currentModelId: z.string(),
    availableModels: z.array(
      z.looseObject({ modelId: z.string(), name: z.string(), description: z.string().nullish() }),
    ),
  }),
);
export type LegacyModels = z.infer<typeof LegacyModels>;
export const NewSessionResponse = lazy(() => G.NewSessionResponse.extend({ models: LegacyModels.nullish() }));
export type NewSessionResponse = z.infer<typeof NewSessionResponse>;
/** Agents answer session/load with `null` (the schema says an object): read as `{}`. */
export const LoadSessionResponse = lazy(() =>
  G.LoadSessionResponse.extend({ models: LegacyModels.nullish() })
    .nullable()
    .transform((v) => v ?? {}),
);
export type SessionSetup = z.infer<typeof NewSessionResponse> | z.infer<typeof LoadSessionResponse>;
export const EmptyResponse = lazy(() => z.unknown());
export type PermissionOutcome = { outcome: "cancelled" } | { outcome: "selected"; optionId: string };
export type ElicitationResponse =
  | { action: "accept"; content?: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

// ---------- session updates ----------
const V = G.SessionUpdateVariants;
/** The variants every agent may send (the rest of the schema's are opt-in, below). */
export const KnownSessionUpdate = lazy(() =>
  z.discriminatedUnion("sessionUpdate", [
    real(V.user_message_chunk),
    real(V.agent_message_chunk),
    real(V.agent_thought_chunk),
    real(V.tool_call),
    real(V.tool_call_update),
    real(V.plan),
    real(V.available_commands_update),
    real(V.current_mode_update),
    real(V.config_option_update),
    real(V.session_info_update),
    real(V.usage_update),
  ]),
);
export type KnownSessionUpdate = z.infer<typeof KnownSessionUpdate>;
/** Its variants' names, written out so that none is built to list them (sdk-types.test.ts holds the two equal). */
export const KNOWN_UPDATE_KINDS: ReadonlySet<string> = new Set([
  "user_message_chunk",
  "agent_message_chunk",
  "agent_thought_chunk",
  "tool_call",
  "tool_call_update",
  "plan",
  "available_commands_update",
  "current_mode_update",
  "config_option_update",
  "session_info_update",
  "usage_update",
]);

/** A variant this client has never heard of (or a known one the agent got wrong): kept, logged, shown. */
export interface UnknownSessionUpdate {
  sessionUpdate: "unknown";
  originalKind: string;
  raw: unknown;
  reason: string;
}
export type SessionUpdate = KnownSessionUpdate | OptInSessionUpdate | UnknownSessionUpdate;

/*
 * Variants an agent sends only to a client that opted in through `clientCapabilities.session`
 * (this one does: acp-client.ts). They are parsed apart from KnownSessionUpdate, after it, so
 * that parseSessionUpdate and its hand-checked hot path stay exactly as
 * test/unit/schema-hot-path.test.ts holds them; parseOptInUpdate takes what it left unknown.
 */
/** `notice`: live information for the user, not session history (`session.notices`). */
export const NoticeUpdate = V.notice;
/** `compaction_update`: a context compaction's upsert; `summary`/`error` patch (absent: unchanged, null: cleared) (`session.compaction`). */
export const CompactionUpdate = V.compaction_update;
/** `compaction_summary_chunk`: one content block appended to a compaction's summary. */
export const CompactionSummaryChunk = V.compaction_summary_chunk;
export const OptInSessionUpdate = lazy(() =>
  z.discriminatedUnion("sessionUpdate", [real(NoticeUpdate), real(CompactionUpdate), real(CompactionSummaryChunk)]),
);
export type OptInSessionUpdate = z.infer<typeof OptInSessionUpdate>;
/** Its variants' names (sdk-types.test.ts holds them to the union). */
export const OPT_IN_UPDATE_KINDS: ReadonlySet<string> = new Set([
  "notice",
  "compaction_update",
  "compaction_summary_chunk",
]);

/**
 * An update parseSessionUpdate left unknown because it is an opt-in variant: parsed now (or
 * still unknown, with the reason, when the agent got it wrong). Anything else is returned as is.
 * Spec: https://agentclientprotocol.com/rfds/session-notices
 */
export function parseOptInUpdate(update: SessionUpdate): SessionUpdate {
  if (update.sessionUpdate !== "unknown" || !OPT_IN_UPDATE_KINDS.has(update.originalKind)) return update;
  const r = OptInSessionUpdate.safeParse(update.raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  return {
    ...update,
    reason: `invalid ${update.originalKind}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
  };
}

/** `session/update` params (schema `SessionNotification`); the update itself is parsed apart. */
export const SessionNotificationEnvelope = lazy(() =>
  z.looseObject({
    sessionId: z.string(),
    update: z.looseObject({ sessionUpdate: z.string() }),
  }),
);
export type SessionNotificationEnvelope = z.infer<typeof SessionNotificationEnvelope>;

/**
 * `session/update` params that are a valid envelope holding a text chunk (the hand checks of
 * hot-path.ts): what the peer may coalesce (src/protocol/jsonrpc.ts `coalesce`).
 */
export { isTextChunkNotification } from "./hot-path.js";

/**
 * Check `session/update` params: the same verdict and value as SessionNotificationEnvelope (a
 * hand check first, zod for the rest). Throws `-32602` for params that are not an envelope.
 * Spec: https://agentclientprotocol.com/protocol/v1/prompt-turn#3-agent-reports-output
 */
export function sessionNotification(p: unknown): SessionNotificationEnvelope {
  if (isEnvelope(p)) return p;
  const r = SessionNotificationEnvelope.safeParse(p);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new RpcError(
    ErrorCodes.InvalidParams,
    `Invalid params for session/update: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
  );
}

/** Parse one `session/update` payload; never throws for a well-formed envelope. */
export function parseSessionUpdate(update: unknown): SessionUpdate {
  const kind =
    typeof update === "object" && update !== null ? (update as { sessionUpdate?: unknown }).sessionUpdate : undefined;
  const kindName = typeof kind === "string" ? kind : "(missing)";
  if (!KNOWN_UPDATE_KINDS.has(kindName)) {
    return {
      sessionUpdate: "unknown",
      originalKind: kindName,
      raw: update,
      reason: `unknown session/update variant "${kindName}"`,
    };
  }
  if (isTextChunk(update)) return update;
  const r = KnownSessionUpdate.safeParse(update);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  return {
    sessionUpdate: "unknown",
    originalKind: kindName,
    raw: update,
    reason: `invalid ${kindName}: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
  };
}
