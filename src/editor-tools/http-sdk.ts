/**
 * What the editor's MCP server needs of the MCP SDK, in a bundle of its own
 * (dist/acpchat-http.cjs, scripts/build.mjs): the SDK with Ajv, Hono and a zod v3 is a third of
 * the remote plugin's code, which every host's start would compile; it is loaded (sdk-loader.ts)
 * when a chat's agent first connects to the editor's tools, over http or through the stdio
 * server's socket.
 */
export { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
export { editorMcpServer } from "./mcp-tools.js";
export { SocketTransport } from "./socket-transport.js";
