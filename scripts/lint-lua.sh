#!/usr/bin/env bash
# npm run lint:lua: the Lua checked three ways, every failure reported before the exit code says so.
#   luacheck (Debian's lua-check)   undefined, unused and shadowed names (.luacheckrc)
#   lua-language-server --check     types and annotations (.luarc.json), against the Neovim
#                                   runtime of the project's own nvim (scripts/install-nvim.sh)
#   stylua --check                  formatting (stylua.toml; the binary is a devDependency)
# Neither the npm registry nor Debian ships lua-language-server: where it is not on PATH, that
# check says it was skipped; the others always run.
set -uo pipefail
cd "$(dirname "$0")/.."
files=(lua plugin ftplugin test/lua scripts/gen-doc.lua scripts/try-init.lua)
status=0

echo "== luacheck"
# Debian ships it; installed on first use as install-nvim.sh installs patchelf.
if ! command -v luacheck >/dev/null; then
  need_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
  { need_root apt-get update -qq || true; need_root apt-get install -y -qq lua-check; } >&2
fi
if command -v luacheck >/dev/null; then
  luacheck -q "${files[@]}" || status=1
else
  # A machine with no Debian packages cannot have it; the other checks still run.
  echo "skipped: luacheck could not be installed (apt-get install lua-check)"
fi

echo "== lua-language-server --check"
if command -v lua-language-server >/dev/null; then
  runtime=.cache/nvim/0.12/usr/share/nvim/runtime
  [ -d "$runtime" ] || runtime=$(nvim --clean --headless --cmd 'lua io.write(vim.env.VIMRUNTIME)' --cmd q 2>/dev/null)
  VIMRUNTIME=$(realpath "$runtime") lua-language-server --check=. --checklevel=Warning --configpath="$PWD/.luarc.json" || status=1
else
  echo "skipped: lua-language-server is not on PATH"
fi

echo "== stylua --check"
npx --no-install stylua --check "${files[@]}" || status=1

exit $status
