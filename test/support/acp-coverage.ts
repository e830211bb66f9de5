/**
 * What the ACP coverage tests (test/unit/acp-coverage*.test.ts, stable and unstable schema)
 * share: a peer that records what the client registers, the leaves of a capability object, and
 * valid params for each client-side method of the stable schema with the handler that must get it.
 */
import type { z } from "zod";
import type { AgentRequestHandlers } from "../../src/client/acp-client.js";
import type { HandlerContext, JsonRpcPeer } from "../../src/protocol/jsonrpc.js";

/** A peer that only records what the client registers. */
export function recordingPeer() {
  const requests = new Map<string, { schema?: z.ZodType; handler: (p: unknown, ctx: HandlerContext) => unknown }>();
  const notifications = new Map<string, { schema?: z.ZodType; handler: (p: unknown) => unknown }>();
  const peer = {
    onRequest: (method: string, schema: z.ZodType | undefined, handler: (p: unknown, ctx: HandlerContext) => unknown) =>
      requests.set(method, { schema, handler }),
    onNotification: (method: string, schema: z.ZodType | undefined, handler: (p: unknown) => unknown) =>
      notifications.set(method, { schema, handler }),
    // Coalescing of text chunks (a peer feature, not a handler): nothing to record.
    coalesce: () => ({ dispose: () => undefined }),
  };
  return { peer: peer as unknown as JsonRpcPeer, requests, notifications };
}

/** The leaves of an advertised capability object, by dotted path: `true`, `false` or `{}` (present). */
export function leaves(v: unknown, path = ""): [string, unknown][] {
  if (v === null || typeof v !== "object" || Object.keys(v).length === 0) return [[path, v]];
  return Object.entries(v).flatMap(([k, x]) => leaves(x, path ? `${path}.${k}` : k));
}

export type ClientMethodCase = { params: Record<string, unknown>; handler: keyof AgentRequestHandlers };

/** Valid params for each method the agent may call on the client (stable schema), and its handler. */
export const STABLE_CLIENT_METHODS: Record<string, ClientMethodCase> = {
  "session/update": {
    params: { sessionId: "s", update: { sessionUpdate: "notice", severity: "info", title: "n" } },
    handler: "sessionUpdate",
  },
  "session/request_permission": {
    params: {
      sessionId: "s",
      toolCall: { toolCallId: "t" },
      options: [{ optionId: "o", name: "Allow", kind: "allow_once" }],
    },
    handler: "requestPermission",
  },
  "fs/read_text_file": { params: { sessionId: "s", path: "/a" }, handler: "readTextFile" },
  "fs/write_text_file": { params: { sessionId: "s", path: "/a", content: "x" }, handler: "writeTextFile" },
  "terminal/create": { params: { sessionId: "s", command: "ls" }, handler: "createTerminal" },
  "terminal/output": { params: { sessionId: "s", terminalId: "t" }, handler: "terminalOutput" },
  "terminal/wait_for_exit": { params: { sessionId: "s", terminalId: "t" }, handler: "waitForTerminalExit" },
  "terminal/kill": { params: { sessionId: "s", terminalId: "t" }, handler: "killTerminal" },
  "terminal/release": { params: { sessionId: "s", terminalId: "t" }, handler: "releaseTerminal" },
  "elicitation/create": {
    params: { sessionId: "s", message: "m", mode: "form", requestedSchema: { type: "object", properties: {} } },
    handler: "elicit",
  },
  "elicitation/complete": { params: { elicitationId: "e" }, handler: "elicitationComplete" },
};
