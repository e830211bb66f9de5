/**
 * zod schemas for the ACP v1 messages this client sends and receives.
 * Source of truth: the official schema (`@agentclientprotocol/sdk/schema/v1/schema.json`).
 * Every object is a `looseObject`: unknown fields are kept (the spec reserves `_meta`, and agents
 * add their own). Session updates with an unknown `sessionUpdate` are parsed by
 * `parseSessionUpdate` into an `unknown` update instead of being rejected.
 */
import { z } from "zod";
import { ErrorCodes, RpcError } from "./errors.js";

export const PROTOCOL_VERSION = 1;

const meta = { _meta: z.record(z.string(), z.unknown()).nullish() };

// ---------- content ----------
export const Annotations = z.looseObject({});
export const TextContent = z.looseObject({
  type: z.literal("text"),
  text: z.string(),
  annotations: Annotations.nullish(),
  ...meta,
});
export const ImageContent = z.looseObject({
  type: z.literal("image"),
  data: z.string(),
  mimeType: z.string(),
  uri: z.string().nullish(),
  ...meta,
});
export const AudioContent = z.looseObject({
  type: z.literal("audio"),
  data: z.string(),
  mimeType: z.string(),
  ...meta,
});
export const ResourceLink = z.looseObject({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string(),
  mimeType: z.string().nullish(),
  title: z.string().nullish(),
  description: z.string().nullish(),
  size: z.number().nullish(),
  ...meta,
});
export const EmbeddedResourceResource = z.union([
  z.looseObject({ uri: z.string(), text: z.string(), mimeType: z.string().nullish() }),
  z.looseObject({ uri: z.string(), blob: z.string(), mimeType: z.string().nullish() }),
]);
export const EmbeddedResource = z.looseObject({
  type: z.literal("resource"),
  resource: EmbeddedResourceResource,
  ...meta,
});
export const ContentBlock = z.discriminatedUnion("type", [
  TextContent,
  ImageContent,
  AudioContent,
  ResourceLink,
  EmbeddedResource,
]);
export type ContentBlock = z.infer<typeof ContentBlock>;

// ---------- tool calls ----------
export const ToolKind = z.string(); // read, edit, delete, move, search, execute, think, fetch, switch_mode, other (+ future)
export const ToolCallStatus = z.enum(["pending", "in_progress", "completed", "failed"]);
export type ToolCallStatus = z.infer<typeof ToolCallStatus>;
export const ToolCallLocation = z.looseObject({
  path: z.string(),
  line: z.number().int().nonnegative().nullish(),
  ...meta,
});
export const ToolCallContent = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("content"), content: ContentBlock, ...meta }),
  z.looseObject({
    type: z.literal("diff"),
    path: z.string(),
    oldText: z.string().nullish(),
    newText: z.string(),
    ...meta,
  }),
  z.looseObject({ type: z.literal("terminal"), terminalId: z.string(), ...meta }),
]);
export type ToolCallContent = z.infer<typeof ToolCallContent>;
export const ToolCallFields = {
  toolCallId: z.string(),
  name: z.string().nullish(),
  title: z.string(),
  kind: ToolKind,
  status: ToolCallStatus,
  content: z.array(ToolCallContent),
  locations: z.array(ToolCallLocation),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  ...meta,
};
export const ToolCall = z.looseObject({
  ...ToolCallFields,
  kind: ToolKind.optional(),
  status: ToolCallStatus.optional(),
  content: z.array(ToolCallContent).optional(),
  locations: z.array(ToolCallLocation).optional(),
});
export const ToolCallUpdate = z.looseObject({
  toolCallId: z.string(),
  name: z.string().nullish(),
  title: z.string().nullish(),
  kind: ToolKind.nullish(),
  status: ToolCallStatus.nullish(),
  content: z.array(ToolCallContent).nullish(),
  locations: z.array(ToolCallLocation).nullish(),
  rawInput: z.unknown().optional(),
  rawOutput: z.unknown().optional(),
  ...meta,
});
export type ToolCallUpdate = z.infer<typeof ToolCallUpdate>;

