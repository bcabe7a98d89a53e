# SPDX-License-Identifier: MIT
"""Reads a soak run's rss.csv and says whether resident memory stayed flat.

Flat: after the first fifth (warm-up), the median of the last fifth exceeds
the median of the second fifth by at most 5% + 2 MiB. Writes summary.txt and
rss.png next to the CSV; exits 1 if not flat.
Usage: /usr/bin/python3 scripts/soak_report.py results/<date>-soak
"""
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
