/**
 * What a feature module tells the ACP client, as vscode-languageclient's `StaticFeature`: the
 * capabilities it advertises at `initialize`, whether the agent's capabilities turn it on, the
 * session/update kinds it owns and the agent's methods it answers. The modules themselves, and
 * the one place that decides which are on, are src/session/features/.
 */
import type { HandlerContext, AcpPeer } from "../protocol/jsonrpc.js";
import type { InitializeResponse, SessionUpdate, UnknownSessionUpdate } from "../protocol/schema.js";
import type { AuthStatusUpdate, MessageMcpRequest, UnstableSessionUpdate } from "../protocol/unstable-schema.js";
import type * as out from "../protocol/outgoing.js";

/** A session/update that a feature module handles rather than SessionState. */
export type FeatureUpdate = UnstableSessionUpdate;

export type ClientCapabilities = out.InitializeParams["clientCapabilities"];
export type AgentCapabilities = NonNullable<InitializeResponse["agentCapabilities"]>;

/** What the client does for the feature modules' methods; every one may throw RpcError. */
export interface FeatureRequestHandlers {
  /** An update a feature module owns (FeatureUpdate), for this session or a child's. */
  featureUpdate?(sessionId: string, update: FeatureUpdate): void;
  /** `auth/status_update`: the agent's sign-in state changed. */
  authStatus?(update: AuthStatusUpdate): void;
  /** `mcp/message`, for an MCP server declared with the `acp` transport. */
  mcpMessage?(req: MessageMcpRequest, ctx: HandlerContext): Promise<unknown>;
}

export interface ClientFeature {
  /** How the core asks for it (AcpClient.supports, the registry's `on`). */
  readonly name: string;
  /** Part of the SDK's unstable schema: on only with the option `unstable`. */
  readonly unstable: boolean;
  /** What the client advertises for it in `initialize`. */
  fillClientCapabilities?(caps: ClientCapabilities): void;
  /** Whether the agent's capabilities (after `initialize`) let it work; without this, always. */
  initialize?(agent: AgentCapabilities): boolean;
  /** The session/update kinds it owns: handed to `featureUpdate`, not to SessionState. */
  readonly updateKinds?: readonly string[];
  /** One of its kinds that the schema's parse left unknown, parsed (or unknown with the reason). */
  parseUpdate?(update: UnknownSessionUpdate): SessionUpdate | FeatureUpdate;
  /** The agent's methods it answers, registered on the connection. */
  register?(peer: AcpPeer, handlers: FeatureRequestHandlers): void;
}