// ---------- plan, commands, modes, config ----------
export const PlanEntry = z.looseObject({
  content: z.string(),
  priority: z.enum(["high", "medium", "low"]),
  status: z.enum(["pending", "in_progress", "completed"]),
  ...meta,
});
export type PlanEntry = z.infer<typeof PlanEntry>;
export const AvailableCommand = z.looseObject({
  name: z.string(),
  description: z.string(),
  input: z.looseObject({ hint: z.string().optional() }).nullish(),
  ...meta,
});
export type AvailableCommand = z.infer<typeof AvailableCommand>;
export const SessionMode = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  ...meta,
});
export const SessionModeState = z.looseObject({
  currentModeId: z.string(),
  availableModes: z.array(SessionMode),
  ...meta,
});
export type SessionModeState = z.infer<typeof SessionModeState>;
export const SessionConfigSelectOption = z.looseObject({
  value: z.string(),
  name: z.string(),
  description: z.string().nullish(),
});
export const SessionConfigSelectGroup = z.looseObject({
  group: z.string(),
  name: z.string(),
  options: z.array(SessionConfigSelectOption),
});
const configBase = {
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  category: z.string().nullish(),
  ...meta,
};
export const SessionConfigOption = z.discriminatedUnion("type", [
  z.looseObject({
    ...configBase,
    type: z.literal("select"),
    currentValue: z.string(),
    options: z.union([z.array(SessionConfigSelectOption), z.array(SessionConfigSelectGroup)]),
  }),
  z.looseObject({ ...configBase, type: z.literal("boolean"), currentValue: z.boolean() }),
]);
export type SessionConfigOption = z.infer<typeof SessionConfigOption>;
/** gemini-cli's pre-config-option model list (non-schema `models` field). */
export const LegacyModels = z.looseObject({
  currentModelId: z.string(),
  availableModels: z.array(z.looseObject({ modelId: z.string(), name: z.string(), description: z.string().nullish() })),
});
export type LegacyModels = z.infer<typeof LegacyModels>;

// ---------- session updates ----------
const ContentChunk = { content: ContentBlock, messageId: z.string().nullish(), ...meta };
export const KnownSessionUpdate = z.discriminatedUnion("sessionUpdate", [
  z.looseObject({ sessionUpdate: z.literal("user_message_chunk"), ...ContentChunk }),
  z.looseObject({ sessionUpdate: z.literal("agent_message_chunk"), ...ContentChunk }),
  z.looseObject({ sessionUpdate: z.literal("agent_thought_chunk"), ...ContentChunk }),
  ToolCall.extend({ sessionUpdate: z.literal("tool_call") }),
  ToolCallUpdate.extend({ sessionUpdate: z.literal("tool_call_update") }),
  z.looseObject({ sessionUpdate: z.literal("plan"), entries: z.array(PlanEntry), ...meta }),
  z.looseObject({
    sessionUpdate: z.literal("available_commands_update"),
    availableCommands: z.array(AvailableCommand),
    ...meta,
  }),
  z.looseObject({ sessionUpdate: z.literal("current_mode_update"), currentModeId: z.string(), ...meta }),
  z.looseObject({
    sessionUpdate: z.literal("config_option_update"),
    configOptions: z.array(SessionConfigOption),
    ...meta,
  }),
  z.looseObject({
    sessionUpdate: z.literal("session_info_update"),
    title: z.string().nullish(),
    updatedAt: z.string().nullish(),
    ...meta,
  }),
  z.looseObject({
    sessionUpdate: z.literal("usage_update"),
    used: z.number().nonnegative(),
    size: z.number().nonnegative(),
    cost: z.looseObject({ amount: z.number(), currency: z.string() }).nullish(),
    ...meta,
  }),
]);
export type KnownSessionUpdate = z.infer<typeof KnownSessionUpdate>;
export const KNOWN_UPDATE_KINDS = new Set(KnownSessionUpdate.options.map((o) => o.shape.sessionUpdate.value as string));

const TEXT_CHUNKS = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

/*
 * The hot path: agents stream thousands of text chunks a second, so the checks below do by hand
 * what zod does for a text chunk and for the session/update envelope. They accept only what zod
 * accepts, and what they accept they return as it came, which must equal (deep) what zod would
 * return; anything they are not sure of goes on to zod. test/unit/schema-hot-path.test.ts holds
 * them to that with thousands of random and mutated messages.
 *
 * One rule beyond the field types: zod leaves an own `__proto__` key out of every object it
 * copies (a looseObject or a record), and JSON.parse does make such keys. An object that has one
 * would come back different from zod's copy, so the hand checks leave it to zod.
 *
 * Their input is what JSON.parse makes (all the wire gives). For objects JSON cannot make (a Date
 * as `_meta`, a class instance) zod's rules differ, and these checks do not copy them.
 */

