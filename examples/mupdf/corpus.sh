#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The PDFs that the MuPDF measurements and checks render: real documents
# that Debian packages ship (scripts/setup.sh --only mupdf installs them,
# about 54 MB), in three sets, every font embedded (the build has no
# built-in font: examples/mupdf/build.sh; measure_locks.sh fails on any
# font warning):
#   latin  text-heavy Latin: gnuplot's manual (pdfTeX, Computer Modern
#          Type 1 and a few Type 3) and the English Debian Reference
#          (Liberation fonts as CID TrueType)
#   cjk    CJK text in embedded CID fonts: the Debian Reference in Chinese
#          (WenQuanYi Micro Hei) and in Japanese (VL Gothic)
#   mixed  text with screenshots: the Debian Edu bookworm manual, in English
#          (Latin Modern) and in Chinese (WenQuanYi Micro Hei)
# Prints one line per PDF: "SET PATH PAGES", PAGES in mutool's syntax
# (every page: 1-N); with a SET, only that set's lines; checks that each
# file is there.
# Usage: examples/mupdf/corpus.sh [latin|cjk|mixed]
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
"$root"/scripts/setup.sh --only mupdf >&2

corpus() {
  cat <<'EOF'
latin /usr/share/doc/gnuplot/gnuplot.pdf 1-N
latin /usr/share/debian-reference/debian-reference.en.pdf 1-N
cjk /usr/share/debian-reference/debian-reference.zh-cn.pdf 1-N
cjk /usr/share/debian-reference/debian-reference.ja.pdf 1-N
mixed /usr/share/doc/debian-edu-doc-en/debian-edu-bookworm-manual.pdf 1-N
mixed /usr/share/doc/debian-edu-doc-zh-cn/debian-edu-bookworm-manual.pdf 1-N
EOF
}

case "${1:-}" in
"" | latin | cjk | mixed) ;;
*)
  echo "usage: $0 [latin|cjk|mixed]" >&2
  exit 2
  ;;
esac
corpus | while read -r set path pages; do
  [ -f "$path" ] || {
    echo "corpus: $path ($set) is missing" >&2
    exit 1
  }
  [ -z "${1:-}" ] || [ "$1" = "$set" ] || continue
  echo "$set $path $pages"
done
