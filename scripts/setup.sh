#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages the build and the tests need (with `bench`,
# what the benchmarks need too, and any other package named), if any is
# missing. Safe to run again; does nothing when all are present. The other
# scripts call it with the packages of their own tools; with --only, just
# those (for the checks that build without Bazel). With --list, prints the
# packages it would install, one a line, and installs nothing:
# scripts/packages_check.sh reads the lists from there, and fails when a
# system file that a test, benchmark or example reads is in none of them.
# Usage: scripts/setup.sh [--list] [--only] [bench] [PACKAGE...]
set -euo pipefail

base=(
  bazel-bootstrap bazel-rules-java bazel-platforms
  gcc g++ binutils
  libfreetype-dev libgtest-dev libbenchmark-dev
  # The tests' fonts (test/support/fonts.cc, examples/python): DejaVu, a
  # variable font, and a large CJK collection.
  fonts-dejavu-core fonts-inter-variable fonts-noto-cjk
  libharfbuzz-dev
  python3
  # scripts/spdx_check.sh and the fresh-machine check read what git tracks.
  git
)
packages=("${base[@]}")
list=false
if [ "${1:-}" = --list ]; then
  list=true
  shift
fi
if [ "${1:-}" = --only ]; then
  packages=()
  shift
fi
for arg in "$@"; do
  case "$arg" in
  # The CJK collection is where the cost of opening grows with size.
  bench) packages+=(fonts-noto-cjk python3 python3-matplotlib) ;;
  # examples/mupdf: bookworm's MuPDF 1.21.1 built as Debian does (its
  # Build-Depends less X11, GL, OpenSSL and the fonts), and its corpus.
  mupdf) packages+=(gcc make pkg-config python3 dpkg-dev libfreetype-dev
    libharfbuzz-dev libjpeg-dev zlib1g-dev libopenjp2-7-dev libjbig2dec0-dev
    libgumbo-dev liblcms2-dev libmujs-dev
    # The corpus (examples/mupdf/corpus.sh), real PDFs with every font embedded:
    # latin: gnuplot's manual, pdfTeX, Computer Modern Type 1 (311 pages);
    gnuplot-doc
    # latin: the Debian Reference, English, Liberation TrueType (CID);
    debian-reference-en
    # cjk: the Debian Reference in Chinese, WenQuanYi Micro Hei (CID);
    debian-reference-zh-cn
    # cjk: the Debian Reference in Japanese, VL Gothic (CID);
    debian-reference-ja
    # mixed: the Debian Edu manual, English, Latin Modern and screenshots;
    debian-edu-doc-en
    # mixed: the Debian Edu manual in Chinese, WenQuanYi and screenshots.
    debian-edu-doc-zh-cn) ;;
  *) packages+=("$arg") ;;
  esac
done

if $list; then
  printf '%s\n' "${packages[@]}" | awk '!seen[$0]++'
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
