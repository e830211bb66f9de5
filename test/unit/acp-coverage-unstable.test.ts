/**
 * Coverage of the *unstable* v1 schema (`@agentclientprotocol/sdk/schema/v1/schema.unstable.json`)
 * as this client advertises and handles it with the option `unstable` on, read from
 * the schema file itself: a new unstable variant or client-side method in the SDK fails here
 * until it has a handler.
 * - with the option on, every capability advertised is true or `{}` and has a handler, and every
 *   client capability of the unstable ClientCapabilities is advertised;
 * - every session/update variant of the unstable schema reaches a named handler: the stable
 *   ones SessionState (acp-coverage.test.ts), the unstable ones a named case of the feature
 *   module that owns the kind (src/session/features/), through AcpClient, without becoming "unknown";
 * - every method the agent may call on the client reaches its named handler;
 * - with the option off, nothing unstable is advertised or registered, and the unstable variants
 *   arrive as unknown (the note the user sees).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { AcpClient, type AgentRequestHandlers } from "../../src/client/acp-client.js";
import type { HandlerContext } from "../../src/protocol/jsonrpc.js";
import { KNOWN_UPDATE_KINDS, OPT_IN_UPDATE_KINDS, type SessionUpdate } from "../../src/protocol/schema.js";
import { UNSTABLE_UPDATE_KINDS, type UnstableSessionUpdate } from "../../src/protocol/unstable-schema.js";
import { SessionState } from "../../src/session/session-state.js";
import { FEATURES, SessionFeatures, activeFeatures } from "../../src/session/features/index.js";
import { Redactor } from "../../src/trace/redact.js";
import { STABLE_CLIENT_METHODS, leaves, recordingPeer, type ClientMethodCase } from "../support/acp-coverage.js";

interface Def {
  $ref?: string;
  properties?: Record<string, Def & { const?: unknown }>;
  oneOf?: Def[];
  "x-method"?: string;
  "x-side"?: string;
}
const require = createRequire(import.meta.url);
const unstable = (require("@agentclientprotocol/sdk/schema/v1/schema.unstable.json") as { $defs: Record<string, Def> })
  .$defs;
const stable = (require("@agentclientprotocol/sdk/schema/v1/schema.json") as { $defs: Record<string, Def> }).$defs;
const src = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

/** The features the Neovim host turns on (src/nvim/open-chat.ts, read from its source), and the option. */
function hostFeatures(on: boolean): Record<string, boolean> {
  const m = src("src/nvim/open-chat.ts").match(/features: (\{[^}]*\})/);
  expect(m, "open-chat.ts passes features to the Chat").not.toBeNull();
  expect(m![1], "the host passes the unstable option on").toContain("unstable: p.unstable === true");
  return {
    ...Object.fromEntries([...m![1]!.matchAll(/(\w+): (true|false)/g)].map((x) => [x[1]!, x[2] === "true"])),
    unstable: on,
  };
}

/** What open-chat.ts hands the client: its features, and the feature modules the option turns on. */
const clientFeatures = (on: boolean) => ({ ...hostFeatures(on), modules: activeFeatures({ unstable: on }) });

/** A client over a peer that records what it registers, with handlers that record their calls. */
function client(on: boolean) {
  const { peer, requests, notifications } = recordingPeer();
  const called: { handler: string; args: unknown[] }[] = [];
  const names: (keyof AgentRequestHandlers)[] = [
    "sessionUpdate",
    "requestPermission",
    "readTextFile",
    "writeTextFile",
    "createTerminal",
    "terminalOutput",
    "waitForTerminalExit",
    "killTerminal",
    "releaseTerminal",
    "elicit",
    "elicitationComplete",
    "featureUpdate",
    "authStatus",
    "mcpMessage",
  ];
  const handlers = Object.fromEntries(
    names.map((n) => [n, (...args: unknown[]) => (called.push({ handler: n, args }), Promise.resolve({}))]),
  ) as unknown as AgentRequestHandlers;
  return { client: new AcpClient(peer, handlers, clientFeatures(on)), requests, notifications, called };
}

/** What handles each unstable capability the client advertises (a new one fails: decide what handles it). */
const unstableCapabilityHandlers: Record<string, () => void> = {
  plan: () => {
    for (const k of ["plan_update", "plan_removed"]) expect(UNSTABLE_UPDATE_KINDS.has(k), k).toBe(true);
  },
  subagents: () => {
    for (const k of ["subagent_update", "session_message", "session_message_chunk"])
      expect(UNSTABLE_UPDATE_KINDS.has(k), k).toBe(true);
    // The children's own session/update notifications reach their transcript.
    expect(src("src/session/chat/updates.ts")).toMatch(/features\.route\(sessionId, update\)/);
  },
};

