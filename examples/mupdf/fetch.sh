#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fetches MuPDF 1.21.1, Debian bookworm's `mupdf` source package
# (1.21.1+ds2-1+deb12u1 or a later bookworm security upload of 1.21.1),
# through scripts/trixie_apt.sh --suite bookworm (a private apt
# configuration with bookworm's deb-src: the machine's own apt setup is
# neither read for sources nor changed), and unpacks it WITH Debian's
# patches applied (dpkg-source -x) into build/mupdf/src, read only: builds
# copy it. Reused when present.
# Why bookworm's: it is the MuPDF that bookworm's users run, and it builds
# against bookworm's own FreeType, HarfBuzz, libjpeg, OpenJPEG, jbig2dec,
# gumbo, lcms2 and mujs (trixie's 1.25.1 wants newer ones). Why Debian's
# patches: they are the build users run (build=debian flavour, the ICC
# warning, a draw overflow fix); none touches the locks, the fonts or the
# glyph cache. The +ds tarball has no fonts and no third-party sources;
# examples/mupdf/build.sh deals with both.
# Prints the path of the source tree.
# Usage: examples/mupdf/fetch.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
dir=$root/build/mupdf
src=$dir/src
version=1.21.1

if [ -f "$src"/source/fitz/font.c ] && [ -f "$src"/debian/changelog ] &&
  grep -q "^#define FZ_VERSION \"$version\"" "$src"/include/mupdf/fitz/version.h; then
  echo "$src"
  exit 0
fi

rm -rf "$dir"/fetch "$src"
mkdir -p "$dir"/fetch
(cd "$dir"/fetch &&
  "$root"/scripts/trixie_apt.sh --suite bookworm source --download-only mupdf >&2)
dsc=$(ls "$dir"/fetch/mupdf_"$version"+*.dsc)
# dpkg-source cannot check the .dsc's signature (no maintainers' keyring:
# it warns); apt has checked the files against the signed Sources list.
(cd "$dir"/fetch && dpkg-source -x "$dsc" "$src" >&2)
rm -f "$dir"/mupdf_*.orig.tar.* # the copy dpkg-source leaves beside $src
grep -q "^#define FZ_VERSION \"$version\"" "$src"/include/mupdf/fitz/version.h || {
  echo "mupdf_fetch: $dsc is not MuPDF $version" >&2
  exit 1
}
chmod -R a-w "$src"
echo "$src"
