#!/usr/bin/env bash
# Installs Neovim 0.10 (Debian trixie) and/or 0.12 (Debian sid) into .cache/nvim/<version>
# without touching the system: bookworm's glibc is too old for these builds, so each root
# carries its own loader, wired in with patchelf (never LD_LIBRARY_PATH, which children inherit).
# Packages come from the Debian mirror this machine's apt is configured with; no host is
# named here, so the script works behind a local mirror or proxy and nowhere reaches out on
# its own.
# Usage: scripts/install-nvim.sh [0.10|0.12 ...]   (default: both). Prints each nvim path.
#        scripts/install-nvim.sh --source          prints the mirror and keyring it would use.
# ACPCHAT_APT_ETC replaces /etc/apt (for tests).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cache="$here/.cache/nvim"
apt_etc=${ACPCHAT_APT_ETC:-/etc/apt}
default_keyring=/usr/share/keyrings/debian-archive-keyring.gpg

need_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

# The machine's Debian archive, as "URI<TAB>keyring": the first enabled "deb" source with a
# release suite (not -security or -updates, which live elsewhere and lack sid), from deb822
# files (*.sources) first, then one-line lists (sources.list, *.list).
find_source() {
  local f
  for f in "$apt_etc"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v key="$default_keyring" '
      BEGIN { RS = ""; FS = "\n" }
      {
        types = ""; uris = ""; suites = ""; enabled = "yes"; signed = ""
        for (i = 1; i <= NF; i++) {
          line = $i
          if (line ~ /^#/ || line ~ /^[ \t]/) continue   # comments; continued (inline key) lines
          n = index(line, ":"); if (n == 0) continue
          name = tolower(substr(line, 1, n - 1)); value = substr(line, n + 1)
          gsub(/^[ \t]+|[ \t]+$/, "", value)
          if (name == "types") types = value
          else if (name == "uris") uris = value
          else if (name == "suites") suites = value
          else if (name == "enabled") enabled = tolower(value)
          else if (name == "signed-by") signed = value
        }
        if (enabled == "no" || (" " types " ") !~ / deb / || uris == "") next
        if ((" " suites " ") !~ / [a-z]+ /) next
        split(uris, u, /[ \t]+/)
        print u[1] "\t" (signed ~ /^\// ? signed : key)
        exit
      }' "$f" | grep . && return 0
  done
  for f in "$apt_etc"/sources.list "$apt_etc"/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v key="$default_keyring" '
      $1 != "deb" { next }
      {
        i = 2; signed = ""
        if ($2 ~ /^\[/) {   # [ option=value ... ]
          for (; i <= NF; i++) {
            if ($i ~ /signed-by=/) { signed = $i; sub(/.*signed-by=/, "", signed); sub(/\]$/, "", signed) }
            if ($i ~ /\]$/) { i++; break }
          }
        }
        uri = $i; suite = $(i + 1)
        if (suite ~ /^[a-z]+$/) { print uri "\t" (signed ~ /^\// ? signed : key); exit }
      }' "$f" | grep . && return 0
  done
  return 1
}

source_or_fail() {
  find_source && return 0
  echo "install-nvim: no Debian package source found in $apt_etc/sources.list.d/*.sources," \
    "$apt_etc/sources.list or $apt_etc/sources.list.d/*.list. Configure apt with your Debian" \
    "mirror, or install Neovim >= 0.10 yourself." >&2
  exit 1
}

if [ "${1:-}" = "--source" ]; then
  source_or_fail
  exit 0
fi

versions=("$@"); [ ${#versions[@]} -gt 0 ] || versions=(0.10 0.12)

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
  # Only an install needs a source and patchelf: with the cache present nothing is fetched.
  src=$(source_or_fail)
  uri=${src%%$'\t'*} keyring=${src#*$'\t'}
  if ! command -v patchelf >/dev/null 2>&1; then
    need_root apt-get update -qq >&2
    need_root apt-get install -y -qq patchelf >&2
  fi
  mkdir -p "$cache"
  work="$cache/apt-$suite"; rm -rf "$work" "$root"; mkdir -p "$work/lists/partial" "$work/debs" "$root"
  printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: %s\n' "$uri" "$suite" "$keyring" > "$work/$suite.sources"
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
