#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs apt-get against Debian trixie (main) through a PRIVATE configuration
# under build/apt-trixie: its own sources list, package lists and cache, so
# the machine's own apt setup and lists are never read for sources nor
# changed. Trixie's release is checked against Debian's archive keyring
# (debian-archive-keyring, which carries the trixie keys), and every file
# fetched against the checksums of the signed lists. The lists are
# fetched on the first call and refreshed when older than a day.
# The machine's apt.conf.d settings and dpkg status are still read (the
# status only to know what is installed); nothing of the machine's is written.
# With --suite bookworm first, the same for bookworm and bookworm-security
# (their deb-src, which the machine's own list may lack), in build/apt-bookworm.
# Usage: scripts/trixie_apt.sh source --download-only PACKAGE  (into .)
#        scripts/trixie_apt.sh download PACKAGE...              (into .)
#        scripts/trixie_apt.sh --cache showsrc|show|madison ARGS...
#        scripts/trixie_apt.sh --suite bookworm ARGS...
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
suite=trixie
if [ "${1:-}" = --suite ]; then
  case "${2:-}" in
  trixie | bookworm) suite=$2 ;;
  *) echo "$0: --suite trixie|bookworm" >&2 && exit 2 ;;
  esac
  shift 2
fi
dir=$root/build/apt-$suite
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

[ $# -ge 1 ] || {
  echo "usage: $0 source|download|--cache ARGS..." >&2
  exit 2
}

"$root"/scripts/setup.sh --only debian-archive-keyring dpkg-dev

mkdir -p "$dir"/lists/partial "$dir"/cache/archives/partial "$dir"/sources.d \
  "$dir"/preferences.d
cat >"$dir"/sources.list <<EOF
deb [signed-by=$keyring] http://deb.debian.org/debian $suite main
deb-src [signed-by=$keyring] http://deb.debian.org/debian $suite main
EOF
[ "$suite" = trixie ] || cat >>"$dir"/sources.list <<EOF
deb [signed-by=$keyring] http://deb.debian.org/debian-security $suite-security main
deb-src [signed-by=$keyring] http://deb.debian.org/debian-security $suite-security main
EOF
: >"$dir"/preferences
# apt drops to the _apt user to download; let it write its partial folders.
if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then
  chown _apt "$dir"/lists/partial "$dir"/cache/archives/partial
fi

opts=(
  -o Dir::Etc::SourceList="$dir"/sources.list
  -o Dir::Etc::SourceParts="$dir"/sources.d
  -o Dir::Etc::Preferences="$dir"/preferences
  -o Dir::Etc::PreferencesParts="$dir"/preferences.d
  -o Dir::State::Lists="$dir"/lists
  -o Dir::Cache="$dir"/cache
  -o Dir::Cache::pkgcache="$dir"/cache/pkgcache.bin
  -o Dir::Cache::srcpkgcache="$dir"/cache/srcpkgcache.bin
  -o APT::Get::List-Cleanup=0
  -o Acquire::Languages=none
  -o APT::Architectures=amd64
)

stamp=$dir/lists/updated
if [ -z "$(find "$stamp" -mmin -1440 2>/dev/null)" ]; then
  apt-get "${opts[@]}" -q update >&2
  touch "$stamp"
fi

if [ "$1" = --cache ]; then
  shift
  exec apt-cache "${opts[@]}" "$@"
fi
# apt downloads into the current folder, which its _apt user cannot write:
# it would do it as root anyway, with a warning each time. Say so instead.
if [ "$(id -u)" -eq 0 ]; then
  opts+=(-o APT::Sandbox::User=root)
fi
apt-get "${opts[@]}" -q "$@"
