/**
 * The agent's calls to the client that the unstable schema adds: `auth/status_update` (its
 * sign-in state changed; the chat says so) and `mcp/message` (for an MCP server declared with
 * the `acp` transport; this client declares none). Handled by AgentRequests.
 */
import { AuthStatusUpdate, MessageMcpRequest } from "../../protocol/unstable-schema.js";
import type { Feature } from "./feature.js";

export const authStatus: Feature = {
  name: "auth-status",
  unstable: true,
  register: (peer, handlers) => {
    if (handlers.authStatus)
      peer.onNotification("auth/status_update", AuthStatusUpdate, (p) => handlers.authStatus?.(p));
  },
};

export const mcpMessage: Feature = {
  name: "mcp-message",
  unstable: true,
  register: (peer, handlers) => {
    if (handlers.mcpMessage) {
      const handle = handlers.mcpMessage.bind(handlers);
      peer.onRequest("mcp/message", MessageMcpRequest, (p, ctx) => handle(p, ctx));
    }
  },
};
