#!/usr/bin/env bash
# Soak: runs the per-thread stress test (16 threads a round, new threads every
# round, a third of the faces closed by other threads) on one pool for a
# given time, sampling the process's resident memory. After a warm-up it
# must stay flat: fails if the last fifth's median exceeds the second
# fifth's by more than 5% + 2 MiB. Writes rss.csv, rss.png (with matplotlib)
# and summary.txt to results/<date>-soak/.
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

python3 - "$out" <<'PY'
import csv, statistics, sys
out = sys.argv[1]
rows = [(int(r["seconds"]), int(r["rss_kib"])) for r in csv.DictReader(open(f"{out}/rss.csv"))]
n = len(rows)
if n < 10:
    sys.exit("soak: too few samples; run longer")
fifth = n // 5
early = statistics.median(r for _, r in rows[fifth:2 * fifth])
late = statistics.median(r for _, r in rows[-fifth:])
limit = early * 1.05 + 2048
flat = late <= limit
lines = [
    f"samples: {n} over {rows[-1][0]} s",
    f"RSS min {min(r for _, r in rows)} KiB, max {max(r for _, r in rows)} KiB",
    f"median RSS, second fifth: {early:.0f} KiB; last fifth: {late:.0f} KiB "
    f"({(late - early) / early * 100:+.1f}%); limit {limit:.0f} KiB",
    "flat: " + ("yes" if flat else "NO"),
]
open(f"{out}/summary.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot([s / 60 for s, _ in rows], [r / 1024 for _, r in rows])
    ax.set_xlabel("minutes")
    ax.set_ylabel("resident memory (MiB)")
    ax.set_ylim(bottom=0)
    ax.set_title("stress_test soak, per-thread backend, 16 threads a round")
    fig.tight_layout()
    fig.savefig(f"{out}/rss.png", dpi=100)
except ImportError:
    pass
sys.exit(0 if flat else 1)
PY
echo "soak: results in $out"
