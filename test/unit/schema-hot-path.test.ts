/**
 * The hot path (src/protocol/hot-path.ts) checks text chunks and the `session/update` envelope by
 * hand instead of through zod. This file holds those hand checks to the zod schemas they copy
 * (KnownSessionUpdate, made of the variants generated from schema.json, src/protocol/generated/):
 * thousands of seeded random updates and envelopes (valid ones of every variant, then mutated:
 * fields dropped, nulled, retyped, extra keys, unknown variants, wrong discriminators, non-object
 * layers, own `__proto__` keys) go through both, and the verdict and the parsed value must agree.
 * The same cases also go through the official schema (ajv on schema.json): what it accepts, our
 * zod schemas must accept.
 *
 * Inputs are what the wire produces: every case is `JSON.parse(JSON.stringify(...))`.
 * Deterministic: the seed is fixed (override with ACP_SCHEMA_SEED, the case count with
 * ACP_SCHEMA_CASES); a failure prints the seed and the case index, and case `i` is generated
 * from (seed, i) alone, so it can be replayed without the cases before it.
 */
import { createRequire } from "node:module";
import Ajv2020 from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { ErrorCodes, RpcError } from "../../src/protocol/errors.js";
import * as hotPath from "../../src/protocol/hot-path.js";
import {
  KNOWN_UPDATE_KINDS,
  KnownSessionUpdate,
  parseSessionUpdate,
  SessionNotificationEnvelope,
  sessionNotification,
  type SessionUpdate,
} from "../../src/protocol/schema.js";

const SEED = Number(process.env.ACP_SCHEMA_SEED ?? 0x5eed_acb1) >>> 0;
const CASES = Number(process.env.ACP_SCHEMA_CASES ?? 6000);

// ---------- a small seeded generator ----------

