#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Turns a run of ftpool_bench (Google benchmark JSON) into the comparison.

Prints, for each workload and thread count, items per second of each variant
and the ratios per_thread/shared_mutex and per_thread/raw; checks the targets
of docs/benchmarks.md; writes table.md and plot.png next to the JSON.

Usage: compare.py RESULTS/bench.json
"""
import collections
import json
import os
import sys

VARIANTS = ["per_thread", "shared_mutex", "shared_mutex_noblob", "global_mutex",
            "raw", "naive"]
WORKLOADS = ["mem_open_close", "file_open_close", "open_render_close",
             "render_only", "cross_close", "thread_churn", "get_library",
             "shared_font_render", "font_acquire", "font_churn"]
FONTS = ["dejavu", "noto_cjk"]


def load(path):
    """{(workload, font): {threads: {variant: items_per_second}}}"""
    with open(path) as f:
        report = json.load(f)
    runs = collections.defaultdict(lambda: collections.defaultdict(dict))
    context = report.get("context", {})
    spreads = []
    for b in report["benchmarks"]:
        if b.get("error_occurred"):
            sys.exit(f"benchmark {b['name']} failed: {b.get('error_message')}")
        if b.get("aggregate_name") == "cv":
            spreads.append(b["items_per_second"])
        # With repetitions, keep the median; without, the single run.
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        if b.get("run_type") == "iteration" and b.get("repetitions", 1) > 1:
            continue
        workload, font, variant, threads = b["run_name"].split("/")[:4]
        threads = int(threads.split(":")[1])
        runs[(workload, font)][threads][variant] = b["items_per_second"]
    ordered = sorted(runs.items(), key=lambda item: (
        WORKLOADS.index(item[0][0]), FONTS.index(item[0][1])))
    context["median_cv"] = sorted(spreads)[len(spreads) // 2] if spreads else None
    return context, dict(ordered)


def human(rate):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if rate >= scale:
            return f"{rate / scale:.3g}{unit}"
    return f"{rate:.3g}"


def ratio(a, b):
    return f"{a / b:.2f}x" if a and b else "-"


def table(runs):
    lines = [
        "| workload | font | threads | "
        + " | ".join(VARIANTS)
        + " | per_thread / shared_mutex | per_thread / raw"
        + " | per_thread / shared_mutex_noblob | per_thread / global_mutex |",
        "|" + " --- |" * (len(VARIANTS) + 7),
    ]
    for (workload, font), by_threads in runs.items():
        for threads in sorted(by_threads):
            r = by_threads[threads]
            cells = [human(r[v]) if v in r else "-" for v in VARIANTS]
            lines.append(
                f"| {workload} | {font} | {threads} | "
                + " | ".join(cells)
                + f" | {ratio(r.get('per_thread'), r.get('shared_mutex'))}"
                + f" | {ratio(r.get('per_thread'), r.get('raw'))}"
                + f" | {ratio(r.get('per_thread'), r.get('shared_mutex_noblob'))}"
                + f" | {ratio(r.get('per_thread'), r.get('global_mutex'))} |"
            )
    return "\n".join(lines)


def targets(runs):
    """The issue's targets, each as (description, measured, met)."""
    out = []

    def rate(workload, font, threads, variant):
        return runs.get((workload, font), {}).get(threads, {}).get(variant)

    mem = ("mem_open_close", "dejavu")
    pt2, sm2, pt1 = (rate(*mem, 2, "per_thread"), rate(*mem, 2, "shared_mutex"),
                     rate(*mem, 1, "per_thread"))
    if pt2 and sm2 and pt1:
        out.append(("memory open/close, 2 threads: per_thread >= 2x shared_mutex",
                    f"{pt2 / sm2:.2f}x", pt2 / sm2 >= 2.0))
        out.append(("memory open/close, 2 threads: per_thread >= 1.9x its 1 thread",
                    f"{pt2 / pt1:.2f}x", pt2 / pt1 >= 1.9))
    for font in FONTS:
        f1, f2 = (rate("file_open_close", font, t, "per_thread") for t in (1, 2))
        raw1 = rate("file_open_close", font, 1, "raw")
        before2 = rate("file_open_close", font, 2, "shared_mutex_noblob")
        if f1 and raw1:
            out.append((f"file open/close ({font}), 1 thread: per_thread >= 2.5x raw "
                        "FT_New_Face", f"{f1 / raw1:.2f}x", f1 / raw1 >= 2.5))
        if f1 and f2:
            out.append((f"file open/close ({font}), 2 threads: per_thread >= 1.8x "
                        "its 1 thread", f"{f2 / f1:.2f}x", f2 / f1 >= 1.8))
        if f2 and before2:
            out.append((f"file open/close ({font}), 2 threads: per_thread >= 2x "
                        "shared_mutex_noblob", f"{f2 / before2:.2f}x",
                        f2 / before2 >= 2.0))
    # Shared fonts (issue 12): one font object rendered by every thread.
    font = ("shared_font_render", "dejavu")
    f1, f2 = (rate(*font, t, "per_thread") for t in (1, 2))
    lock2 = rate(*font, 2, "shared_mutex")
    if f1 and f2:
        out.append(("shared font render, 2 threads: per_thread >= 1.9x its 1 "
                    "thread", f"{f2 / f1:.2f}x", f2 / f1 >= 1.9))
    if f2 and lock2:
        out.append(("shared font render, 2 threads: per_thread >= 1.8x the "
                    "per-font lock (shared_mutex)", f"{f2 / lock2:.2f}x",
                    f2 / lock2 >= 1.8))
    acquire = rate("font_acquire", "dejavu", 1, "per_thread")
    library = rate("get_library", "dejavu", 1, "per_thread")
    if acquire and library:
        # Rates: an acquire + give-back taking at most twice as long.
        out.append(("acquire + give back of a warm instance, 1 thread: within "
                    "2x get_library", f"{library / acquire:.2f}x as long",
                    library / acquire <= 2.0))
    for (workload, font), by_threads in runs.items():
        r = by_threads.get(1, {})
        # With blobs, opening by path beats raw: raw is no limit there; nor
        # is it for a font's whole life (font_churn).
        by_path = workload in ("file_open_close", "open_render_close",
                               "font_churn")
        if "per_thread" in r and "raw" in r and not by_path:
            need = {"render_only": 0.99, "shared_font_render": 0.98}.get(
                workload, 0.97)
            got = r["per_thread"] / r["raw"]
            out.append((f"{workload}/{font}, 1 thread: per_thread >= {need:.2f}x raw",
                        f"{got:.3f}x", got >= need))
        if 16 in by_threads and 2 in by_threads:
            a, b = by_threads[16].get("per_thread"), by_threads[2].get("per_thread")
            if a and b:
                out.append((f"{workload}/{font}: per_thread at 16 threads >= 0.95x at 2",
                            f"{a / b:.2f}x", a / b >= 0.95))
    return out


