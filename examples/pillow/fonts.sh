#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Provides the fonts of the Pillow threaded test and benchmark: DejaVu Sans
# (bookworm's fonts-dejavu-core, installed by scripts/setup.sh) and a variable
# font. Bookworm packages none (its fonts-cantarell has static instances
# only), so the variable one is Cantarell-VF.otf (CFF2, axis "Weight"
# 100..800) from trixie's fonts-cantarell: its .deb is downloaded through
# scripts/trixie_apt.sh and unpacked with dpkg -x under build/fonts, not
# installed. Reused when present. Prints two lines: the paths of
# DejaVuSans.ttf and of Cantarell-VF.otf.
# Usage: examples/pillow/fonts.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
dir=$root/build/fonts
dejavu=/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
variable=$dir/usr/share/fonts/opentype/cantarell/Cantarell-VF.otf

scripts/setup.sh --only fonts-dejavu-core
if [ ! -f "$variable" ]; then
  rm -rf "$dir"
  mkdir -p "$dir"/debs
  (cd "$dir"/debs &&
    "$root"/scripts/trixie_apt.sh download fonts-cantarell >&2)
  dpkg -x "$dir"/debs/fonts-cantarell_*_all.deb "$dir"
  [ -f "$variable" ] || {
    echo "pillow_fonts: trixie's fonts-cantarell has no Cantarell-VF.otf" >&2
    exit 1
  }
fi
echo "$dejavu"
echo "$variable"