/** An object zod would copy key for key: not null, not an array, no own `__proto__` key. */
const isPlainRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v) && !Object.hasOwn(v, "__proto__");
/** `.nullish()` of a looseObject or a record. */
const nullishRecord = (v: unknown) => v === undefined || v === null || isPlainRecord(v);

/**
 * A text chunk (`user_message_chunk`, `agent_message_chunk`, `agent_thought_chunk` whose
 * ContentChunk holds TextContent) exactly as KnownSessionUpdate checks it, by hand.
 * Spec: https://agentclientprotocol.com/protocol/v1/prompt-turn#3-agent-reports-output
 */
function isTextChunk(u: unknown): u is KnownSessionUpdate {
  if (!isPlainRecord(u) || !TEXT_CHUNKS.has(u.sessionUpdate as string)) return false;
  const c = u.content;
  return (
    isPlainRecord(c) &&
    c.type === "text" &&
    typeof c.text === "string" &&
    nullishRecord(c.annotations) &&
    nullishRecord(c._meta) &&
    nullishRecord(u._meta) &&
    (u.messageId === undefined || u.messageId === null || typeof u.messageId === "string")
  );
}

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
export const NoticeUpdate = z.looseObject({
  sessionUpdate: z.literal("notice"),
  /** info, warning, error, or a custom / future one. */
  severity: z.string(),
  title: z.string().min(1),
  description: z.string().nullish(),
  ...meta,
});
/** `compaction_update`: a context compaction's upsert; `summary`/`error` patch (absent: unchanged, null: cleared) (`session.compaction`). */
export const CompactionUpdate = z.looseObject({
  sessionUpdate: z.literal("compaction_update"),
  compactionId: z.string(),
  /** in_progress, completed, failed, cancelled, or a custom / future one. */
  status: z.string(),
  summary: z.array(ContentBlock).nullish(),
  error: z.string().nullish(),
  ...meta,
});
/** `compaction_summary_chunk`: one content block appended to a compaction's summary. */
export const CompactionSummaryChunk = z.looseObject({
  sessionUpdate: z.literal("compaction_summary_chunk"),
  compactionId: z.string(),
  content: ContentBlock,
  ...meta,
});
export const OptInSessionUpdate = z.discriminatedUnion("sessionUpdate", [
  NoticeUpdate,
  CompactionUpdate,
  CompactionSummaryChunk,
]);
export type OptInSessionUpdate = z.infer<typeof OptInSessionUpdate>;
export const OPT_IN_UPDATE_KINDS = new Set(
  OptInSessionUpdate.options.map((o) => o.shape.sessionUpdate.value as string),
);

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
export const SessionNotificationEnvelope = z.looseObject({
  sessionId: z.string(),
  update: z.looseObject({ sessionUpdate: z.string() }),
});
export type SessionNotificationEnvelope = z.infer<typeof SessionNotificationEnvelope>;

/** SessionNotificationEnvelope by hand: its fields and its unknown keys (`_meta`) kept as they came. */
function isEnvelope(p: unknown): p is SessionNotificationEnvelope {
  return (
    isPlainRecord(p) &&
    typeof p.sessionId === "string" &&
    isPlainRecord(p.update) &&
    typeof p.update.sessionUpdate === "string"
  );
}

/** The hand checks, for the test that holds them to the zod schemas; not for use elsewhere. */
export const hotPath = { isTextChunk, isEnvelope };

/**
 * `session/update` params that are a valid envelope holding a text chunk (the hand checks
 * above): what the peer may coalesce (src/protocol/jsonrpc.ts `coalesce`).
 */
export function isTextChunkNotification(p: unknown): boolean {
  return isEnvelope(p) && isTextChunk(p.update);
}

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