describe("client capabilities with the option on and off", () => {
  it("on: plan and subagents are advertised as {} and have a handler; every unstable ClientCapabilities key is advertised", () => {
    const caps = client(true).client.clientCapabilities() as Record<string, unknown>;
    for (const [path, v] of leaves(caps))
      expect(v === true || (typeof v === "object" && v !== null), `${path} is advertised as ${JSON.stringify(v)}`).toBe(
        true,
      );
    const added = Object.keys(unstable.ClientCapabilities!.properties!).filter(
      (k) => !(k in stable.ClientCapabilities!.properties!),
    );
    expect(added.length).toBeGreaterThan(0);
    for (const k of added) {
      expect(caps[k], `clientCapabilities.${k}`).toEqual({});
      expect(unstableCapabilityHandlers[k], `no handler known for the unstable capability ${k}`).toBeDefined();
      unstableCapabilityHandlers[k]!();
    }
  });

  it("off: nothing of the unstable schema is advertised", () => {
    const caps = client(false).client.clientCapabilities() as Record<string, unknown>;
    for (const k of Object.keys(caps))
      expect(stable.ClientCapabilities!.properties![k], `clientCapabilities.${k} is stable`).toBeDefined();
    expect(caps.plan).toBeUndefined();
    expect(caps.subagents).toBeUndefined();
  });
});

/** A valid example of each unstable session/update variant; a variant of the schema missing here fails. */
const examples: Record<string, Record<string, unknown>[]> = {
  plan_update: [
    { plan: { type: "items", planId: "p1", entries: [{ content: "x", priority: "high", status: "pending" }] } },
    { plan: { type: "markdown", planId: "p2", content: "# Plan\n- a" } },
    { plan: { type: "file", planId: "p3", uri: "file:///tmp/plan%20one.md" } },
  ],
  plan_removed: [{ planId: "p1" }],
  subagent_update: [
    { sessionId: "child-1", title: "Researcher", description: "reads the docs", state: { state: "running" } },
  ],
  session_message: [{ messageId: "m1", recipientSessionId: "child-1", content: [{ type: "text", text: "look up X" }] }],
  session_message_chunk: [{ messageId: "m1", content: { type: "text", text: " please" } }],
};

describe("session/update variants of the unstable schema", () => {
  const variants = (unstable.SessionUpdate!.oneOf ?? []).map((o) => o.properties!.sessionUpdate!.const as string);
  const unstableOnly = variants.filter((v) => !KNOWN_UPDATE_KINDS.has(v) && !OPT_IN_UPDATE_KINDS.has(v));
  /** The source of the feature module that owns `kind` (its file is named for it). */
  const owner = (kind: string) => {
    const f = FEATURES.find((x) => x.updateKinds?.includes(kind));
    expect(f, `a feature module owns ${kind}`).toBeDefined();
    return { name: f!.name, text: src(`src/session/features/${f!.name}.ts`) };
  };

  it("the unstable schema has the variants this test knows (a new one fails here: handle it, then add its example)", () => {
    expect(unstableOnly.length).toBeGreaterThan(3);
    expect(unstableOnly.filter((v) => !examples[v])).toEqual([]);
    expect([...UNSTABLE_UPDATE_KINDS].sort()).toEqual([...unstableOnly].sort());
  });

  it("the stable variants it shares with schema.json are the ones acp-coverage.test.ts covers", () => {
    const stableVariants = (stable.SessionUpdate!.oneOf ?? []).map((o) => o.properties!.sessionUpdate!.const as string);
    expect(variants.filter((v) => !unstableOnly.includes(v)).sort()).toEqual([...stableVariants].sort());
  });

  it.each(unstableOnly)(
    "%s, option on: parsed, handed to featureUpdate, and applied by a named case of its feature module",
    (kind) => {
      const logic = owner(kind);
      expect(logic.text, `${logic.name}.ts has case "${kind}"`).toContain(`case "${kind}":`);
      const c = client(true);
      const state = new SessionState("a");
      state.beginTurn([{ type: "text", text: "go" }]);
      const u = new SessionFeatures(state, new Redactor(), activeFeatures({ unstable: true }));
      // What a real agent sends first (a plan to remove, a child to message), then the example.
      const before =
        kind === "plan_removed"
          ? examples.plan_update!.slice(0, 1).map((e) => ({ sessionUpdate: "plan_update", ...e }))
          : kind.startsWith("session_message")
            ? [{ sessionUpdate: "subagent_update", ...examples.subagent_update![0] }]
            : [];
      for (const example of [...before, ...examples[kind]!.map((e) => ({ sessionUpdate: kind, ...e }))]) {
        c.called.length = 0;
        c.notifications.get("session/update")!.handler({ sessionId: "s", update: example });
        expect(c.called.map((x) => x.handler)).toEqual(["featureUpdate"]);
        const update = c.called[0]!.args[1] as UnstableSessionUpdate;
        expect(update.sessionUpdate).toBe(example.sessionUpdate);
        expect(u.apply(update).length).toBeGreaterThan(0);
      }
      expect(state.blocks.some((b) => b.type === "note")).toBe(false);
      expect(state.unknownKinds.size).toBe(0);
    },
  );

  it.each(unstableOnly)("%s, option off: reaches sessionUpdate as an unknown update (the note, as before)", (kind) => {
    const c = client(false);
    c.notifications
      .get("session/update")!
      .handler({ sessionId: "s", update: { sessionUpdate: kind, ...examples[kind]![0] } });
    expect(c.called.map((x) => x.handler)).toEqual(["sessionUpdate"]);
    const update = c.called[0]!.args[1] as SessionUpdate;
    expect(update).toMatchObject({ sessionUpdate: "unknown", originalKind: kind });
    const state = new SessionState("a");
    state.apply(update);
    expect(state.blocks).toEqual([
      expect.objectContaining({ type: "note", level: "warn", text: `unknown session/update variant "${kind}"` }),
    ]);
  });

  it("an unstable variant the agent got wrong stays unknown with the reason, option on", () => {
    const c = client(true);
    c.notifications
      .get("session/update")!
      .handler({ sessionId: "s", update: { sessionUpdate: "plan_update", plan: { type: "items" } } });
    expect(c.called.map((x) => x.handler)).toEqual(["sessionUpdate"]);
    expect(c.called[0]!.args[1]).toMatchObject({
      sessionUpdate: "unknown",
      reason: expect.stringMatching(/^invalid plan_update: plan/),
    });
  });
});

