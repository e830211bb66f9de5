#!/usr/bin/env bash
# Installs Neovim 0.10 (Debian trixie) and/or 0.12 (Debian sid) into .cache/nvim/<version>
# without touching the system: bookworm's glibc is too old for these builds, so each root
# carries its own loader, wired in with patchelf (never LD_LIBRARY_PATH, which children inherit).
# Usage: scripts/install-nvim.sh [0.10|0.12 ...]   (default: both). Prints each nvim path.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache="$here/.cache/nvim"
mkdir -p "$cache"
versions=("$@"); [ ${#versions[@]} -gt 0 ] || versions=(0.10 0.12)

need_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

if ! command -v patchelf >/dev/null 2>&1; then
  need_root apt-get update -qq >&2
  need_root apt-get install -y -qq patchelf >&2
fi

uris=$(grep -h '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 | awk '{print $2}')
[ -n "$uris" ] || uris=http://deb.debian.org/debian

for v in "${versions[@]}"; do
  case "$v" in
    0.10) suite=trixie; pkgs="neovim neovim-runtime libc6 libluajit-5.1-2 libmsgpack-c2 libtree-sitter0.22 libunibilium4 libuv1t64 libvterm0 lua-lpeg lua-luv libgcc-s1" ;;
    0.12) suite=sid; pkgs="neovim neovim-runtime libc6 libluajit-5.1-2 libtree-sitter0.26 libunibilium4 libutf8proc3 libuv1t64 lua-lpeg lua-luv libgcc-s1" ;;
    *) echo "install-nvim: unknown version $v (0.10 or 0.12)" >&2; exit 2 ;;
  esac
  root="$cache/$v"
  if [ -x "$root/usr/bin/nvim" ] && "$root/usr/bin/nvim" --version >/dev/null 2>&1; then
    echo "$root/usr/bin/nvim"; continue
  fi
  work="$cache/apt-$suite"; rm -rf "$work" "$root"; mkdir -p "$work/lists/partial" "$work/debs" "$root"
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uris" "$suite" > "$work/$suite.sources"
  apt_opts=(-o "Dir::Etc::SourceList=$work/$suite.sources" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o APT::Sandbox::User=root)
  mkdir -p "$work/cache/archives/partial"
  need_root apt-get "${apt_opts[@]}" update -qq >&2
  (cd "$work/debs" && need_root apt-get "${apt_opts[@]}" download $pkgs >&2)
  for d in "$work"/debs/*.deb; do dpkg -x "$d" "$root"; done
  patchelf --set-interpreter "$root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2" --force-rpath \
    --set-rpath "$root/usr/lib/x86_64-linux-gnu" "$root/usr/bin/nvim"
  rm -rf "$work"
  "$root/usr/bin/nvim" --version | head -n1 >&2
  echo "$root/usr/bin/nvim"
done
