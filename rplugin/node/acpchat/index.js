// The remote plugin as the neovim node host loads it (require()). The code lives in src/ and
// is bundled by `npm run build` into dist/acpchat.cjs, loaded here with its V8 code cache
// (src/nvim/code-cache.ts: dist/acpchat.cjs.v8cache, else one in $ACPCHAT_CACHE_DIR).
const { join } = require("node:path");

const dist = join(__dirname, "..", "..", "..", "dist");
const cacheDir = process.env.ACPCHAT_CACHE_DIR;
// Only the host reads it: agents and terminals it starts do not inherit it.
delete process.env.ACPCHAT_CACHE_DIR;
module.exports = require(join(dist, "code-cache.cjs")).loadBundle(join(dist, "acpchat.cjs"), { userDir: cacheDir });
