# SPDX-License-Identifier: MIT
"""Tabulates and plots examples/mupdf/bench.sh's records (records.tsv).

Prints markdown tables: per resolution, set and mode, the median wall time
of stock MuPDF and of the ftpool port over the set (the sum over its files,
median over the reps, with the range), pages per second, port/stock (the
median over the reps of the rep's own ratio: the two ran one after the
other), and each variant's rate over its draw-T1 rate; the serial share
(the main thread's interpretation, from the `serial` mode, over draw-T1's
wall time) with the bound it puts on draw-T2 (Amdahl: 1 / (s + (1 - s) /
2)); and issue 27's targets, met or missed, with the most draw-T2 could
give at that bound (the port's draw-T1 rate times its bound, over stock's
draw-T2 rate). With --plot, draws grouped bars
of pages/s, stock against port, per set and mode, one panel per resolution,
with port/stock printed over each pair. Needs matplotlib for --plot
(Debian's python3-matplotlib: run it with /usr/bin/python3).

Usage: python3 bench_plot.py RECORDS.tsv [--plot OUT.png]
"""

import argparse
import collections
import statistics

MODES = ["draw-T1", "draw-T2", "draw-P-T2"]
SETS = ["latin", "cjk", "mixed"]
VARIANTS = ["stock", "port"]
TARGET_T2 = 1.7  # the port at 2 threads over stock, CJK
TARGET_T1 = 0.98  # the port at 1 thread over stock, every set


def load(path):
    """{(dpi, set, mode, variant): {rep: {wall, pages, interp, render}}}."""
    runs = collections.defaultdict(lambda: collections.defaultdict(
        lambda: {"wall": 0.0, "pages": 0, "interp": 0.0, "render": 0.0}))
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            row = dict(zip(header, line.rstrip("\n").split("\t")))
            r = runs[int(row["dpi"]), row["set"], row["mode"], row["variant"]][int(row["rep"])]
            r["wall"] += int(row["wall_ns"]) / 1e9
            r["pages"] += int(row["pages"])
            if row["interp_ms"] != "-":
                r["interp"] += int(row["interp_ms"]) / 1e3
                r["render"] += int(row["render_ms"]) / 1e3
    return runs


def median(xs):
    return statistics.median(xs) if xs else None