def plot(runs, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(runs.items())
    cols = 3
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows),
                             squeeze=False)
    for ax, ((workload, font), by_threads) in zip(axes.flat, panels):
        threads = sorted(by_threads)
        for variant in VARIANTS:
            ys = [by_threads[t].get(variant) for t in threads]
            if any(y is not None for y in ys):
                ax.plot(threads, ys, marker="o", label=variant)
        ax.set_title(f"{workload} ({font})")
        ax.set_xscale("log", base=2)
        ax.set_xticks(threads)
        ax.set_xticklabels([str(t) for t in threads])
        ax.set_xlabel("threads")
        ax.set_ylabel("items / s")
        if workload in ("get_library", "font_acquire"):
            ax.set_yscale("log")  # naive is a thousand times slower
        else:
            ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    context, runs = load(path)
    if not runs:
        sys.exit(f"{path}: no benchmark results")
    out_dir = os.path.dirname(os.path.abspath(path))
    machine = (f"{context.get('num_cpus', '?')} CPUs at "
               f"{context.get('mhz_per_cpu', '?')} MHz, {context.get('date', '')}")
    text = [f"Items per second (higher is better); {machine}."]
    if context["median_cv"] is not None:
        text.append(f"Spread between repetitions: median coefficient of variation "
                    f"{100 * context['median_cv']:.1f}% (the machine's noise; ratios "
                    "closer to 1 than a few times that are ties).")
    text += ["", table(runs), ""]
    text.append("Targets:")
    for description, measured, met in targets(runs):
        text.append(f"- [{'met' if met else 'MISSED'}] {description}: {measured}")
    report = "\n".join(text)
    print(report)
    with open(os.path.join(out_dir, "table.md"), "w") as f:
        f.write(report + "\n")
    plot(runs, os.path.join(out_dir, "plot.png"))
    print(f"\nresults: {out_dir}/ (bench.json, table.md, plot.png)")


if __name__ == "__main__":
    main()
