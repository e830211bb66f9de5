// The remote plugin as the neovim node host loads it (require()). The code lives in src/ and
// is bundled by `npm run build` into dist/acpchat.cjs.
module.exports = require("../../../dist/acpchat.cjs");