class Bench:
    def __init__(self, runs):
        self.runs = runs
        self.keys = sorted({(k[0], k[1]) for k in runs},
                           key=lambda k: (k[0], SETS.index(k[1]) if k[1] in SETS else 9))
        self.modes = [m for m in MODES if any(k[2] == m for k in runs)]

    def wall(self, dpi, s, mode, variant):
        reps = self.runs.get((dpi, s, mode, variant))
        return median([r["wall"] for r in reps.values()]) if reps else None

    def walls(self, dpi, s, mode, variant):
        reps = self.runs.get((dpi, s, mode, variant), {})
        return [r["wall"] for r in reps.values()]

    def pages(self, dpi, s, mode, variant):
        reps = self.runs.get((dpi, s, mode, variant))
        return next(iter(reps.values()))["pages"] if reps else None

    def rate(self, dpi, s, mode, variant):
        w = self.wall(dpi, s, mode, variant)
        return self.pages(dpi, s, mode, variant) / w if w else None

    def ratios(self, dpi, s, mode, other=None):
        """Port over stock (pages/s, i.e. stock's wall over the port's),
        per rep; against stock's `other` mode when given."""
        a = self.runs.get((dpi, s, other or mode, "stock"), {})
        b = self.runs.get((dpi, s, mode, "port"), {})
        return [a[r]["wall"] / b[r]["wall"] for r in sorted(set(a) & set(b))]

    def main_table(self):
        lines = ["| dpi | set | pages | mode | stock: wall s (min-max) | stock pages/s"
                 " | port: wall s (min-max) | port pages/s | port / stock (min-max)"
                 " | stock x T1 | port x T1 |",
                 "| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for dpi, s in self.keys:
            for mode in self.modes:
                cells = []
                for v in VARIANTS:
                    ws = self.walls(dpi, s, mode, v)
                    if not ws:
                        cells += ["", ""]
                        continue
                    cells.append("%.3f (%.3f-%.3f)" % (median(ws), min(ws), max(ws)))
                    cells.append("%.1f" % self.rate(dpi, s, mode, v))
                rs = self.ratios(dpi, s, mode)
                cells.append("**%.2fx** (%.2f-%.2f)" % (median(rs), min(rs), max(rs))
                              if rs else "")
                for v in VARIANTS:
                    one, this = self.rate(dpi, s, "draw-T1", v), self.rate(dpi, s, mode, v)
                    cells.append("%.2fx" % (this / one) if one and this and mode != "draw-T1"
                                  else "")
                pages = self.pages(dpi, s, mode, "stock") or self.pages(dpi, s, mode, "port")
                lines.append("| %d | %s | %d | %s | %s |" % (dpi, s, pages, mode, " | ".join(cells)))
        return "\n".join(lines)

    def bound(self, dpi, s, v):
        """Amdahl's bound on draw-T2 (x draw-T1): the serial share s is the
        main thread's interpretation over draw-T1's wall time."""
        reps = self.runs.get((dpi, s, "serial", v))
        t1 = self.wall(dpi, s, "draw-T1", v)
        if not reps or not t1:
            return None, None
        interp = median([r["interp"] for r in reps.values()])
        share = interp / t1
        return interp, 1 / (share + (1 - share) / 2)

    def serial_table(self):
        lines = ["| dpi | set | variant | interpretation s | draw-T1 s | serial share"
                 " | draw-T2 bound (x T1) | draw-T2 measured (x T1) | measured / bound |",
                 "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for dpi, s in self.keys:
            for v in VARIANTS:
                interp, bound = self.bound(dpi, s, v)
                if not bound:
                    continue
                t1 = self.wall(dpi, s, "draw-T1", v)
                share = interp / t1
                t2 = self.wall(dpi, s, "draw-T2", v)
                meas = t1 / t2 if t2 else None
                lines.append("| %d | %s | %s | %.3f | %.3f | %.1f%% | %.2fx | %s | %s |" % (
                    dpi, s, v, interp, t1, 100 * share, bound,
                    "%.2fx" % meas if meas else "", "%.0f%%" % (100 * meas / bound) if meas else ""))
        return "\n".join(lines) if len(lines) > 2 else ""

    def targets_table(self):
        lines = ["| target | dpi | set | mode | port / stock, same mode (min-max)"
                 " | port / stock's draw-T1 | the port at its bound / stock | |",
                 "| --- | ---: | --- | --- | ---: | ---: | ---: | --- |"]
        for dpi, s in self.keys:
            for mode in self.modes:
                if mode == "draw-T1":
                    target, goal = "1 thread: port >= %.2fx stock" % TARGET_T1, TARGET_T1
                elif s == "cjk":
                    target, goal = "2 threads, CJK: port >= %.1fx stock" % TARGET_T2, TARGET_T2
                else:
                    continue
                rs = self.ratios(dpi, s, mode)
                if not rs:
                    continue
                vs1 = self.ratios(dpi, s, mode, "draw-T1") if mode != "draw-T1" else []
                # The most draw-T2 could give: the port's draw-T1 rate at
                # its Amdahl bound, over stock's draw-T2 rate.
                _, bound = self.bound(dpi, s, "port")
                best = ""
                if mode == "draw-T2" and bound and self.rate(dpi, s, mode, "stock"):
                    best = "%.2fx" % (bound * self.rate(dpi, s, "draw-T1", "port")
                                      / self.rate(dpi, s, mode, "stock"))
                lines.append("| %s | %d | %s | %s | %.2fx (%.2f-%.2f) | %s | %s | %s |" % (
                    target, dpi, s, mode, median(rs), min(rs), max(rs),
                    "%.2fx" % median(vs1) if vs1 else "", best,
                    "met" if median(rs) >= goal else "**missed**"))
        return "\n".join(lines) if len(lines) > 2 else ""

    def plot(self, out):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        dpis = sorted({k[0] for k in self.keys})
        fig, axes = plt.subplots(1, len(dpis), figsize=(6.5 * len(dpis), 4.2), squeeze=False)
        colors = {"stock": "#8c8c8c", "port": "#1f77b4"}
        for ax, dpi in zip(axes[0], dpis):
            groups = [(s, m) for d, s in self.keys if d == dpi for m in self.modes]
            width = 0.38
            top = 0
            for i, v in enumerate(VARIANTS):
                xs = [g + (i - 0.5) * width for g in range(len(groups))]
                ys = [self.rate(dpi, s, m, v) or 0 for s, m in groups]
                top = max([top] + ys)
                ax.bar(xs, ys, width, label=v if v == "stock" else "ftpool port",
                       color=colors[v])
            for g, (s, m) in enumerate(groups):
                rs = self.ratios(dpi, s, m)
                hi = max(self.rate(dpi, s, m, v) or 0 for v in VARIANTS)
                if rs:
                    ax.annotate("%.2fx" % median(rs), (g, hi), xytext=(0, 3),
                                textcoords="offset points", ha="center", fontsize=8,
                                fontweight="bold")
            ax.set_xticks(range(len(groups)))
            ax.set_xticklabels(["%s\n%s" % (s, m) for s, m in groups], fontsize=7)
            ax.set_ylabel("pages / s (median)")
            ax.set_ylim(0, top * 1.15)
            ax.set_title("%d dpi" % dpi, fontsize=10)
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=8, loc="upper right")
        fig.suptitle("MuPDF 1.21.1, mutool draw -B 256, rendering only, 2 cores\n"
                     "stock vs the ftpool port (port / stock over each pair)", fontsize=10)
        fig.tight_layout()
        fig.savefig(out, dpi=100)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("records")
    p.add_argument("--plot", help="write a PNG here")
    args = p.parse_args()
    bench = Bench(load(args.records))
    print("Wall time per set (sum over its files), median of the reps; pages/s from"
          " the median; port / stock is the median of each rep's ratio (> 1: the port"
          " is faster); x T1 is the variant's pages/s over its own draw-T1's.\n")
    print(bench.main_table())
    serial = bench.serial_table()
    if serial:
        print("\nThe serial part: the main thread's interpretation (page load and"
              " display list, `-P -T 1 -s t`, summed over the set, median of the reps)"
              " over draw-T1's wall time; while it runs the workers of draw-T1 and"
              " draw-T2 wait, so draw-T2 can be at most 1 / (s + (1 - s) / 2) times"
              " as fast as draw-T1.\n")
        print(serial)
    targets = bench.targets_table()
    if targets:
        print("\nIssue 27's targets:\n")
        print(targets)
    if args.plot:
        bench.plot(args.plot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