// ---------- initialize / auth ----------
export const PromptCapabilities = z.looseObject({
  image: z.boolean().optional(),
  audio: z.boolean().optional(),
  embeddedContext: z.boolean().optional(),
});
const present = z.looseObject({}).nullish();
export const AgentCapabilities = z.looseObject({
  loadSession: z.boolean().optional(),
  promptCapabilities: PromptCapabilities.optional(),
  mcpCapabilities: z.looseObject({ http: z.boolean().nullish(), sse: z.boolean().nullish(), ...meta }).optional(),
  sessionCapabilities: z
    .looseObject({ list: present, delete: present, resume: present, close: present, additionalDirectories: present })
    .optional(),
  auth: z.looseObject({ logout: present }).optional(),
  ...meta,
});
export type AgentCapabilities = z.infer<typeof AgentCapabilities>;
export const AuthMethod = z.looseObject({
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  type: z.string().optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
export type AuthMethod = z.infer<typeof AuthMethod>;
export const Implementation = z.looseObject({ name: z.string(), version: z.string(), title: z.string().nullish() });
export const InitializeResponse = z.looseObject({
  protocolVersion: z.number().int(),
  agentCapabilities: AgentCapabilities.optional(),
  authMethods: z.array(AuthMethod).optional(),
  agentInfo: Implementation.nullish(),
  ...meta,
});
export type InitializeResponse = z.infer<typeof InitializeResponse>;

// ---------- session lifecycle responses ----------
const sessionSetup = {
  modes: SessionModeState.nullish(),
  configOptions: z.array(SessionConfigOption).nullish(),
  models: LegacyModels.nullish(),
  ...meta,
};
export const NewSessionResponse = z.looseObject({ sessionId: z.string(), ...sessionSetup });
export type NewSessionResponse = z.infer<typeof NewSessionResponse>;
export const LoadSessionResponse = z
  .looseObject({ ...sessionSetup })
  .nullable()
  .transform((v) => v ?? {});
export type SessionSetup = z.infer<typeof NewSessionResponse> | z.infer<typeof LoadSessionResponse>;
export const SessionInfo = z.looseObject({
  sessionId: z.string(),
  cwd: z.string(),
  title: z.string().nullish(),
  updatedAt: z.string().nullish(),
  ...meta,
});
export type SessionInfo = z.infer<typeof SessionInfo>;
export const ListSessionsResponse = z.looseObject({ sessions: z.array(SessionInfo), nextCursor: z.string().nullish() });
export const StopReason = z.enum(["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]);
export type StopReason = z.infer<typeof StopReason>;
export const PromptResponse = z.looseObject({ stopReason: StopReason, ...meta });
export const EmptyResponse = z.unknown();

// ---------- agent -> client requests ----------
export const PermissionOptionKind = z.enum(["allow_once", "allow_always", "reject_once", "reject_always"]);
export const PermissionOption = z.looseObject({
  optionId: z.string(),
  name: z.string(),
  kind: PermissionOptionKind,
  ...meta,
});
export type PermissionOption = z.infer<typeof PermissionOption>;
export const RequestPermissionRequest = z.looseObject({
  sessionId: z.string(),
  toolCall: ToolCallUpdate,
  options: z.array(PermissionOption),
  ...meta,
});
export type RequestPermissionRequest = z.infer<typeof RequestPermissionRequest>;
export type PermissionOutcome = { outcome: "cancelled" } | { outcome: "selected"; optionId: string };

const uint = z.number().int().nonnegative();
export const ReadTextFileRequest = z.looseObject({
  sessionId: z.string(),
  path: z.string(),
  line: uint.nullish(),
  limit: uint.nullish(),
  ...meta,
});
export type ReadTextFileRequest = z.infer<typeof ReadTextFileRequest>;
export const WriteTextFileRequest = z.looseObject({
  sessionId: z.string(),
  path: z.string(),
  content: z.string(),
  ...meta,
});
export type WriteTextFileRequest = z.infer<typeof WriteTextFileRequest>;
export const CreateTerminalRequest = z.looseObject({
  sessionId: z.string(),
  command: z.string(),
  args: z.array(z.string()).nullish(),
  env: z.array(z.looseObject({ name: z.string(), value: z.string() })).nullish(),
  cwd: z.string().nullish(),
  outputByteLimit: uint.nullish(),
  ...meta,
});
export type CreateTerminalRequest = z.infer<typeof CreateTerminalRequest>;
export const TerminalRequest = z.looseObject({ sessionId: z.string(), terminalId: z.string(), ...meta });
export const CreateElicitationRequest = z.looseObject({
  sessionId: z.string().nullish(),
  message: z.string(),
  mode: z.string(),
  requestedSchema: z.looseObject({}).nullish(),
  url: z.string().nullish(),
  elicitationId: z.string().nullish(),
  ...meta,
});
export type CreateElicitationRequest = z.infer<typeof CreateElicitationRequest>;
export type ElicitationResponse =
  | { action: "accept"; content?: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };
export const CompleteElicitationNotification = z.looseObject({ elicitationId: z.string(), ...meta });
