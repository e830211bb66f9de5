/**
 * Coverage of ACP v1 as this client advertises and handles it, read from the official
 * schema file itself (`@agentclientprotocol/sdk/schema/v1/schema.json`): a new stable variant or
 * client-side method in the SDK fails here until it has a handler.
 * - every client capability the plugin advertises is true, and has a handler;
 * - every session/update variant reaches a named case of SessionState without being "unknown";
 * - every method the agent may call on the client reaches its named AgentRequestHandlers method.
 * (Unstable additions, images/audio in prompts, and LSP completion are out of scope.)
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { AcpClient, type AgentRequestHandlers } from "../../src/client/acp-client.js";
import type { HandlerContext } from "../../src/protocol/jsonrpc.js";
import {
  KNOWN_UPDATE_KINDS,
  OPT_IN_UPDATE_KINDS,
  parseOptInUpdate,
  parseSessionUpdate,
  SessionConfigOption,
} from "../../src/protocol/schema.js";
import { SessionState } from "../../src/session/session-state.js";
import { STABLE_CLIENT_METHODS, leaves, recordingPeer } from "../support/acp-coverage.js";

interface Def {
  $ref?: string;
  properties?: Record<string, Def & { const?: unknown }>;
  oneOf?: Def[];
  "x-method"?: string;
  "x-side"?: string;
}
const require = createRequire(import.meta.url);
const schema = require("@agentclientprotocol/sdk/schema/v1/schema.json") as { $defs: Record<string, Def> };
const defs = schema.$defs;
const src = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");

/** The features the Neovim host turns on (src/nvim/open-chat.ts), read from its source. */
function hostFeatures(): Record<string, boolean> {
  const m = src("src/nvim/open-chat.ts").match(/features: (\{[^}]*\})/);
  expect(m, "open-chat.ts passes features to the Chat").not.toBeNull();
  return Object.fromEntries([...m![1]!.matchAll(/(\w+): (true|false)/g)].map((x) => [x[1]!, x[2] === "true"]));
}

/** Handlers that record which one was called. */
function recordingHandlers() {
  const called: string[] = [];
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
  ];
  const handlers = Object.fromEntries(
    names.map((n) => [
      n,
      (...args: unknown[]) => {
        called.push(n);
        void args;
        return Promise.resolve({});
      },
    ]),
  ) as unknown as AgentRequestHandlers;
  return { handlers, called };
}

function client() {
  const p = recordingPeer();
  const h = recordingHandlers();
  const c = new AcpClient(p.peer, h.handlers, hostFeatures());
  return { ...p, ...h, client: c };
}

/**
 * What handles each capability the client may advertise: the checks a capability needs before it
 * may be advertised. A capability missing here fails the test (decide what handles it).
 */
const capabilityHandlers: Record<string, (c: ReturnType<typeof client>) => void> = {
  "fs.readTextFile": (c) => expect(c.requests.has("fs/read_text_file")).toBe(true),
  "fs.writeTextFile": (c) => expect(c.requests.has("fs/write_text_file")).toBe(true),
  terminal: (c) => {
    for (const m of [
      "terminal/create",
      "terminal/output",
      "terminal/wait_for_exit",
      "terminal/kill",
      "terminal/release",
    ])
      expect(c.requests.has(m), m).toBe(true);
  },
  "auth.terminal": () =>
    expect(src("src/session/chat/connection.ts")).toMatch(/method\.type === "terminal"[\s\S]*runAuthTerminal/),
  "elicitation.form": (c) => expect(c.requests.has("elicitation/create")).toBe(true),
  "elicitation.url": (c) => expect(c.notifications.has("elicitation/complete")).toBe(true),
  "session.notices": () => expect(OPT_IN_UPDATE_KINDS.has("notice")).toBe(true),
  "session.compaction": () => {
    expect(OPT_IN_UPDATE_KINDS.has("compaction_update")).toBe(true);
    expect(OPT_IN_UPDATE_KINDS.has("compaction_summary_chunk")).toBe(true);
  },
  "session.configOptions.boolean": () => {
    expect(src("src/client/acp-client.ts")).toMatch(/type: "boolean", value/);
    const option = { id: "b", name: "B", type: "boolean", currentValue: true };
    expect(SessionConfigOption.parse(option)).toEqual(option);
    expect(SessionConfigOption.safeParse({ ...option, currentValue: "true" }).success).toBe(false);
  },
  "_meta.terminal_output": () =>
    expect(src("src/session/session-state.ts")).toMatch(/applyTerminalMeta\(call, u\._meta\)/),
};

