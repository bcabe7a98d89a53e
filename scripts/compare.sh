#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job: builds the benchmarks, runs ftpool's per-thread and
# shared-mutex backends against raw FreeType and the naive way, side by side,
# and prints the comparison. Installs what is missing first.
# Usage: scripts/compare.sh [--quick]   (--quick: under a minute, noisier)
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full
case "${1:-}" in
  --quick) mode=quick ;;
  "") ;;
  *) echo "usage: $0 [--quick]" >&2; exit 2 ;;
esac

scripts/setup.sh bench
echo "== building the benchmarks (bazel build -c opt //bench:ftpool_bench //bench:font_memory //bench:cache_memory)"
bazel build -c opt //bench:ftpool_bench //bench:font_memory //bench:cache_memory
# The -c opt outputs, wherever a later build of another configuration
# points the bazel-bin link.
bin=$(bazel info -c opt bazel-bin 2>/dev/null)

out="results/$(date +%Y%m%d-%H%M%S)-$mode"
mkdir -p "$out"
# Repetitions run in random interleaved order, so that a noisy moment on a
# shared machine hits every variant alike; the comparison takes the median.
# Quick mode also makes each iteration 3x shorter (FTPOOL_BENCH_SCALE).
if [ "$mode" = quick ]; then
  repetitions=2
  export FTPOOL_BENCH_SCALE=1
else
  repetitions=11
fi
flags=(--benchmark_min_time=0.01 --benchmark_repetitions=$repetitions
       --benchmark_enable_random_interleaving=true
       --benchmark_report_aggregates_only=true)
total=$("$bin"/bench/ftpool_bench --benchmark_list_tests | wc -l)
echo "== running $total benchmarks x $repetitions repetitions ($mode), interleaved"
"$bin"/bench/ftpool_bench "${flags[@]}" \
  --benchmark_out="$out/bench.json" --benchmark_out_format=json
echo
/usr/bin/python3 bench/compare.py "$out/bench.json"
echo
echo "== shared fonts' memory (bazel-bin/bench/font_memory)"
"$bin"/bench/font_memory | tee "$out/memory.md"
echo
echo "== the glyph cache's memory: one cache against an FTC_Manager per thread (bazel-bin/bench/cache_memory)"
"$bin"/bench/cache_memory | tee "$out/cache_memory.md"
