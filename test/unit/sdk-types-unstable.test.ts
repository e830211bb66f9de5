/**
 * The unstable additions (option `unstable`) against the official SDK's *unstable* types
 * (`@agentclientprotocol/sdk/unstable`), checked by `tsc` like sdk-types.test.ts does for the
 * stable ones: what an agent may send, our schemas' input types accept; what we send, the SDK's
 * types accept. The run-time half (every variant and method handled) is acp-coverage-unstable.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type * as usdk from "@agentclientprotocol/sdk/unstable";
import type * as ours from "../../src/protocol/unstable-schema.js";
import type * as out from "../../src/protocol/outgoing.js";

type Assignable<To, From extends To> = From;

// Agent -> client.
export type AgentSendsUnstable = [
  Assignable<
    z.input<typeof ours.UnstableSessionUpdate>,
    usdk.SessionUpdate & { sessionUpdate: ours.UnstableSessionUpdate["sessionUpdate"] }
  >,
  Assignable<z.input<typeof ours.AuthStatusUpdate>, usdk.AuthStatusUpdateNotification>,
  Assignable<z.input<typeof ours.MessageMcpRequest>, usdk.MessageMcpRequest>,
  Assignable<z.input<typeof ours.ForkSessionResponse>, usdk.ForkSessionResponse>,
  Assignable<z.input<typeof ours.SetSessionTitleResponse>, usdk.SetSessionTitleResponse>,
];

// Client -> agent: the capabilities added with the option, and the params of fork and set_title
// as acp-client.ts builds them (the session id and what session/new sends).
export type ClientSendsUnstable = [
  Assignable<
    usdk.ClientCapabilities,
    out.InitializeParams["clientCapabilities"] & { plan: Record<string, never>; subagents: Record<string, never> }
  >,
  Assignable<usdk.ForkSessionRequest, { sessionId: string } & out.NewSessionParams>,
  Assignable<usdk.SetSessionTitleRequest, { sessionId: string; title: string }>,
];

describe("unstable SDK types", () => {
  it("are checked by tsc (this file compiles only when they agree)", () => {
    const checked: (AgentSendsUnstable | ClientSendsUnstable)[] = [];
    expect(checked).toEqual([]);
  });
});
