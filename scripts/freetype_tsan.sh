#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds FreeType with ThreadSanitizer, for `bazel test --config=tsan`:
# Debian's libfreetype is not instrumented, so TSan cannot see a race inside
# it. Takes Debian's own source of the installed libfreetype-dev's version
# (apt-get source, through a private apt configuration: the machine's own is
# left alone), builds it the way Debian does (FreeType's configure and make,
# modules.cfg and ftoption.h as Debian's patches leave them, zlib, libpng and
# brotli, no bzip2, no HarfBuzz) with -fsanitize=thread, and installs it
# into build/freetype-tsan/install (git ignores build/), where
# third_party/freetype_tsan.bzl finds it. About 2 minutes on 2 cores; when
# the build there is complete and of the installed version, it does nothing.
# Usage: scripts/freetype_tsan.sh [--force]
set -euo pipefail
cd "$(dirname "$0")/.."
# dpkg-dev: dpkg-source; the -dev packages: what Debian's build links.
scripts/setup.sh --only libfreetype-dev dpkg-dev debian-archive-keyring \
  gcc make pkg-config zlib1g-dev libpng-dev libbrotli-dev binutils
start=$SECONDS

root=$(pwd)/build/freetype-tsan
install=$root/install
# The file Bazel looks for: written last, so a build that stopped half-way
# never counts as complete.
stamp=$install/COMPLETE
version=$(dpkg-query -W -f='${Version}' libfreetype-dev)
# -O2 -g as the rest of the tsan build (.bazelrc) and Debian (-O2).
cflags="-O2 -g -fsanitize=thread"
configure_flags=(--disable-static --without-bzip2 --without-harfbuzz
  --with-zlib=yes --with-png=yes --with-brotli=yes)
key="libfreetype-dev $version; CFLAGS $cflags; ${configure_flags[*]}"

if [ "${1:-}" != --force ] && [ -f "$stamp" ] &&
  [ "$(head -n 1 "$stamp")" = "$key" ]; then
  echo "freetype_tsan: up to date in $install ($(sed -n 2p "$stamp"))"
  exit 0
fi

# The source, through apt with private lists, cache and sources list.
# shellcheck source=/dev/null
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
apt_dir=$root/apt
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" \
  "$root/download"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
cat >"$apt_dir/sources.list" <<EOF
deb-src [signed-by=$keyring] http://deb.debian.org/debian $suite main
deb-src [signed-by=$keyring] http://deb.debian.org/debian-security $suite-security main
EOF
apt_options=(
  -o Dir::Etc::SourceList="$apt_dir/sources.list"
  -o Dir::Etc::SourceParts=/nonexistent
  -o Dir::State::Lists="$apt_dir/lists"
  -o Dir::Cache="$apt_dir/cache"
  # The folders belong to whoever runs this; apt's download user, _apt,
  # could not write them.
  -o APT::Sandbox::User="$(id -un)"
)
# The one .dsc a previous run downloaded, if it still is the version wanted.
dsc_version() {
  sed -n 's/^Version: //p' "$root"/download/freetype_*.dsc 2>/dev/null
}
if [ "$(dsc_version)" != "$version" ]; then
  rm -f "$root"/download/freetype_*
  apt-get "${apt_options[@]}" -q update >"$root/apt-update.log" 2>&1 ||
    { cat "$root/apt-update.log" >&2 && exit 1; }
  (
    cd "$root/download"
    get() { apt-get "${apt_options[@]}" -q source --download-only "$1"; }
    if ! get "freetype=$version" >"$root/download.log" 2>&1; then
      # Gone from the mirror (a newer security update replaced it): the
      # same upstream release, patched a little further, is the next best.
      echo "freetype_tsan: freetype $version is no longer on the mirror;" \
        "building $suite's current source instead" >&2
      get freetype >"$root/download.log" 2>&1 ||
        { cat "$root/download.log" >&2 && exit 1; }
    fi
  )
fi
source_version=$(dsc_version)

# Unpacked with Debian's patches applied (--no-check: apt has checked the
# files against the mirror's signed index), configured and built in place.
src=$root/src
rm -rf "$src" "$install"
dpkg-source --no-check --no-copy -x \
  "$root/download/freetype_${source_version#*:}.dsc" "$src" >"$root/unpack.log"
echo "freetype_tsan: building freetype $source_version with $cflags"
(
  cd "$src"
  ./configure --prefix="$install" "${configure_flags[@]}" \
    CFLAGS="$cflags" LDFLAGS="-fsanitize=thread" >"$root/configure.log" 2>&1 ||
    { tail -n 30 "$root/configure.log" >&2 && exit 1; }
  { make -j"$(nproc)" && make install; } >"$root/make.log" 2>&1 ||
    { tail -n 30 "$root/make.log" >&2 && exit 1; }
)

# A library that does not call into TSan would leave TSan as blind as
# Debian's; one with another soname would load next to Debian's.
lib=$install/lib/libfreetype.so.6
nm -D --undefined-only "$lib" | grep -q ' __tsan_func_entry$' ||
  { echo "freetype_tsan: $lib is not instrumented" >&2 && exit 1; }
readelf -d "$lib" | grep -q 'SONAME.*\[libfreetype\.so\.6\]' ||
  { echo "freetype_tsan: $lib has the wrong soname" >&2 && exit 1; }
if diff -rq "$install/include/freetype2" /usr/include/freetype2 >/dev/null; then
  headers="headers identical to Debian's"
else
  headers="headers differ from /usr/include/freetype2"
fi
printf '%s\n%s\n' "$key" "freetype $source_version, $headers" >"$stamp"
echo "freetype_tsan: freetype $source_version in $install" \
  "($headers) in $((SECONDS - start)) s"
