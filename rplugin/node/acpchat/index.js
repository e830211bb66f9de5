// The remote plugin as the neovim node host loads it (require()). The code lives in src/ and
// is bundled by `npm run build` into dist/acpchat.cjs, loaded here with its V8 code cache
// (src/nvim/code-cache.ts: dist/acpchat.cjs.v8cache, else one in $ACPCHAT_CACHE_DIR).
const { existsSync } = require("node:fs");
const { join } = require("node:path");

const dist = join(__dirname, "..", "..", "..", "dist");
const cacheDir = process.env.ACPCHAT_CACHE_DIR;
// Only the host reads it: agents and terminals it starts do not inherit it.
delete process.env.ACPCHAT_CACHE_DIR;
const loader = join(dist, "code-cache.cjs");
// A build older than the loader: the bundle as it is, compiled without a cache.
module.exports = existsSync(loader)
  ? require(loader).loadBundle(join(dist, "acpchat.cjs"), { userDir: cacheDir })
  : require(join(dist, "acpchat.cjs"));
