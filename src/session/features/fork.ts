/**
 * Forking a session (`session/fork`, when the agent advertises `sessionCapabilities.fork`):
 * `:AcpChatFork` starts a new chat from a fork of this one's session (AcpClient.forkSession).
 */
import type { Feature } from "./feature.js";

export const fork: Feature = {
  name: "fork",
  unstable: true,
  initialize: (agent) => (agent.sessionCapabilities as Record<string, unknown> | undefined)?.fork != null,
  offHint: "forking needs the unstable option (session/fork is an unstable ACP method): setup({ unstable = true })",
};
