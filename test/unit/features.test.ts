/**
 * The feature modules' registry (src/session/features/index.ts): the option `unstable` gates
 * every unstable feature in that one place. Off: nothing of theirs is advertised, registered or
 * handled. On: each feature's capability is advertised, and each update kind it owns reaches
 * the client's featureUpdate and is applied by that feature (the block it draws).
 */
import { describe, expect, it } from "vitest";
import { AcpClient, type AgentRequestHandlers, type ClientFeatures } from "../../src/client/acp-client.js";
import type { ClientCapabilities, FeatureUpdate } from "../../src/client/client-feature.js";
import { SessionState } from "../../src/session/session-state.js";
import {
  FEATURES,
  SessionFeatures,
  activeFeatures,
  featureOn,
  requireFeature,
} from "../../src/session/features/index.js";
import { Redactor } from "../../src/trace/redact.js";
import { recordingPeer } from "../support/acp-coverage.js";

/** An example of each update kind a feature owns, and the block type its feature draws for it. */
const examples: Record<string, { update: Record<string, unknown>; block: string }> = {
  plan_update: {
    update: { plan: { type: "markdown", planId: "p", content: "# Plan" } },
    block: "plan_doc",
  },
  plan_removed: { update: { planId: "p" }, block: "plan_doc" },
  subagent_update: { update: { sessionId: "kid", title: "Kid" }, block: "subagent" },
  session_message: {
    update: { messageId: "m", recipientSessionId: "kid", content: [{ type: "text", text: "hi" }] },
    block: "session_message",
  },
  session_message_chunk: { update: { messageId: "m", content: { type: "text", text: "!" } }, block: "session_message" },
};

function client(on: boolean) {
  const { peer, requests, notifications } = recordingPeer();
  const called: { handler: string; args: unknown[] }[] = [];
  const record =
    (handler: string) =>
    (...args: unknown[]) => {
      called.push({ handler, args });
      return Promise.resolve({});
    };
  const handlers = {
    sessionUpdate: record("sessionUpdate"),
    featureUpdate: record("featureUpdate"),
    authStatus: record("authStatus"),
    mcpMessage: record("mcpMessage"),
  } as unknown as AgentRequestHandlers;
  const features: ClientFeatures = { modules: activeFeatures({ unstable: on }) };
  return { client: new AcpClient(peer, handlers, features), requests, notifications, called };
}

function send(c: ReturnType<typeof client>, kind: string): void {
  c.notifications
    .get("session/update")!
    .handler({ sessionId: "s", update: { sessionUpdate: kind, ...examples[kind]!.update } });
}

const unstableFeatures = FEATURES.filter((f) => f.unstable);
const kinds = FEATURES.flatMap((f) => f.updateKinds ?? []);
const unstableKinds = unstableFeatures.flatMap((f) => f.updateKinds ?? []);

describe("the feature registry", () => {
  it("knows an example of every update kind a feature owns, and each kind has one owner", () => {
    expect(unstableFeatures.length).toBeGreaterThan(3);
    expect(kinds.sort()).toEqual(Object.keys(examples).sort());
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it("off: no unstable feature is on, advertised, registered or handed an update", () => {
    expect(activeFeatures({ unstable: false }).filter((f) => f.unstable)).toEqual([]);
    expect(activeFeatures().filter((f) => f.unstable)).toEqual([]);
    const c = client(false);
    const caps = c.client.clientCapabilities() as Record<string, unknown>;
    for (const f of unstableFeatures) {
      const own: Record<string, unknown> = {};
      f.fillClientCapabilities?.(own as ClientCapabilities);
      for (const k of Object.keys(own)) expect(caps[k], `${f.name} advertises ${k}`).toBeUndefined();
      expect(featureOn({}, f.name)).toBe(false);
    }
    expect(c.requests.has("mcp/message") || c.notifications.has("auth/status_update")).toBe(false);
    expect(unstableKinds.length).toBeGreaterThan(0);
    for (const kind of unstableKinds) {
      c.called.length = 0;
      send(c, kind);
      expect(
        c.called.map((x) => x.handler),
        kind,
      ).toEqual(["sessionUpdate"]);
      expect(c.called[0]!.args[1]).toMatchObject({ sessionUpdate: "unknown", originalKind: kind });
    }
    const state = new SessionState("a");
    const set = new SessionFeatures(state, new Redactor(), activeFeatures({}));
    for (const kind of unstableKinds) expect(set.handles({ sessionUpdate: kind } as FeatureUpdate), kind).toBe(false);
  });

  it("off: asking for an unstable feature says how to turn it on", () => {
    expect(() => requireFeature({}, "fork")).toThrow(/unstable option.*setup\(\{ unstable = true \}\)/);
    expect(() => requireFeature({}, "title")).toThrow(/renaming sessions needs the unstable option/);
    expect(() => requireFeature({ unstable: true }, "fork")).not.toThrow();
  });

  it("on: each feature's capability is advertised", () => {
    const caps = client(true).client.clientCapabilities() as Record<string, unknown>;
    const filled = FEATURES.filter((f) => f.fillClientCapabilities);
    expect(filled.map((f) => f.name)).toEqual(expect.arrayContaining(["plans", "subagents"]));
    for (const f of filled) {
      const own: Record<string, unknown> = {};
      f.fillClientCapabilities!(own as ClientCapabilities);
      expect(Object.keys(own).length, f.name).toBeGreaterThan(0);
      for (const [k, v] of Object.entries(own)) expect(caps[k], `${f.name}: ${k}`).toEqual(v);
    }
  });

  it("on: the agent's capabilities turn fork and title on, each alone", () => {
    const c = client(true).client;
    c.init = { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { fork: {} } } };
    expect([c.moduleOn("fork"), c.moduleOn("title"), c.moduleOn("usage")]).toEqual([true, false, true]);
    expect(client(false).client.moduleOn("usage")).toBe(false);
  });

  it.each(FEATURES.filter((f) => f.updateKinds))(
    "on: $name's updates reach featureUpdate and are applied by it",
    (f) => {
      const c = client(true);
      const state = new SessionState("a");
      state.beginTurn([{ type: "text", text: "go" }]);
      const all = new SessionFeatures(state, new Redactor(), activeFeatures({ unstable: true }));
      // The feature alone: its own updates are applied (what it needs first aside), and no other's.
      const alone = new SessionFeatures(new SessionState("b"), new Redactor(), [f]);
      for (const kind of f.updateKinds!) {
        expect(alone.handles({ sessionUpdate: kind } as FeatureUpdate), kind).toBe(true);
        for (const other of kinds.filter((k) => !f.updateKinds!.includes(k)))
          expect(alone.handles({ sessionUpdate: other } as FeatureUpdate), `${f.name} handles ${other}`).toBe(false);
      }
      // Through the client, in the order a real agent sends them (a plan before its removal, a child before its messages).
      const order = ["subagent_update", "plan_update", ...f.updateKinds!];
      for (const kind of order) {
        c.called.length = 0;
        send(c, kind);
        expect(
          c.called.map((x) => x.handler),
          kind,
        ).toEqual(["featureUpdate"]);
        const events = all.apply(c.called[0]!.args[1] as FeatureUpdate);
        if (f.updateKinds!.includes(kind))
          expect(
            events.some((e) => "block" in e && e.block.type === examples[kind]!.block),
            `${kind} draws a ${examples[kind]!.block}`,
          ).toBe(true);
      }
      expect(state.blocks.filter((b) => b.type === "note")).toEqual([]);
    },
  );
});
