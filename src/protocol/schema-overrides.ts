/**
 * Where this client reads ACP more leniently than the official JSON schema says (policy, not
 * shape). The generated layer (generated/acp-schema.ts, written by scripts/gen-schemas.mjs) uses
 * each export here in place of the schema's: `Name` replaces the definition `Name` everywhere it
 * is used, `Name__field` replaces one field of the definition `Name`. The generator reads the
 * names from this file, so an override added here takes effect with `npm run gen:schemas`; one
 * that replaces nothing stops the generator. Whatever the schema accepts, these accept too
 * (test/unit/schema-hot-path.test.ts holds the whole to the schema with ajv).
 *
 * This module imports nothing of the generated layer (it is the layer's input). Each schema is
 * built on first use (lazy-schema.ts), as the generated ones are.
 */
import { z } from "zod";
import { lazy } from "./lazy-schema.js";

const meta = () => ({ _meta: z.record(z.string(), z.unknown()).nullish() });

/**
 * Any string, not only the ten kinds the schema names: agents invent kinds, and the schema says
 * clients fall back to `other`. Rejecting an unknown kind would drop the whole tool call.
 */
export const ToolKind = lazy(() => z.string());

/**
 * Any object, its fields unchecked: the client shows none of them, and the hot path
 * (schema.ts, isTextChunk) checks a text chunk's annotations no deeper than this.
 */
export const Annotations = lazy(() => z.looseObject({}));

/**
 * The annotations of non-text content unchecked (the schema's Annotations): the client reads none
 * of them, and an agent's malformed annotations on an image or a resource should not cost the
 * whole message. (A text chunk's are checked as Annotations above, as the hot path does.)
 * `any`, not `unknown`: the client also sends ContentBlock (prompts), and the SDK's type of
 * what it sends must still accept it.
 */
export const ImageContent__annotations = lazy(() => z.any().optional());
export const AudioContent__annotations = lazy(() => z.any().optional());
export const ResourceLink__annotations = lazy(() => z.any().optional());
export const EmbeddedResource__annotations = lazy(() => z.any().optional());

/** Any number, not only an integer (the schema's int64): a size in bytes the client only displays. */
export const ResourceLink__size = lazy(() => z.number().nullish());

/**
 * `hint` optional (the schema requires it): agents send `input: {}` for a command that takes free
 * text, and a command without its hint is still one to offer.
 */
export const AvailableCommandInput = lazy(() => z.looseObject({ hint: z.string().optional() }));

/**
 * Token counts as any non-negative number (the schema's uint64): an agent that reports a
 * fractional estimate keeps its usage line instead of losing the update.
 */
export const UsageUpdate__used = lazy(() => z.number().nonnegative());
export const UsageUpdate__size = lazy(() => z.number().nonnegative());

/**
 * A past session's extra roots unchecked: the client does not read them, and one malformed entry
 * must not cost the whole `session/list` answer.
 */
export const SessionInfo__additionalDirectories = lazy(() => z.unknown().optional());

/** `null` read as "not said" (the schema allows only a boolean there). */
export const McpCapabilities__http = lazy(() => z.boolean().nullish());
export const McpCapabilities__sse = lazy(() => z.boolean().nullish());

/**
 * Any integer: a version out of range is read, so that the client says "the agent speaks
 * version N" (acp-client.ts) instead of a schema error about `protocolVersion`.
 */
export const ProtocolVersion = lazy(() => z.number().int());

/**
 * One flat object instead of the schema's `agent` / `terminal` variants: `type` is any string
 * (absent means `agent`), so a method of a kind this client does not know is still listed (and
 * refused when chosen) instead of failing `initialize`.
 */
export const AuthMethod = lazy(() =>
  z.looseObject({
    id: z.string(),
    name: z.string(),
    description: z.string().nullish(),
    type: z.string().optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
  }),
);

/**
 * One flat object instead of the schema's form / url modes (each either session- or
 * request-scoped, and an open set of further modes): the handler (agent-requests.ts) decides by
 * `mode`, and declines a mode it does not know instead of answering a schema error.
 */
export const CreateElicitationRequest = lazy(() =>
  z.looseObject({
    sessionId: z.string().nullish(),
    message: z.string(),
    mode: z.string(),
    requestedSchema: z.looseObject({}).nullish(),
    url: z.string().nullish(),
    elicitationId: z.string().nullish(),
    ...meta(),
  }),
);

// ---------- unstable additions (schema.unstable.json) ----------

/**
 * A child session's state as `{ state, stopReason? }` with both open strings (the schema's
 * variants each fix their own fields): a state or stop reason this client does not know is shown
 * by name instead of dropping the subagent's update.
 */
export const StateUpdate = lazy(() => z.looseObject({ state: z.string(), stopReason: z.string().nullish() }));

/** `null` read as "no accounts" (the schema allows only a list). */
export const AuthStatusUpdateNotification__accounts = lazy(() =>
  z.array(z.looseObject({ label: z.string(), active: z.boolean().nullish() })).nullish(),
);

/** A number too (the schema says string): MCP request ids are JSON-RPC ids, and those may be numbers. */
export const McpRequestId = lazy(() => z.union([z.string(), z.number()]));
