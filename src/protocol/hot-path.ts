/**
 * The hot path: agents stream thousands of text chunks a second, so the checks below do by hand
 * what zod does (schema.ts, made of the layer generated from schema.json) for a text chunk and for
 * the session/update envelope. They accept only what zod accepts, and what they accept they
 * return as it came, which must equal (deep) what zod would return; anything they are not sure of
 * goes on to zod. test/unit/schema-hot-path.test.ts holds them to that with thousands of random
 * and mutated messages, and test/unit/jsonrpc-coalesce.test.ts holds the coalescing peer that
 * uses them (jsonrpc.ts, coalesce-shapes.ts) to the same schemas.
 *
 * One rule beyond the field types: zod leaves an own `__proto__` key out of every object it
 * copies (a looseObject or a record), and JSON.parse does make such keys. An object that has one
 * would come back different from zod's copy, so the hand checks leave it to zod.
 *
 * Their input is what JSON.parse makes (all the wire gives). For objects JSON cannot make (a Date
 * as `_meta`, a class instance) zod's rules differ, and these checks do not copy them.
 *
 * This module imports no zod schema (only the generated layer's types), so schema.ts can use it.
 */
import type { z } from "zod";
import type * as G from "./generated/acp-schema.js";

/** A text chunk as zod returns it (one of the three chunk variants, its content TextContent). */
export type TextChunk = z.infer<
  (typeof G.SessionUpdateVariants)["agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk"]
>;
/** The `session/update` envelope as schema.ts's SessionNotificationEnvelope returns it. */
export interface Envelope {
  [k: string]: unknown;
  sessionId: string;
  update: { [k: string]: unknown; sessionUpdate: string };
}

const TEXT_CHUNKS = new Set(["agent_message_chunk", "agent_thought_chunk", "user_message_chunk"]);

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
export function isTextChunk(u: unknown): u is TextChunk {
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

/** SessionNotificationEnvelope by hand: its fields and its unknown keys (`_meta`) kept as they came. */
export function isEnvelope(p: unknown): p is Envelope {
  return (
    isPlainRecord(p) &&
    typeof p.sessionId === "string" &&
    isPlainRecord(p.update) &&
    typeof p.update.sessionUpdate === "string"
  );
}

/** `session/update` params that are a valid envelope holding a text chunk: what the peer may coalesce. */
export function isTextChunkNotification(p: unknown): boolean {
  return isEnvelope(p) && isTextChunk(p.update);
}
