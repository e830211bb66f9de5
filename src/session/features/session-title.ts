/**
 * Renaming a session (`session/set_title`, when the agent advertises `sessionCapabilities.title`):
 * the last entry of `:AcpChatSessions`' picker (AcpClient.setSessionTitle).
 */
import type { Feature } from "./feature.js";

export const sessionTitle: Feature = {
  name: "title",
  unstable: true,
  initialize: (agent) => (agent.sessionCapabilities as Record<string, unknown> | undefined)?.title != null,
  offHint: "renaming sessions needs the unstable option (session/set_title is an unstable ACP method)",
};
