/**
 * Compile-time conformance with the official SDK's exported types (checked by `tsc` in
 * `npm test`): whatever an agent may send, our schemas' input types accept; whatever we send,
 * the SDK's types accept.
 */
import type * as sdk from "@agentclientprotocol/sdk";
import type { z } from "zod";
import { expect, it } from "vitest";
import type * as ours from "../../src/protocol/schema.js";
import type * as out from "../../src/protocol/outgoing.js";

/** Compiles only when `From` is assignable to `To`. */
type Assignable<To, From extends To> = From;

// Agent -> client: the SDK's shapes must pass our schemas' input types.
export type AgentSends = [
  Assignable<z.input<typeof ours.KnownSessionUpdate>, sdk.SessionUpdate & { sessionUpdate: ours.KnownSessionUpdate["sessionUpdate"] }>,
  Assignable<z.input<typeof ours.InitializeResponse>, sdk.InitializeResponse>,
  Assignable<z.input<typeof ours.NewSessionResponse>, sdk.NewSessionResponse>,
  Assignable<z.input<typeof ours.LoadSessionResponse>, sdk.LoadSessionResponse>,
  Assignable<z.input<typeof ours.ListSessionsResponse>, sdk.ListSessionsResponse>,
  Assignable<z.input<typeof ours.PromptResponse>, sdk.PromptResponse>,
  Assignable<z.input<typeof ours.RequestPermissionRequest>, sdk.RequestPermissionRequest>,
  Assignable<z.input<typeof ours.ReadTextFileRequest>, sdk.ReadTextFileRequest>,
  Assignable<z.input<typeof ours.WriteTextFileRequest>, sdk.WriteTextFileRequest>,
  Assignable<z.input<typeof ours.CreateTerminalRequest>, sdk.CreateTerminalRequest>,
  Assignable<z.input<typeof ours.TerminalRequest>, sdk.TerminalOutputRequest>,
  Assignable<z.input<typeof ours.TerminalRequest>, sdk.WaitForTerminalExitRequest>,
  Assignable<z.input<typeof ours.TerminalRequest>, sdk.KillTerminalRequest>,
  Assignable<z.input<typeof ours.TerminalRequest>, sdk.ReleaseTerminalRequest>,
];

// Client -> agent: what we build must be what the SDK expects.
export type ClientSends = [
  Assignable<sdk.InitializeRequest, out.InitializeParams>,
  Assignable<sdk.NewSessionRequest, out.NewSessionParams>,
  Assignable<sdk.LoadSessionRequest, out.LoadSessionParams>,
  Assignable<sdk.ResumeSessionRequest, out.LoadSessionParams>,
  Assignable<sdk.ListSessionsRequest, out.ListSessionsParams>,
  Assignable<sdk.PromptRequest, out.PromptParams>,
  Assignable<sdk.CancelNotification, out.SessionIdParams>,
  Assignable<sdk.CloseSessionRequest, out.SessionIdParams>,
  Assignable<sdk.DeleteSessionRequest, out.SessionIdParams>,
  Assignable<sdk.SetSessionModeRequest, out.SetModeParams>,
  Assignable<sdk.SetSessionConfigOptionRequest, out.SetConfigOptionParams>,
  Assignable<sdk.AuthenticateRequest, out.AuthenticateParams>,
  Assignable<sdk.RequestPermissionResponse, out.PermissionResponse>,
  Assignable<sdk.ReadTextFileResponse, out.ReadTextFileResult>,
  Assignable<sdk.CreateTerminalResponse, out.CreateTerminalResult>,
  Assignable<sdk.TerminalOutputResponse, out.TerminalOutputResult>,
  Assignable<sdk.WaitForTerminalExitResponse, out.TerminalExitResult>,
];

it("is checked by the compiler", () => {
  // The assertions above are types; this keeps vitest from reporting an empty file.
  expect(true).toBe(true);
});