/** Valid params for each client-side method of the unstable schema, and the handler that must get it. */
const clientMethods: Record<string, ClientMethodCase> = {
  ...STABLE_CLIENT_METHODS,
  "session/update": {
    params: { sessionId: "s", update: { sessionUpdate: "plan_removed", planId: "p" } },
    handler: "featureUpdate",
  },
  "auth/status_update": {
    params: { state: "unauthenticated", accounts: [{ label: "Claude Max", active: true }] },
    handler: "authStatus",
  },
  "mcp/message": { params: { serverId: "srv", requestId: 1, method: "tools/list" }, handler: "mcpMessage" },
};

const clientSide = (defs: Record<string, Def>) =>
  Object.values(defs)
    .filter((d) => d["x-side"] === "client" && d["x-method"])
    .map((d) => d["x-method"]!)
    .filter((m, i, all) => all.indexOf(m) === i);

describe("client-side methods of the unstable schema", () => {
  const methods = clientSide(unstable);
  const unstableOnly = methods.filter((m) => !clientSide(stable).includes(m));

  it("the unstable schema has the methods this test knows (a new one fails here)", () => {
    expect(unstableOnly.length).toBeGreaterThan(0);
    expect(methods.filter((m) => !clientMethods[m])).toEqual([]);
  });

  it.each(methods)("%s, option on: reaches its named handler", async (method) => {
    const c = client(true);
    const { params, handler } = clientMethods[method]!;
    const reg = c.requests.get(method) ?? c.notifications.get(method);
    expect(reg, `${method} is registered`).toBeDefined();
    const parsed = reg!.schema ? reg!.schema.parse(params) : params;
    await reg!.handler(parsed, { signal: new AbortController().signal, id: 1 } as HandlerContext);
    expect(c.called.map((x) => x.handler)).toEqual([handler]);
  });

  it("option off: the unstable-only methods are not registered (a request gets -32601, a notification is ignored)", () => {
    const c = client(false);
    for (const m of unstableOnly) expect(c.requests.has(m) || c.notifications.has(m), m).toBe(false);
  });
});

describe("agent-side methods the client calls with the option on", () => {
  it("session/fork and session/set_title are methods of the unstable schema, gated on their capabilities", () => {
    const agentSide = Object.values(unstable)
      .filter((d) => d["x-side"] === "agent" && d["x-method"])
      .map((d) => d["x-method"]);
    expect(agentSide).toContain("session/fork");
    expect(agentSide).toContain("session/set_title");
    const client = src("src/client/acp-client.ts");
    expect(client).toMatch(/this\.require\("fork", "sessionCapabilities\.fork/);
    expect(client).toMatch(/this\.require\("title", "sessionCapabilities\.title/);
  });

  it("fork and title are supported only with the option on and the agent's capability", () => {
    const on = client(true).client;
    const off = client(false).client;
    const init = { protocolVersion: 1, agentCapabilities: { sessionCapabilities: { fork: {}, title: {} } } };
    on.init = init;
    off.init = init;
    expect([on.supports("fork"), on.supports("title")]).toEqual([true, true]);
    expect([off.supports("fork"), off.supports("title")]).toEqual([false, false]);
    on.init = { protocolVersion: 1, agentCapabilities: { sessionCapabilities: {} } };
    expect([on.supports("fork"), on.supports("title")]).toEqual([false, false]);
  });
});
