#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetches Pillow 11.1.0's sources, Debian trixie's `pillow` source package,
# through scripts/trixie_apt.sh (a private apt configuration), and unpacks
# them as released upstream (Debian's patches are not applied) into
# build/pillow/src, read only: builds copy it. Reused when present.
# Prints the path of the source tree.
# Usage: examples/pillow/fetch.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
dir=$root/build/pillow
src=$dir/src
version=11.1.0

if [ -f "$src"/src/_imagingft.c ] &&
  grep -q "^__version__ = \"$version\"" "$src"/src/PIL/_version.py; then
  echo "$src"
  exit 0
fi

rm -rf "$dir"/fetch "$src"
mkdir -p "$dir"/fetch
(cd "$dir"/fetch &&
  "$root"/scripts/trixie_apt.sh source --download-only "pillow" >&2)
dsc=$(ls "$dir"/fetch/pillow_"$version"-*.dsc)
# dpkg-source cannot check the .dsc's signature (no maintainers' keyring:
# it warns); apt has checked the files against the signed Sources list.
(cd "$dir"/fetch && dpkg-source --skip-patches -x "$dsc" "$src" >&2)
rm -f "$dir"/pillow_*.orig.tar.* # the copy dpkg-source leaves beside $src
grep -q "^__version__ = \"$version\"" "$src"/src/PIL/_version.py || {
  echo "pillow_fetch: $dsc is not Pillow $version" >&2
  exit 1
}
chmod -R a-w "$src"
echo "$src"
