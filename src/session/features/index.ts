/**
 * The feature modules, and the one place that decides which are on: a feature of the SDK's
 * unstable schema only with the option `unstable` (config.lua), every other always. The core
 * asks here (or asks AcpClient.moduleOn, which was handed this list) instead of branching on the
 * option: moving a feature to stable is its `unstable: false`. A feature with state of its own
 * is a module (plans, session messages, subagents); one that is only data is an entry here.
 */
import { AuthStatusUpdate, MessageMcpRequest } from "../../protocol/unstable-schema.js";
import { plans } from "./plans.js";
import type { Feature } from "./session-features.js";
import { sessionMessages } from "./session-messages.js";
import { subagents } from "./subagents.js";

export type { Feature } from "./session-features.js";
export { SessionFeatures } from "./session-features.js";

/** Whether the agent advertises `sessionCapabilities[name]` (an unstable method's gate). */
const sessionCapability = (name: string) => (agent: { sessionCapabilities?: unknown }) =>
  (agent.sessionCapabilities as Record<string, unknown> | undefined)?.[name] != null;

/**
 * Forking a session (`session/fork`, when the agent advertises `sessionCapabilities.fork`):
 * `:AcpChatFork` starts a new chat from a fork of this one's session (AcpClient.forkSession).
 */
const fork: Feature = {
  name: "fork",
  unstable: true,
  initialize: sessionCapability("fork"),
  offHint: "forking needs the unstable option (session/fork is an unstable ACP method): setup({ unstable = true })",
};

/**
 * Renaming a session (`session/set_title`, when the agent advertises `sessionCapabilities.title`):
 * the last entry of `:AcpChatSessions`' picker (AcpClient.setSessionTitle).
 */
const sessionTitle: Feature = {
  name: "title",
  unstable: true,
  initialize: sessionCapability("title"),
  offHint: "renaming sessions needs the unstable option (session/set_title is an unstable ACP method)",
};

/** A turn's token usage (`PromptResponse.usage`): a line at the turn's end, and in the status. */
const usage: Feature = { name: "usage", unstable: true };

/** `auth/status_update`: the agent's sign-in state changed; the chat says so (AgentRequests). */
const authStatus: Feature = {
  name: "auth-status",
  unstable: true,
  register: (peer, handlers) => {
    if (handlers.authStatus)
      peer.onNotification("auth/status_update", AuthStatusUpdate, (p) => handlers.authStatus?.(p));
  },
};

/** `mcp/message`, for an MCP server declared with the `acp` transport (this client declares none). */
const mcpMessage: Feature = {
  name: "mcp-message",
  unstable: true,
  register: (peer, handlers) => {
    if (handlers.mcpMessage) {
      const handle = handlers.mcpMessage.bind(handlers);
      peer.onRequest("mcp/message", MessageMcpRequest, (p, ctx) => handle(p, ctx));
    }
  },
};

/** Every feature module. Messages before subagents: a turn's end lets their held text out first. */
export const FEATURES: readonly Feature[] = [
  plans,
  sessionMessages,
  subagents,
  fork,
  sessionTitle,
  usage,
  authStatus,
  mcpMessage,
];

/** The configuration that gates them: `unstable`, what the SDK's unstable v1 schema adds. */
export type FeatureConfig = { unstable?: boolean };

/** The features that are on with `config`. */
export function activeFeatures(config: FeatureConfig = {}): Feature[] {
  return FEATURES.filter((f) => !f.unstable || config.unstable === true);
}

/** Whether the feature `name` is on with `config`. */
export function featureOn(config: FeatureConfig, name: string): boolean {
  return activeFeatures(config).some((f) => f.name === name);
}

/** A throw that says why, when the feature `name` is off with `config`. */
export function requireFeature(config: FeatureConfig, name: string): void {
  if (featureOn(config, name)) return;
  const f = FEATURES.find((x) => x.name === name);
  throw new Error(f?.offHint ?? `${name} is off`);
}
