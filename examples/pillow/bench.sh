#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Measures Pillow's text drawing throughput (examples/pillow/bench_text.py:
# one shared font, and truetype() + draw per item, at 1, 2, 4 and 8 threads)
# for each named Pillow build (examples/pillow/variant.sh builds it if
# needed), writes OUT/bench-NAME.json for each, then the table of every
# bench-*.json in OUT (results of earlier runs included, to compare builds)
# to OUT/bench.md, and the plot to OUT/bench.png. The port's builds are
# measured with their glyph cache and without (FTPOOL_PILLOW_GLYPH_CACHE=off),
# the two alternating run by run; bench.md then compares them.
# Usage: examples/pillow/bench.sh [--quick] [--seconds S] [--threads LIST]
#          [--out DIR] NAME...
#   NAME: {stock,port,port-lock}-{cp311,cp313t} (examples/pillow/variant.sh)
#   --quick: 0.5 s per point, one measurement (default: 3 s, median of 3)
#   --threads: thread counts, default 1,2,4,8
#   --out: default results/pillow
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
out=$root/results/pillow
bench_args=()
variants=()
while [ $# -gt 0 ]; do
  case "$1" in
  --quick) bench_args+=(--quick) ;;
  --seconds)
    bench_args+=(--seconds "$2")
    shift
    ;;
  --threads)
    bench_args+=(--threads "$2")
    shift
    ;;
  --out)
    out=$(mkdir -p "$2" && cd "$2" && pwd)
    shift
    ;;
  -*)
    echo "pillow_bench: unknown option $1" >&2
    exit 2
    ;;
  *) variants+=("$1") ;;
  esac
  shift
done
[ ${#variants[@]} -gt 0 ] || {
  echo "usage: $0 [--quick] [--seconds S] [--threads LIST] [--out DIR] NAME..." >&2
  exit 2
}

scripts/setup.sh --only python3 python3-matplotlib fonts-dejavu-core
mapfile -t fonts < <(examples/pillow/fonts.sh)
font=${fonts[0]}
mkdir -p "$out"
for variant in "${variants[@]}"; do
  read -r python dir backend < <(examples/pillow/variant.sh "$variant")
  [ "$backend" = - ] && backend=
  FTPOOL_PILLOW_BACKEND=$backend \
    PYTHONPATH="$dir"/src PYTHONPYCACHEPREFIX="$dir"/pycache \
    "$python" examples/pillow/bench_text.py --font "$font" \
    --variant "$variant" --json "$out/bench-$variant.json" \
    ${bench_args[@]+"${bench_args[@]}"}
done
/usr/bin/python3 examples/pillow/bench_plot.py "$out"/bench-*.json \
  --plot "$out"/bench.png | tee "$out"/bench.md
echo "pillow_bench: results in ${out#"$root"/}/ (bench-*.json, bench.md, bench.png)"
