#!/usr/bin/env bash
# Try acp-chat.nvim from this checkout on your own code:
#   bash scripts/try.sh [project-folder] [agent] [-- neovim-arguments...]
# Installs what is missing (Node packages, the build, and Neovim if none >= 0.10 is on PATH),
# then opens :AcpChat in the project folder (default: the current directory). A first argument
# that is not a folder is taken as the agent (scripts/try.sh gemini).
# If you have a Neovim config, it is used with this checkout added, so the agents you set in
# require("acpchat").setup() are the ones offered. Without one (or with ACPCHAT_TRY_ISOLATED=1)
# Neovim starts with isolated folders under .cache/try. Presets (claude-agent-acp, gemini,
# codex-acp, opencode, goose) are used when on PATH; with no agent at all, :AcpChat says which
# to install.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

project=$PWD agent="" positional=() nvim_args=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; nvim_args=("$@"); break; fi
  positional+=("$1"); shift
done
if [ ${#positional[@]} -gt 0 ] && [ -d "${positional[0]}" ]; then
  project=${positional[0]}; positional=("${positional[@]:1}")
fi
[ ${#positional[@]} -le 1 ] || { echo "usage: scripts/try.sh [project-folder] [agent] [-- neovim-arguments...]" >&2; exit 2; }
agent=${positional[0]:-}
project=$(cd "$project" && pwd)

# Node packages and the build, in the checkout; rebuilt when a source is newer than the bundle.
(
  cd "$root"
  [ -d node_modules/neovim ] || npm ci --no-audit --no-fund
  if [ ! -f dist/acpchat.cjs ] || [ ! -f dist/host.cjs ] || [ ! -f dist/code-cache.cjs ] || [ -n "$(find src scripts/build.mjs package-lock.json -newer dist/acpchat.cjs -print -quit)" ]; then
    npm run --silent build
  fi
) >&2

if command -v nvim >/dev/null 2>&1 && nvim --headless -u NONE -c 'if has("nvim-0.10") | qa | else | cq | endif' >/dev/null 2>&1; then
  nvim_bin=$(command -v nvim)
else
  nvim_bin=$(bash "$root/scripts/install-nvim.sh" 0.12 | tail -n1)
fi

# scripts/try-init.lua finds the checkout here, with no quoting to get wrong.
export ACPCHAT_TRY_ROOT="$root"
config_dir="${XDG_CONFIG_HOME:-$HOME/.config}/${NVIM_APPNAME:-nvim}"
cd "$project"
if [ -z "${ACPCHAT_TRY_ISOLATED:-}" ] && { [ -f "$config_dir/init.lua" ] || [ -f "$config_dir/init.vim" ] || [ -n "${VIMINIT:-}" ]; }; then
  # Your config, with the checkout on 'runtimepath' before it runs (so its setup() call finds
  # the plugin) and again after it (plugin managers may reset 'runtimepath').
  exec "$nvim_bin" --cmd 'lua vim.opt.rtp:prepend(vim.env.ACPCHAT_TRY_ROOT)' \
    -c 'lua dofile(vim.env.ACPCHAT_TRY_ROOT .. "/scripts/try-init.lua")' -c "AcpChat $agent" ${nvim_args[@]+"${nvim_args[@]}"}
fi
state="$root/.cache/try"
mkdir -p "$state"/{config,data,state,cache}
export XDG_CONFIG_HOME="$state/config" XDG_DATA_HOME="$state/data" XDG_STATE_HOME="$state/state" XDG_CACHE_HOME="$state/cache"
export ACPCHAT_TRY_ISOLATED=1
exec "$nvim_bin" -u "$root/scripts/try-init.lua" -c "AcpChat $agent" ${nvim_args[@]+"${nvim_args[@]}"}