/** mulberry32: tiny, fast, good enough to pick shapes. */
class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)];
  }
}
/** Case `i` depends on (seed, i) only. */
const caseRng = (seed: number, i: number) => new Rng((seed ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0);

const ABSENT = Symbol("absent");
type Gen<T = unknown> = (r: Rng) => T;
type Obj = Record<string, unknown>;

/** Sets an own property, even `__proto__` (plain assignment would set the prototype). */
function put(o: Obj, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

/** Keys that tempt a hand check: reserved names, prototype names, other variants' fields. */
const KEYS = [
  "x",
  "_meta",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "type",
  "text",
  "sessionUpdate",
  "sessionId",
  "update",
  "content",
  "annotations",
  "messageId",
  "data",
  "0",
  "",
];
const STRINGS = [
  "",
  "a",
  "hello world",
  "ü ✓ 😀",
  "line\nbreak",
  "text",
  "image",
  "__proto__",
  "0",
  "null",
  "agent_message_chunk",
];
const NUMBERS = [0, 1, 7, -1, 1.5, -0.25, 2 ** 31, 2 ** 53, 1e308, -0];

const str: Gen<string> = (r) => (r.chance(0.7) ? r.pick(STRINGS) : Math.floor(r.next() * 1e9).toString(36));
const num: Gen<number> = (r) => r.pick(NUMBERS);
const uint: Gen<number> = (r) => r.pick([0, 1, 2, 42, 100000]);
const bool: Gen<boolean> = (r) => r.chance(0.5);

function json(r: Rng, depth = 2): unknown {
  const k = r.int(depth > 0 ? 7 : 5);
  if (k === 0) return null;
  if (k === 1) return bool(r);
  if (k === 2) return num(r);
  if (k === 3 || k === 4) return str(r);
  if (k === 5) return Array.from({ length: r.int(3) }, () => json(r, depth - 1));
  const o: Obj = {};
  for (let n = r.int(3); n > 0; n--) put(o, r.pick(KEYS), json(r, depth - 1));
  return o;
}

/** An object with the given fields (ABSENT ones left out) and, sometimes, unknown extra keys. */
function obj(r: Rng, fields: Record<string, unknown>): Obj {
  const o: Obj = {};
  for (const [k, v] of Object.entries(fields)) if (v !== ABSENT) put(o, k, v);
  if (r.chance(0.15)) for (let n = 1 + r.int(2); n > 0; n--) put(o, r.pick(KEYS), json(r, 1));
  return o;
}
const optional = <T>(r: Rng, g: Gen<T>): T | typeof ABSENT => (r.chance(0.4) ? ABSENT : g(r));
const nullish = <T>(r: Rng, g: Gen<T>): T | null | typeof ABSENT =>
  r.chance(0.3) ? ABSENT : r.chance(0.2) ? null : g(r);
const list = <T>(r: Rng, g: Gen<T>, max = 3): T[] => Array.from({ length: r.int(max + 1) }, () => g(r));

const meta = (r: Rng) => nullish(r, () => obj(r, { [r.pick(KEYS)]: json(r, 1), trace: optional(r, str) }));
const annotations = (r: Rng) =>
  nullish(r, () =>
    obj(r, {
      audience: optional(r, () => list(r, () => r.pick(["user", "assistant"]))),
      priority: nullish(r, num),
      lastModified: nullish(r, str),
      _meta: meta(r),
    }),
  );

const TEXT_CHUNK_KINDS = ["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"];

const content = {
  text: (r: Rng) => obj(r, { type: "text", text: str(r), annotations: annotations(r), _meta: meta(r) }),
  image: (r: Rng) =>
    obj(r, {
      type: "image",
      data: str(r),
      mimeType: r.pick(["image/png", "image/jpeg"]),
      uri: nullish(r, str),
      annotations: annotations(r),
      _meta: meta(r),
    }),
  audio: (r: Rng) =>
    obj(r, { type: "audio", data: str(r), mimeType: "audio/wav", annotations: annotations(r), _meta: meta(r) }),
  resource_link: (r: Rng) =>
    obj(r, {
      type: "resource_link",
      uri: "file:///a.ts",
      name: str(r),
      mimeType: nullish(r, str),
      title: nullish(r, str),
      description: nullish(r, str),
      size: nullish(r, uint),
      annotations: annotations(r),
      _meta: meta(r),
    }),
  resource: (r: Rng) =>
    obj(r, {
      type: "resource",
      resource: r.chance(0.5)
        ? obj(r, { uri: "file:///a", text: str(r), mimeType: nullish(r, str) })
        : obj(r, { uri: "file:///b", blob: "AAAA", mimeType: nullish(r, str) }),
      annotations: annotations(r),
      _meta: meta(r),
    }),
};
const contentBlock = (r: Rng) => content[r.pick(Object.keys(content) as (keyof typeof content)[])](r);

const TOOL_KINDS = ["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"];
const TOOL_STATUS = ["pending", "in_progress", "completed", "failed"];
const toolCallContent = (r: Rng) =>
  r.pick([
    () => obj(r, { type: "content", content: contentBlock(r), _meta: meta(r) }),
    () => obj(r, { type: "diff", path: "/w/a.ts", oldText: nullish(r, str), newText: str(r), _meta: meta(r) }),
    () => obj(r, { type: "terminal", terminalId: str(r), _meta: meta(r) }),
  ])();
const location = (r: Rng) => obj(r, { path: "/w/a.ts", line: nullish(r, uint), _meta: meta(r) });
const selectOption = (r: Rng) => obj(r, { value: str(r), name: str(r), description: nullish(r, str) });
const configOption = (r: Rng) => {
  const base = {
    id: str(r),
    name: str(r),
    description: nullish(r, str),
    category: nullish(r, () => r.pick(["model", "mode", "thought_level", "_x"])),
    _meta: meta(r),
  };
  return r.chance(0.7)
    ? obj(r, {
        ...base,
        type: "select",
        currentValue: str(r),
        options: r.chance(0.6)
          ? list(r, selectOption)
          : list(r, () => obj(r, { group: str(r), name: str(r), options: list(r, selectOption) })),
      })
    : obj(r, { ...base, type: "boolean", currentValue: bool(r) });
};

/** A valid update of each known variant (before mutation). */
const variants: Record<string, Gen<Obj>> = {
  ...Object.fromEntries(
    TEXT_CHUNK_KINDS.map((kind) => [
      kind,
      (r: Rng) =>
        obj(r, {
          sessionUpdate: kind,
          content: r.chance(0.8) ? content.text(r) : contentBlock(r),
          messageId: nullish(r, str),
          _meta: meta(r),
        }),
    ]),
  ),
  tool_call: (r) =>
    obj(r, {
      sessionUpdate: "tool_call",
      toolCallId: str(r),
      title: str(r),
      name: nullish(r, str),
      kind: optional(r, () => r.pick(TOOL_KINDS)),
      status: optional(r, () => r.pick(TOOL_STATUS)),
      content: optional(r, () => list(r, toolCallContent)),
      locations: optional(r, () => list(r, location)),
      rawInput: optional(r, json),
      rawOutput: optional(r, json),
      _meta: meta(r),
    }),
  tool_call_update: (r) =>
    obj(r, {
      sessionUpdate: "tool_call_update",
      toolCallId: str(r),
      title: nullish(r, str),
      name: nullish(r, str),
      kind: nullish(r, () => r.pick(TOOL_KINDS)),
      status: nullish(r, () => r.pick(TOOL_STATUS)),
      content: nullish(r, () => list(r, toolCallContent)),
      locations: nullish(r, () => list(r, location)),
      rawInput: optional(r, json),
      rawOutput: optional(r, json),
      _meta: meta(r),
    }),
  plan: (r) =>
    obj(r, {
      sessionUpdate: "plan",
      entries: list(r, () =>
        obj(r, {
          content: str(r),
          priority: r.pick(["high", "medium", "low"]),
          status: r.pick(["pending", "in_progress", "completed"]),
          _meta: meta(r),
        }),
      ),
      _meta: meta(r),
    }),
  available_commands_update: (r) =>
    obj(r, {
      sessionUpdate: "available_commands_update",
      availableCommands: list(r, () =>
        obj(r, {
          name: str(r),
          description: str(r),
          input: nullish(r, () => obj(r, { hint: str(r) })),
          _meta: meta(r),
        }),
      ),
      _meta: meta(r),
    }),
  current_mode_update: (r) => obj(r, { sessionUpdate: "current_mode_update", currentModeId: str(r), _meta: meta(r) }),
  config_option_update: (r) =>
    obj(r, { sessionUpdate: "config_option_update", configOptions: list(r, configOption), _meta: meta(r) }),
  session_info_update: (r) =>
    obj(r, {
      sessionUpdate: "session_info_update",
      title: nullish(r, str),
      updatedAt: nullish(r, () => "2026-11-22T12:00:00Z"),
      _meta: meta(r),
    }),
  usage_update: (r) =>
    obj(r, {
      sessionUpdate: "usage_update",
      used: uint(r),
      size: uint(r),
      cost: nullish(r, () => obj(r, { amount: num(r), currency: r.pick(["USD", "credits"]) })),
      _meta: meta(r),
    }),
};
const UNKNOWN_KINDS = [
  "notice",
  "compaction_update",
  "compaction_summary_chunk",
  "plan_update",
  "subagent_update",
  "",
  "AGENT_MESSAGE_CHUNK",
  "__proto__",
  "constructor",
  "toString",
  "unknown",
];

// ---------- mutations ----------

const DISCRIMINATORS: Record<string, readonly string[]> = {
  sessionUpdate: [...Object.keys(variants), ...UNKNOWN_KINDS],
  type: [
    "text",
    "image",
    "audio",
    "resource_link",
    "resource",
    "content",
    "diff",
    "terminal",
    "select",
    "boolean",
    "TEXT",
    "",
  ],
  status: [...TOOL_STATUS, "done", ""],
  priority: ["high", "medium", "low", "urgent"],
  kind: [...TOOL_KINDS, "custom"],
};

/** A value of another type than `v` (string <-> number, object <-> array, ...), or null. */
function retype(r: Rng, v: unknown): unknown {
  if (typeof v === "string") return r.pick([1, true, null, [v], { text: v }]);
  if (typeof v === "number") return r.pick([String(v), null, [v], false]);
  if (typeof v === "boolean") return r.pick([String(v), 0, null]);
  if (Array.isArray(v)) return r.pick([{ ...v }, "[]", null, 0]);
  if (v && typeof v === "object") return r.pick([[v], Object.values(v), "object", null, 1]);
  return r.pick(["", 0, {}, []]);
}

/** Every (container, key) edge in the tree, the root included as (holder, "v"). */
function edges(holder: Obj): [Obj | unknown[], string | number][] {
  const out: [Obj | unknown[], string | number][] = [];
  const walk = (c: Obj | unknown[], k: string | number) => {
    out.push([c, k]);
    const v = (c as Obj)[k as string];
    if (Array.isArray(v)) for (let i = 0; i < v.length; i++) walk(v, i);
    else if (v && typeof v === "object") for (const key of Object.keys(v)) walk(v as Obj, key);
  };
  walk(holder, "v");
  return out;
}

function mutate(r: Rng, value: unknown): unknown {
  const holder: Obj = { v: value };
  const all = edges(holder);
  const [c, k] = r.pick(all);
  const cur = (c as Obj)[k as string];
  const set = (v: unknown) => (Array.isArray(c) ? (c[k as number] = v) : put(c, k as string, v));
  switch (r.int(6)) {
    case 0: // drop a field / an element
      if (c === holder) break;
      if (Array.isArray(c)) c.splice(k as number, 1);
      else delete c[k as string];
      break;
    case 1:
      set(null);
      break;
    case 2:
      set(retype(r, cur));
      break;
    case 3: // another discriminator / enum value where the key is one
      set(typeof k === "string" && DISCRIMINATORS[k] ? r.pick(DISCRIMINATORS[k]) : json(r, 1));
      break;
    case 4: // an extra key on an object
      if (cur && typeof cur === "object" && !Array.isArray(cur)) put(cur as Obj, r.pick(KEYS), json(r, 1));
      else set(json(r, 2));
      break;
    default: // the whole layer replaced by a non-object
      set(r.pick([null, [], [cur], "x", 0, true]));
  }
  return holder.v;
}

/** What the wire makes of a value: JSON.parse output (own `__proto__` keys included). */
const wire = (v: unknown): unknown => JSON.parse(JSON.stringify(v) ?? "null");

function genUpdate(r: Rng): unknown {
  const roll = r.next();
  let u: unknown;
  if (roll < 0.45) u = variants[r.pick(TEXT_CHUNK_KINDS)](r);
  else if (roll < 0.85) u = variants[r.pick(Object.keys(variants))](r);
  // an unknown variant, or a known one with the fields of a text chunk
  else if (roll < 0.93)
    u = obj(r, {
      sessionUpdate: r.pick([...UNKNOWN_KINDS, ...Object.keys(variants)]),
      content: optional(r, content.text),
      x: json(r),
    });
  else u = json(r, 3);
  if (r.chance(0.55)) for (let n = 1 + r.int(3); n > 0; n--) u = mutate(r, u);
  return wire(u);
}

function genEnvelope(r: Rng): unknown {
  let e: unknown = obj(r, { sessionId: r.chance(0.9) ? "sess-1" : str(r), update: genUpdate(r), _meta: meta(r) });
  if (r.chance(0.35)) for (let n = 1 + r.int(2); n > 0; n--) e = mutate(r, e);
  return wire(e);
}

// ---------- comparing ----------

/** The path of the first difference between two JSON-like values (own enumerable keys, prototypes, -0), or undefined. */
function difference(a: unknown, b: unknown, path = "$"): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null)
    return `${path}: ${show(a)} vs ${show(b)}`;
  if (Array.isArray(a) !== Array.isArray(b)) return `${path}: array vs object`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: different prototypes`;
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  if (ka.join("\u0000") !== kb.join("\u0000")) return `${path}: keys [${ka}] vs [${kb}]`;
  for (const k of ka) {
    const d = difference(
      Object.getOwnPropertyDescriptor(a, k)!.value,
      Object.getOwnPropertyDescriptor(b, k)!.value,
      `${path}.${k}`,
    );
    if (d) return d;
  }
  return undefined;
}
const show = (v: unknown) => (v === undefined ? "undefined" : (JSON.stringify(v) ?? String(v)).slice(0, 200));

interface Failure {
  case: number;
  input: string;
  problem: string;
}
/** Runs `check` on CASES generated inputs; fails with the seed, the case index and the input. */
function property(gen: Gen, check: (input: unknown) => string | undefined): void {
  const failures: Failure[] = [];
  for (let i = 0; i < CASES; i++) {
    const input = gen(caseRng(SEED, i));
    const problem = check(input);
    if (problem) failures.push({ case: i, input: show(input), problem });
  }
  if (failures.length)
    console.error(`schema hot-path property failed: ACP_SCHEMA_SEED=${SEED} (${failures.length}/${CASES} cases)`);
  expect(failures.slice(0, 5), `ACP_SCHEMA_SEED=${SEED}: ${failures.length} of ${CASES} cases differ`).toEqual([]);
}

// ---------- the references: zod alone ----------

/** zod's verdict on a text chunk: a known chunk variant whose content parsed as TextContent. */
function zodTextChunk(u: unknown): { ok: true; value: unknown } | { ok: false } {
  const r = KnownSessionUpdate.safeParse(u);
  if (!r.success || !TEXT_CHUNK_KINDS.includes(r.data.sessionUpdate)) return { ok: false };
  return (r.data as { content: { type: string } }).content.type === "text"
    ? { ok: true, value: r.data }
    : { ok: false };
}

/** parseSessionUpdate without the hand check: its documented behaviour, through zod only. */
function zodParseSessionUpdate(update: unknown): SessionUpdate {
  const kind =
    typeof update === "object" && update !== null ? (update as { sessionUpdate?: unknown }).sessionUpdate : undefined;
  const kindName = typeof kind === "string" ? kind : "(missing)";
  if (!KNOWN_UPDATE_KINDS.has(kindName))
    return {
      sessionUpdate: "unknown",
      originalKind: kindName,
      raw: update,
      reason: `unknown session/update variant "${kindName}"`,
    };
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

/** sessionNotification through zod only: the value, or the error it must throw. */
function zodEnvelope(p: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  const r = SessionNotificationEnvelope.safeParse(p);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  return {
    ok: false,
    message: `Invalid params for session/update: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`,
  };
}

function handEnvelope(p: unknown): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: sessionNotification(p) };
  } catch (e) {
    if (!(e instanceof RpcError) || e.code !== ErrorCodes.InvalidParams) throw e;
    return { ok: false, message: e.message };
  }
}

const ownProto = (v: unknown) => typeof v === "object" && v !== null && Object.hasOwn(v, "__proto__");
/**
 * The one input the hand check hands to zod although zod accepts it: an own `__proto__` key on a
 * layer zod copies (zod leaves that key out of its copy; the hand check returns the input as is).
 */
function deferredToZod(u: unknown): boolean {
  const x = u as { content?: { annotations?: unknown; _meta?: unknown }; _meta?: unknown };
  return (
    ownProto(x) ||
    ownProto(x.content) ||
    ownProto(x.content?.annotations) ||
    ownProto(x.content?._meta) ||
    ownProto(x._meta)
  );
}

// ---------- the properties ----------

describe(`hot path = zod (ACP_SCHEMA_SEED=${SEED}, ${CASES} cases each)`, () => {
  it("the generator covers every variant, valid and invalid, and the fast path", () => {
    const seen = new Map<string, { valid: number; invalid: number }>();
    let fast = 0;
    let deferred = 0;
    for (let i = 0; i < CASES; i++) {
      const u = genUpdate(caseRng(SEED, i));
      const p = zodParseSessionUpdate(u);
      const kind =
        p.sessionUpdate === "unknown"
          ? KNOWN_UPDATE_KINDS.has(p.originalKind)
            ? p.originalKind
            : "unknown"
          : p.sessionUpdate;
      const s = seen.get(kind) ?? { valid: 0, invalid: 0 };
      if (p.sessionUpdate === "unknown") s.invalid++;
      else s.valid++;
      seen.set(kind, s);
      if (hotPath.isTextChunk(u)) fast++;
      else if (zodTextChunk(u).ok) deferred++;
    }
    for (const kind of KNOWN_UPDATE_KINDS) {
      expect(seen.get(kind)?.valid, `valid ${kind}`).toBeGreaterThanOrEqual(CASES / 100);
      expect(seen.get(kind)?.invalid, `invalid ${kind}`).toBeGreaterThanOrEqual(CASES / 1000);
    }
    expect(seen.get("unknown")?.invalid).toBeGreaterThan(CASES / 10);
    expect(fast, "text chunks the hand check takes").toBeGreaterThan(CASES / 10);
    expect(deferred, "valid text chunks left to zod (own __proto__)").toBeGreaterThan(0);

    const envelopes = { fast: 0, zod: 0, rejected: 0 };
    for (let i = 0; i < CASES; i++) {
      const p = genEnvelope(caseRng(SEED, i));
      if (hotPath.isEnvelope(p)) envelopes.fast++;
      else if (SessionNotificationEnvelope.safeParse(p).success) envelopes.zod++;
      else envelopes.rejected++;
    }
    expect(envelopes.fast).toBeGreaterThan(CASES / 2);
    expect(envelopes.zod).toBeGreaterThan(0);
    expect(envelopes.rejected).toBeGreaterThan(CASES / 20);
  });

  it("the text-chunk check accepts what zod accepts as a text chunk, with the same value", () => {
    property(genUpdate, (u) => {
      const z = zodTextChunk(u);
      const hand = hotPath.isTextChunk(u);
      if (hand && !z.ok) return "hand check accepts, zod rejects";
      if (hand && z.ok) return difference(u, z.value);
      if (!hand && z.ok && !deferredToZod(u)) return "zod accepts, hand check rejects";
      return undefined;
    });
  });

  it("parseSessionUpdate gives what zod alone gives", () => {
    property(genUpdate, (u) => difference(parseSessionUpdate(u), zodParseSessionUpdate(u)));
  });

  it("the hand envelope check accepts what SessionNotificationEnvelope accepts, with the same value", () => {
    property(genEnvelope, (p) => {
      const z = SessionNotificationEnvelope.safeParse(p);
      const hand = hotPath.isEnvelope(p);
      if (hand && !z.success) return "hand check accepts, zod rejects";
      if (hand && z.success) return difference(p, z.data);
      const e = p as { update?: unknown };
      if (!hand && z.success && !ownProto(e) && !ownProto(e.update)) return "zod accepts, hand check rejects";
      return undefined;
    });
  });

  it("sessionNotification accepts and rejects what SessionNotificationEnvelope does, with the same value and error", () => {
    property(genEnvelope, (p) => {
      const z = zodEnvelope(p);
      const h = handEnvelope(p);
      if (h.ok !== z.ok) return `hand ${h.ok ? "accepts" : "rejects"}, zod ${z.ok ? "accepts" : "rejects"}`;
      if (!h.ok && !z.ok) return h.message === z.message ? undefined : `error "${h.message}" vs "${z.message}"`;
      return difference((h as { value: unknown }).value, (z as { value: unknown }).value);
    });
  });

  it("the whole session/update path (envelope, then update) gives what zod alone gives", () => {
    property(genEnvelope, (p) => {
      const z = zodEnvelope(p);
      const h = handEnvelope(p);
      if (!z.ok || !h.ok) return h.ok === z.ok ? undefined : "verdicts differ";
      const zu = zodParseSessionUpdate((z.value as { update: unknown }).update);
      const hu = parseSessionUpdate((h.value as { update: unknown }).update);
      return difference(hu, zu);
    });
  });
});

// ---------- and zod against the official schema ----------

describe(`zod accepts what the official schema accepts (ACP_SCHEMA_SEED=${SEED}, ${CASES} cases each)`, () => {
  const require = createRequire(import.meta.url);
  const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false });
  // The schema's number formats, as ranges; 64-bit ones as far as a JS number holds them exactly.
  const range = (min: number, max: number) => ({
    type: "number" as const,
    validate: (n: number) => Number.isInteger(n) && n >= min && n <= max,
  });
  ajv.addFormat("uint16", range(0, 0xffff));
  ajv.addFormat("uint32", range(0, 0xffffffff));
  ajv.addFormat("int32", range(-0x80000000, 0x7fffffff));
  ajv.addFormat("uint64", range(0, Number.MAX_SAFE_INTEGER));
  ajv.addFormat("int64", range(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER));
  ajv.addFormat("double", { type: "number", validate: () => true });
  ajv.addFormat("uri", true);
  ajv.addSchema(require("@agentclientprotocol/sdk/schema/v1/schema.json"), "acp");

  // The other way round does not hold, on purpose: our schemas are looser (open ToolKind,
  // unmodelled annotation fields, ...), and unknown fields are kept.
  it("every update of a known variant that schema.json accepts parses as that variant", () => {
    const valid = ajv.getSchema("acp#/$defs/SessionUpdate")!;
    let checked = 0;
    property(genUpdate, (u) => {
      const kind = (u as { sessionUpdate?: unknown } | null)?.sessionUpdate;
      if (typeof kind !== "string" || !KNOWN_UPDATE_KINDS.has(kind) || !valid(u)) return undefined;
      checked++;
      const p = parseSessionUpdate(u);
      return p.sessionUpdate === kind
        ? undefined
        : `schema.json accepts it, we do not: ${p.sessionUpdate === "unknown" ? p.reason : p.sessionUpdate}`;
    });
    expect(checked).toBeGreaterThan(CASES / 3);
  });

  it("every session/update params that schema.json accepts passes sessionNotification", () => {
    const valid = ajv.getSchema("acp#/$defs/SessionNotification")!;
    let checked = 0;
    property(genEnvelope, (p) => {
      if (!valid(p)) return undefined;
      checked++;
      return handEnvelope(p).ok ? undefined : "schema.json accepts it, sessionNotification throws";
    });
    expect(checked).toBeGreaterThan(CASES / 3);
  });
});

// ---------- the mismatches found, kept as plain examples ----------

describe("hot path: examples where the hand check used to differ from zod", () => {
  it("keeps the envelope's own fields (the schema's SessionNotification has _meta), as zod does", () => {
    const p = wire({
      sessionId: "s",
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
      _meta: { trace: "t1" },
      extra: 1,
    });
    expect(sessionNotification(p)).toEqual(SessionNotificationEnvelope.parse(p));
    expect(sessionNotification(p)).toMatchObject({ _meta: { trace: "t1" }, extra: 1 });
  });

  it("an own __proto__ key in a text chunk is left out of the value, as zod does", () => {
    for (const text of [
      '{"sessionUpdate":"agent_message_chunk","__proto__":{"x":1},"content":{"type":"text","text":"a"}}',
      '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","__proto__":{"x":1}}}',
      '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","annotations":{"__proto__":[]}}}',
      '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a","_meta":{"__proto__":null}}}',
      '{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"a"},"_meta":{"__proto__":"p"}}',
    ]) {
      const u = JSON.parse(text);
      const parsed = parseSessionUpdate(u);
      expect(difference(parsed, KnownSessionUpdate.parse(u)), text).toBeUndefined();
      expect(JSON.stringify(parsed), text).not.toContain("__proto__");
    }
    const envelope = JSON.parse(
      '{"sessionId":"s","__proto__":{},"update":{"sessionUpdate":"plan","entries":[],"__proto__":{}}}',
    );
    expect(difference(sessionNotification(envelope), SessionNotificationEnvelope.parse(envelope))).toBeUndefined();
  });
});
