/**
 * The MCP SDK's part (http-sdk.ts, a bundle of its own), loaded once, on first use: by the http
 * endpoint's first chat or the first stdio server that proves its token, not at the host's start.
 */
let sdk: Promise<typeof import("./http-sdk.js")> | undefined;
export const loadMcpSdk = () => (sdk ??= import("./http-sdk.js"));
