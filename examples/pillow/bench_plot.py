# SPDX-License-Identifier: MIT
"""Tabulates and plots the results of bench_text.py: one JSON per variant.

Prints two markdown tables, draws per second and draws per CPU-second, for
each scenario and thread count (a point that crashed or raised shown as
such) and, with --plot, draws one panel per scenario with one line per
variant. A port's results measured with its glyph cache and without are
two variants, NAME and NAME uncached; a table then compares them: the
cached port's draws per second over the uncached port's (runs alternated,
so the ratio is of one minute's conditions), and each one's 2-thread rate
over its 1-thread rate. Needs matplotlib for --plot
(Debian's python3-matplotlib: run it with /usr/bin/python3).

Usage: python3 bench_plot.py RESULT.json... [--plot OUT.png]
"""

import argparse
import json


def load(paths):
    """One result per variant, a port's cached and uncached points apart."""
    results = []
    for path in paths:
        r = json.load(open(path))
        caches = list(dict.fromkeys(p.get("glyph_cache") for p in r["points"]))
        for cache in caches:
            split = dict(r, points=[p for p in r["points"]
                                    if p.get("glyph_cache") == cache])
            if cache == "off":
                split["variant"] = f"{r['variant']} uncached"
            split["glyph_cache"] = cache
            results.append(split)
    return results


def rate(r, scenario, threads):
    point = next((p for p in r["points"] if p["scenario"] == scenario
                  and p["threads"] == threads), None)
    return point and point["draws_per_s"]


def cache_table(results):
    """Cached over uncached, and 2 threads over 1, for each port variant."""
    lines = ["| variant | scenario | threads | cached | uncached | cached / uncached"
             " | cached: x 1 thread | uncached: x 1 thread |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for on in (r for r in results if r["glyph_cache"] == "on"):
        off = next((r for r in results if r["glyph_cache"] == "off"
                    and r["variant"] == f"{on['variant']} uncached"), None)
        if off is None:
            continue
        scenarios = list(dict.fromkeys(p["scenario"] for p in on["points"]))
        for scenario in scenarios:
            for t in sorted({p["threads"] for p in on["points"]}):
                a, b = rate(on, scenario, t), rate(off, scenario, t)
                a1, b1 = rate(on, scenario, 1), rate(off, scenario, 1)
                cells = [f"{a:.0f}" if a else "-", f"{b:.0f}" if b else "-",
                         f"{a / b:.2f}x" if a and b else "-",
                         f"{a / a1:.2f}x" if a and a1 else "-",
                         f"{b / b1:.2f}x" if b and b1 else "-"]
                lines.append(f"| {on['variant']} | {scenario} | {t} | "
                             + " | ".join(cells) + " |")
    return "\n".join(lines) if len(lines) > 2 else ""


def table(results, key="draws_per_s"):
    threads = sorted({p["threads"] for r in results for p in r["points"]})
    lines = ["| variant | Python | scenario | "
             + " | ".join(f"{t} thr" for t in threads) + " |",
             "| --- | --- | --- | " + " | ".join("---:" for _ in threads) + " |"]
    for r in results:
        info = r["interpreter"]
        python = f"{info['python']}{' (no GIL)' if info['gil'] == 'disabled' else ''}"
        scenarios = list(dict.fromkeys(p["scenario"] for p in r["points"]))
        for scenario in scenarios:
            cells = []
            for t in threads:
                point = next((p for p in r["points"] if p["scenario"] == scenario
                              and p["threads"] == t), None)
                if point is None:
                    cells.append("")
                elif point[key] is None:
                    cells.append(point["status"].split(":")[0] + (
                        ": " + point["status"].split(":")[1].strip()
                        if point["status"].startswith("crashed") else ""))
                else:
                    cells.append(f"{point[key]:.0f}")
            lines.append(f"| {r['variant']} | {python} | {scenario} | "
                         + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(results, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scenarios = list(dict.fromkeys(p["scenario"] for r in results
                                   for p in r["points"]))
    fig, axes = plt.subplots(1, len(scenarios), figsize=(5.5 * len(scenarios), 4),
                             squeeze=False)
    for ax, scenario in zip(axes[0], scenarios):
        for r in results:
            pts = [p for p in r["points"] if p["scenario"] == scenario]
            ok = [p for p in pts if p["draws_per_s"] is not None]
            bad = [p for p in pts if p["draws_per_s"] is None]
            label = f"{r['variant']} (Python {r['interpreter']['python']})"
            line, = ax.plot([p["threads"] for p in ok],
                            [p["draws_per_s"] for p in ok], marker="o", label=label)
            for p in bad:
                ax.annotate(p["status"].split(":")[0], (p["threads"], 0),
                            color=line.get_color(), rotation=90, fontsize=7,
                            va="bottom", ha="center")
        ax.set_title(f"{scenario} font" if scenario == "shared"
                     else "truetype() + draw per item")
        ax.set_xlabel("threads")
        ax.set_ylabel("draws / s")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted({p["threads"] for r in results for p in r["points"]}))
        ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Pillow text drawing, DejaVu Sans 24 px, 560x36 image per draw",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results", nargs="+")
    p.add_argument("--plot", help="write a PNG here")
    args = p.parse_args()
    results = load(args.results)
    print("Draws per second (wall clock):\n")
    print(table(results))
    print("\nDraws per CPU-second (what the process got, whatever the load):\n")
    print(table(results, "draws_per_cpu_s"))
    cached = cache_table(results)
    if cached:
        print("\nThe port's glyph cache (draws per second, wall clock):\n")
        print(cached)
    if args.plot:
        plot(results, args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
