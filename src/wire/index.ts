/**
 * The shapes that cross between Node and Lua, each owned once (the contract, src/nvim/contract.ts,
 * names them in its calls and events; the modules above build to them). src/wire/ is the bottom
 * layer: it imports nothing (test/unit/architecture.test.ts). The generator
 * (scripts/gen-contract-meta.mjs) reads them in this order.
 */
export type * from "./transcript.js";
export type * from "./prompt.js";
export type * from "./config.js";
export type * from "./trace.js";
export type * from "./buffers.js";
export type * from "./questions.js";