describe("client capabilities", () => {
  it("every capability the plugin advertises is true or present ({}), never false", () => {
    const caps = client().client.clientCapabilities();
    const all = leaves(caps);
    expect(all.length).toBeGreaterThan(5);
    for (const [path, v] of all)
      expect(v === true || (typeof v === "object" && v !== null), `${path} is advertised as ${JSON.stringify(v)}`).toBe(
        true,
      );
  });

  it("every capability advertised has a handler", () => {
    const c = client();
    for (const [path] of leaves(c.client.clientCapabilities())) {
      expect(capabilityHandlers[path], `no handler known for the advertised capability ${path}`).toBeDefined();
      capabilityHandlers[path]!(c);
    }
  });

  it("every capability of the schema's ClientCapabilities is advertised (stable v1)", () => {
    const caps = client().client.clientCapabilities() as Record<string, unknown>;
    const resolve = (d: Def): Def => (d.$ref ? resolve(defs[d.$ref.replace("#/$defs/", "")]!) : d);
    for (const k of Object.keys(defs.ClientCapabilities!.properties!))
      expect(caps[k], `clientCapabilities.${k}`).toBeDefined();
    const session = resolve(defs.ClientSessionCapabilities!);
    for (const k of Object.keys(session.properties!).filter((k) => k !== "_meta"))
      expect((caps.session as Record<string, unknown>)[k], `session.${k}`).toBeDefined();
  });
});

/** A valid example of each session/update variant; a variant of the schema missing here fails. */
const examples: Record<string, Record<string, unknown>> = {
  user_message_chunk: { content: { type: "text", text: "u" } },
  agent_message_chunk: { content: { type: "text", text: "a" } },
  agent_thought_chunk: { content: { type: "text", text: "t" } },
  tool_call: { toolCallId: "t1", title: "Read" },
  tool_call_update: { toolCallId: "t1", status: "completed" },
  plan: { entries: [{ content: "x", priority: "high", status: "pending" }] },
  available_commands_update: { availableCommands: [{ name: "c", description: "d" }] },
  current_mode_update: { currentModeId: "m" },
  config_option_update: { configOptions: [{ id: "b", name: "B", type: "boolean", currentValue: true }] },
  session_info_update: { title: "T" },
  usage_update: { used: 1, size: 10 },
  notice: { severity: "info", title: "N" },
  compaction_update: { compactionId: "c", status: "completed" },
  compaction_summary_chunk: { compactionId: "c", content: { type: "text", text: "s" } },
};

describe("session/update variants of the schema", () => {
  const variants = (defs.SessionUpdate!.oneOf ?? []).map((o) => o.properties!.sessionUpdate!.const as string);
  const state = src("src/session/session-state.ts");

  it("the schema has the variants this test knows (a new one fails here: handle it, then add its example)", () => {
    expect(variants.length).toBeGreaterThan(10);
    expect(variants.filter((v) => !examples[v])).toEqual([]);
  });

  it.each(variants)("%s is parsed and reaches a named case of SessionState", (kind) => {
    expect(KNOWN_UPDATE_KINDS.has(kind) || OPT_IN_UPDATE_KINDS.has(kind)).toBe(true);
    expect(state, `session-state.ts has case "${kind}"`).toContain(`case "${kind}":`);
    const s = new SessionState("a");
    s.beginTurn([{ type: "text", text: "go" }]);
    const update = parseOptInUpdate(parseSessionUpdate({ sessionUpdate: kind, ...examples[kind] }));
    expect(update.sessionUpdate).toBe(kind);
    const events = s.apply(update);
    expect(events.length).toBeGreaterThan(0);
    expect(s.unknownKinds.size).toBe(0);
    expect(s.blocks.some((b) => b.type === "note" && b.level === "warn")).toBe(false);
  });
});

const clientMethods = STABLE_CLIENT_METHODS;

describe("client-side methods of the schema", () => {
  const methods = Object.values(defs)
    .filter((d) => d["x-side"] === "client" && d["x-method"])
    .map((d) => d["x-method"]!)
    .filter((m, i, all) => all.indexOf(m) === i);

  it("the schema has the methods this test knows (a new one fails here)", () => {
    expect(methods.length).toBeGreaterThan(8);
    expect(methods.filter((m) => !clientMethods[m])).toEqual([]);
  });

  it.each(methods)("%s reaches its named handler", async (method) => {
    const c = client();
    const { params, handler } = clientMethods[method]!;
    const reg = c.requests.get(method) ?? c.notifications.get(method);
    expect(reg, `${method} is registered`).toBeDefined();
    const parsed = reg!.schema ? reg!.schema.parse(params) : params;
    await reg!.handler(parsed, { signal: new AbortController().signal, id: 1 } as HandlerContext);
    expect(c.called).toEqual([handler]);
  });
});
