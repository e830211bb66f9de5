/**
 * What the HTTP front (http-front.ts) needs of the MCP SDK, in a bundle of its own
 * (dist/acpchat-http.cjs, scripts/build.mjs): the SDK with Ajv, Hono and a zod v3 is a third of
 * the remote plugin's code, which every host's start would compile; only chats whose agent
 * takes http MCP servers load it.
 */
export { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
export { editorMcpServer } from "./mcp-tools.js";
