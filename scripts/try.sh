#!/usr/bin/env bash
# Try acp-chat.nvim from this checkout: installs what is missing (Node packages, the build, and
# Neovim if none >= 0.10 is on PATH), then starts Neovim with isolated config folders and opens
# :AcpChat with the default agent (or the one named: scripts/try.sh gemini).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[ -d node_modules/neovim ] || npm ci --no-audit --no-fund
[ -f dist/acpchat.cjs ] && [ dist/acpchat.cjs -nt src ] || npm run --silent build

nvim_bin=""
if command -v nvim >/dev/null 2>&1 && nvim --headless -u NONE -c 'if has("nvim-0.10") | qa | else | cq | endif' >/dev/null 2>&1; then
  nvim_bin=$(command -v nvim)
else
  nvim_bin=$(bash scripts/install-nvim.sh 0.12 | tail -n1)
fi

state="$root/.cache/try"
mkdir -p "$state"/{config,data,state,cache}
export XDG_CONFIG_HOME="$state/config" XDG_DATA_HOME="$state/data" XDG_STATE_HOME="$state/state" XDG_CACHE_HOME="$state/cache"
agent="${1:-}"
exec "$nvim_bin" -u "$root/scripts/try-init.lua" -c "AcpChat $agent"
