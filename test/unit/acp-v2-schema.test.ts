/**
 * The v2 translation is hand-written (it must tolerate what a schema check would refuse: `_`
 * values, partial patches); this holds it to what the SDK's v2 schema (schema/v2/schema.json)
 * says, so that a kind, status or word the draft adds fails here instead of being shown wrong.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  KNOWN_UPDATE_KINDS,
  KnownSessionUpdate,
  OPT_IN_UPDATE_KINDS,
  type SessionUpdate,
} from "../../src/protocol/schema.js";
import { PermissionOptionKind } from "../../src/protocol/generated/acp-schema.js";
import { SAME_SHAPE_KINDS, V2Session } from "../../src/protocol/v2/updates.js";
import { SessionState } from "../../src/session/session-state.js";
import { blockView } from "../../src/view/view-model.js";

const require = createRequire(import.meta.url);
const defs = require("@agentclientprotocol/sdk/schema/v2/schema.json").$defs as Record<string, Def>;
type Def = { anyOf?: Def[]; oneOf?: Def[]; const?: string; properties?: Record<string, Def> };
/** The named values of one of the schema's unions (each variant's `const`, or its tag's). */
const values = (name: string, tag?: string): string[] =>
  (defs[name]!.anyOf ?? defs[name]!.oneOf ?? [])
    .map((v) => (tag ? v.properties?.[tag]?.const : v.const))
    .filter((v): v is string => typeof v === "string");
const luaText = readFileSync(join(__dirname, "../../lua/acpchat/transcript/text.lua"), "utf8");
/** The keys of a Lua table literal `local name = { ... }` / `M.name = { ... }` in text.lua. */
const luaKeys = (head: string): string[] => {
  const at = luaText.indexOf(head);
  const body = luaText.slice(at, luaText.indexOf("\n}", at) + 2);
  return [...body.matchAll(/(?:^|[{,\n])\s*([a-z_]+)\s*=/g)].map((m) => m[1]!).filter((k) => k !== head.trim());
};

async function applied(updates: Record<string, unknown>[]) {
  const s = new V2Session(async () => undefined);
  const state = new SessionState();
  state.beginTurn([{ type: "text", text: "hi" }]);
  for (const u of updates)
    for (const v1 of (await s.translate(u)).updates) {
      // The peer validates every translated update against v1's schema.
      const parsed = KnownSessionUpdate.safeParse(v1);
      expect(parsed.error?.issues).toBeUndefined();
      state.apply(parsed.data as SessionUpdate);
    }
  return state;
}

describe("the v2 translation against the v2 schema", () => {
  it("every session update kind is translated, or has v1's shape and v1 knows it", async () => {
    const kinds = values("SessionUpdate", "sessionUpdate");
    expect(kinds.length).toBeGreaterThan(15);
    for (const kind of kinds) {
      const u = { sessionUpdate: kind };
      const out = await new V2Session(async () => undefined).translate(u);
      if (SAME_SHAPE_KINDS.has(kind))
        expect([kind, KNOWN_UPDATE_KINDS.has(kind) || OPT_IN_UPDATE_KINDS.has(kind)]).toEqual([kind, true]);
      else expect([kind, out.updates]).not.toEqual([kind, [u]]); // not passed on as an unknown kind
    }
  });

  it("every tool call status is shown in its own word, and Lua has that word", async () => {
    const statuses = values("ToolCallStatus");
    expect(statuses).toContain("paused");
    for (const status of statuses) {
      const state = await applied([
        { sessionUpdate: "tool_call_update", toolCallId: "t", title: "T", status: "in_progress" },
        { sessionUpdate: "tool_call_update", toolCallId: "t", status },
      ]);
      const view = state.blocks.filter((b) => b.type === "tool").map((b) => blockView(b))[0] as { status: string };
      expect([status, view.status]).toEqual([status, status]);
      expect(luaKeys("M.status = {")).toContain(status);
    }
  });

  it("every tool kind is v1's", async () => {
    for (const kind of values("ToolKind")) {
      const state = await applied([{ sessionUpdate: "tool_call_update", toolCallId: "t", title: "T", kind }]);
      const call = state.blocks.find((b) => b.type === "tool") as { call: { kind: string } };
      expect(call.call.kind).toBe(kind);
    }
  });

  it("every plan entry status and priority is shown as sent, and Lua draws each status", async () => {
    const statuses = values("PlanEntryStatus");
    const priorities = values("PlanEntryPriority");
    const entries = statuses.map((status, i) => ({
      content: `e${i}`,
      status,
      priority: priorities[i % priorities.length],
    }));
    const state = await applied([{ sessionUpdate: "plan_update", plan: { type: "items", planId: "p", entries } }]);
    const view = blockView(state.blocks.find((b) => b.type === "plan")!) as { entries: unknown[] };
    expect(view.entries).toEqual(entries);
    for (const s of statuses) expect(luaKeys("local plan_icon = {")).toContain(s);
  });

  it("every content block type reaches the transcript; permission option kinds are v1's", async () => {
    const s = new V2Session(async () => undefined);
    for (const type of values("ContentBlock", "type")) {
      const out = await s.translate({ sessionUpdate: "agent_message_chunk", messageId: "m", content: { type } });
      expect([type, out.updates.length]).toEqual([type, 1]);
    }
    expect(values("PermissionOptionKind")).toEqual(PermissionOptionKind.options);
  });
});
