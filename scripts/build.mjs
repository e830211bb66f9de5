// Builds the remote plugin: the zod layer generated from ACP's schema (scripts/gen-schemas.mjs),
// then one CommonJS bundle (the node host loads plugins with require(), while execa and zod are
// ESM-only), then the Lua mirrors of the Lua <-> Node contract: its method names and its LuaCATS
// classes (paths: LUA_OUT in scripts/gen-contract-meta.mjs).
import { build } from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { canGenerate, contractMeta, LUA_OUT } from "./gen-contract-meta.mjs";
import { canGenerate as canGenerateSchemas, writeSchemas } from "./gen-schemas.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const outfile = join(root, "dist", "acpchat.cjs");

// Both bundles: CommonJS for Node 20, everything but `neovim` inside.
const common = {
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  logLevel: "warning",
  legalComments: "none",
};

// The zod layer generated from the ACP SDK's schema.json, before it is bundled. A user's install
// has neither the SDK nor Biome (devDependencies) and keeps the committed files, which a unit test
// holds to the generator.
const schemas = canGenerateSchemas() ? writeSchemas().join(", ") : "src/protocol/generated/ kept (no SDK here)";

/**
 * esbuild escapes non-ASCII in code but keeps it in the comments it carries over (a dash, an
 * accented word). One such character makes Node decode the whole file as UTF-8 into a two-byte
 * string, and V8 compile that: ~20 ms more of every host's start (and every agent's MCP server)
 * than an ASCII file of the same length. Each UTF-16 unit becomes one `?`, so the source map's
 * columns still hold.
 */
function asciiOnly(file) {
  const text = readFileSync(file, "utf8");
  if (/[^\x00-\x7f]/.test(text)) writeFileSync(file, text.replace(/[^\x00-\x7f]/g, "?"));
}

/**
 * src/editor-tools/http-sdk.ts (the MCP SDK, a third of the code) is left out of the remote
 * plugin's bundle and built into dist/acpchat-http.cjs beside it: a host compiles all of its
 * bundle at start, and only agents that take http MCP servers need the SDK. The dynamic import()
 * becomes a require() of the file next to the bundle.
 */
const httpSdkApart = {
  name: "http-sdk-apart",
  setup(b) {
    b.onResolve({ filter: /\/http-sdk\.js$/ }, () => ({ path: "./acpchat-http.cjs", external: true }));
  },
};

await build({
  ...common,
  entryPoints: [join(root, "src", "nvim", "plugin.ts")],
  outfile,
  sourcemap: "linked",
  // The host passes the `neovim` objects in; only types are imported from it.
  external: ["neovim"],
  plugins: [httpSdkApart],
  // The bundle runs as a vm.Script (src/nvim/code-cache.ts), where import() needs a loader of its
  // own: the one import() left (the http SDK's bundle) becomes a require().
  supported: { "dynamic-import": false },
});
asciiOnly(outfile);
// What the http front imports of the MCP SDK, on the first chat that needs it.
await build({
  ...common,
  entryPoints: [join(root, "src", "editor-tools", "http-sdk.ts")],
  outfile: join(root, "dist", "acpchat-http.cjs"),
});
asciiOnly(join(root, "dist", "acpchat-http.cjs"));

// The node host Lua starts: the node client's host with winston replaced by a light logger of
// the same contract (src/nvim/host-main.ts, host-logger.ts). It loads the bundle above with a
// require() of the plugin's path, made at run time (left as it is, without a warning).
await build({
  ...common,
  entryPoints: [join(root, "src", "nvim", "host-main.ts")],
  outfile: join(root, "dist", "host.cjs"),
  alias: { winston: join(root, "src", "nvim", "host-logger.ts") },
  logOverride: { "unsupported-require-call": "silent" },
});
asciiOnly(join(root, "dist", "host.cjs"));

// The editor's MCP server (src/editor-tools/mcp-server.ts), a script of its own that agents start
// with plain `node`: everything it needs, the MCP SDK included, is in the bundle.
await build({
  ...common,
  entryPoints: [join(root, "src", "editor-tools", "mcp-server.ts")],
  outfile: join(root, "dist", "acpchat-mcp.cjs"),
});
asciiOnly(join(root, "dist", "acpchat-mcp.cjs"));

// The loader that runs the bundle with its V8 code cache (rplugin/node/acpchat/index.js).
await build({
  ...common,
  entryPoints: [join(root, "src", "nvim", "code-cache.ts")],
  outfile: join(root, "dist", "code-cache.cjs"),
});

// The bundle's code cache, dist/acpchat.cjs.v8cache: the loader runs the bundle's top level (so
// what a host runs at start is compiled) and then writes what V8 compiled. It fits the Node that
// built it; a host under another Node makes its own in the user's cache (src/nvim/code-cache.ts).
// The Lua mirror of the contract (src/nvim/contract.ts) is taken from that same run of the bundle,
// so the two cannot drift apart. Names are in their wire form (snake_case).
const require = createRequire(import.meta.url);
const mod = require(join(root, "dist", "code-cache.cjs")).loadBundle(outfile, { build: true });
const wire = (k) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const list = (names) => names.map((n) => `    ${JSON.stringify(wire(n))},`);
const lua = [
  "-- Generated by scripts/build.mjs from src/nvim/contract.ts: do not edit.",
  "-- The methods that cross between Lua and Node (see lua/acpchat/host/bridge.lua).",
  "return {",
  "  -- Lua -> Node: RPC notifications; an answer, when asked for, comes back as the `result` event.",
  "  calls = {",
  ...list(mod.LUA_METHODS),
  "  },",
  "  -- Node -> Lua: events (notifications).",
  "  events = {",
  ...list(mod.NODE_EVENTS),
  "  },",
  "  -- Node -> Lua: buffer requests that answer at once and never wait on the user.",
  "  requests = {",
  ...list(mod.NODE_REQUESTS),
  "  },",
  `  -- The remote plugin's one function.`,
  `  notify_function = ${JSON.stringify(mod.FUNCTION_NAME)},`,
  "}",
  "",
].join("\n");
writeFileSync(join(root, LUA_OUT.names), lua);
// Its types, from the TypeScript types themselves (the compiler's checker): LuaCATS classes. A
// user's install has no TypeScript (runtime packages only) and keeps the committed file, which a
// unit test holds to the sources.
let meta = `${LUA_OUT.meta} kept (no TypeScript here: npm ci --omit=dev)`;
if (canGenerate()) {
  mkdirSync(dirname(join(root, LUA_OUT.meta)), { recursive: true });
  writeFileSync(join(root, LUA_OUT.meta), contractMeta(root));
  meta = LUA_OUT.meta;
}
process.stdout.write(
  `built ${outfile} (+ .v8cache), ${LUA_OUT.names} (${mod.LUA_METHODS.length} calls, ${mod.NODE_EVENTS.length} events), ${meta} and ${schemas}\n`,
);
// The host's signal handlers from the bundle must not keep this build process alive.
process.exit(0);
