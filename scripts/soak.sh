#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Soak: runs the per-thread stress test (16 threads a round, new threads every
# round, a third of the faces closed by other threads) on one pool for a
# given time, sampling the process's resident memory. After a warm-up it
# must stay flat (scripts/soak_report.py decides). Writes rss.csv, rss.png,
# summary.txt and the test's log to results/<date>-soak/.
# Usage: scripts/soak.sh [minutes, default 10] [sample seconds, default 5]
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-10}
every=${2:-5}
scripts/setup.sh bench
bazel build //test:stress_test
out=results/$(date +%Y-%m-%d-%H%M)-soak
mkdir -p "$out"
echo "seconds,rss_kib" >"$out/rss.csv"

FTPOOL_STRESS_SECONDS=$((minutes * 60)) bazel-bin/test/stress_test \
  --gtest_filter=StressTest.PerThread >"$out/stress.log" 2>&1 &
pid=$!
start=$(date +%s)
while kill -0 "$pid" 2>/dev/null; do
  rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [ -n "$rss" ] && echo "$(($(date +%s) - start)),$rss" >>"$out/rss.csv"
  sleep "$every"
done
status=0
wait "$pid" || status=$?
tail -3 "$out/stress.log"
[ "$status" -eq 0 ] || { echo "soak: the stress test failed" >&2; exit 1; }

/usr/bin/python3 scripts/soak_report.py "$out" ||
  { echo "soak: resident memory grew; see $out" >&2; exit 1; }
echo "soak: results in $out"
