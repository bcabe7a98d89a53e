# SPDX-License-Identifier: MIT
"""Text drawing throughput of a Pillow build, from 1 to N threads.

Each draw is one line, "Sphinx of black quartz, judge my vow" in DejaVu Sans
24 px, into a fresh 560x36 "L" image through ImageDraw.text. Each thread
draws into its own images for a fixed time; a point's throughput is all the
threads' draws over the time from their common start to the last one's end.
Two scenarios:
  shared    ONE ImageFont made beforehand, used by every thread;
  per-item  ImageFont.truetype() and the draw, for every item.
On the port (a build whose _imagingft has ftpool_glyph_cache), each point is
measured with the port's glyph cache and without it
(FTPOOL_PILLOW_GLYPH_CACHE=off in the child), the two alternating run by
run, so that a slow minute of a shared machine hits both alike; the point's
"glyph_cache" says which ("on", "off"; absent for stock), and the child
reports the cache's hits and misses.
Every point runs in a child process, so a point that crashes (stock Pillow
under free-threaded Python shares one FT_Face between threads) is recorded
as such and the others still run. A point whose draws raised is recorded
with its first error. The machine's load average before each point is
recorded, and the CPU time the process got: other work on the machine
skews the numbers. Writes JSON (--json) and prints a table.

Usage: python bench_text.py --font DejaVuSans.ttf --variant NAME
           [--scenarios shared,per-item] [--threads 1,2,4,8] [--seconds 3]
           [--repeat 3] [--layout raqm|basic] [--glyph-cache on,off]
           [--quick] [--json OUT]
with PIL importable from the Pillow build under test (PYTHONPATH).
"""

import argparse
import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import threading
import time

TEXT = "Sphinx of black quartz, judge my vow"
SIZE = (560, 36)
SCENARIOS = ("shared", "per-item")


def interpreter():
    import PIL
    from PIL import _imagingft, features

    gil = getattr(sys, "_is_gil_enabled", None)
    return {
        "python": sys.version.split()[0],
        "gil": "enabled" if gil is None or gil() else "disabled",
        "pillow": PIL.__version__,
        "pillow_path": os.path.dirname(PIL.__file__),
        "freetype": features.version("freetype2"),
        "raqm": features.version("raqm"),
        # The port's glyph cache can be turned off; stock has none.
        "glyph_cache": hasattr(_imagingft, "ftpool_glyph_cache"),
    }


def child(args):
    """One measurement: prints RESULT {draws, seconds, errors, first_error}."""
    from PIL import Image, ImageDraw, ImageFont, _imagingft

    layout = {"raqm": ImageFont.Layout.RAQM, "basic": ImageFont.Layout.BASIC}[
        args.layout
    ]
    shared = ImageFont.truetype(args.font, 24, layout_engine=layout)

    def one(font):
        im = Image.new("L", SIZE, 255)
        ImageDraw.Draw(im).text((4, 2), TEXT, fill=0, font=font)
        return im

    if args.scenario == "shared":
        def item():
            one(shared)
    else:
        def item():
            one(ImageFont.truetype(args.font, 24, layout_engine=layout))

    item()  # warm up: imports, caches
    counts = [0] * args.threads
    errors = []
    start = threading.Barrier(args.threads + 1)
    ends = [0.0] * args.threads

    def worker(i):
        start.wait()
        deadline = time.perf_counter() + args.seconds
        n = 0
        while time.perf_counter() < deadline:
            try:
                item()
            except Exception as e:  # noqa: BLE001: counted, the point is void
                errors.append(f"{type(e).__name__}: {e}")
            n += 1
        counts[i] = n
        ends[i] = time.perf_counter()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.threads)]
    for t in threads:
        t.start()
    start.wait()
    began = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    for t in threads:
        t.join()
    seconds = max(ends) - began
    cpu_end = resource.getrusage(resource.RUSAGE_SELF)
    cpu_seconds = (cpu_end.ru_utime - cpu.ru_utime) + (cpu_end.ru_stime - cpu.ru_stime)
    result = {
        "draws": sum(counts), "per_thread": counts, "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "errors": len(errors), "first_error": errors[0] if errors else None,
    }
    if hasattr(_imagingft, "ftpool_glyph_cache"):
        stats = _imagingft.ftpool_glyph_stats()
        result["glyph_cache"] = _imagingft.ftpool_glyph_cache
        result["glyph_hits"] = stats["hits"]
        result["glyph_misses"] = stats["misses"]
    print("RESULT " + json.dumps(result), flush=True)


def measure(args, scenario, threads, glyph_cache=None):
    cmd = [sys.executable, os.path.abspath(__file__), "--child",
           "--font", args.font, "--layout", args.layout,
           "--scenario", scenario, "--threads-one", str(threads),
           "--seconds", str(args.seconds)]
    env = dict(os.environ)
    if glyph_cache:
        env["FTPOOL_PILLOW_GLYPH_CACHE"] = glyph_cache
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env,
                              timeout=args.seconds + 120)
    except subprocess.TimeoutExpired:
        return {"status": "hung"}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT ") and proc.returncode == 0:
            r = json.loads(line[7:])
            if r["errors"]:
                return {"status": f"errors: {r['errors']} draws raised, "
                                  f"first: {r['first_error']}", **r}
            r["draws_per_s"] = r["draws"] / r["seconds"]
            return {"status": "ok", **r}
    if proc.returncode < 0:
        status = f"crashed: {signal.Signals(-proc.returncode).name}"
    else:
        status = f"failed: exit status {proc.returncode}"
    tail = [l for l in proc.stderr.splitlines() if l.strip()][-2:]
    return {"status": status, "stderr_tail": tail}


def point_of(scenario, threads, cache, runs, load):
    """A point of the results: the median of its runs, or how they failed."""
    point = {"scenario": scenario, "threads": threads, "runs": runs,
             "loadavg_before": load}
    if cache:
        point["glyph_cache"] = cache
    good = [r["draws_per_s"] for r in runs if r["status"] == "ok"]
    if len(good) == len(runs):
        point["status"] = "ok"
        point["draws_per_s"] = statistics.median(good)
        point["draws_per_cpu_s"] = statistics.median(
            r["draws"] / r["cpu_seconds"] for r in runs)
        point["cpus_busy"] = statistics.median(
            r["cpu_seconds"] / r["seconds"] for r in runs)
    else:
        point["status"] = next(r["status"] for r in runs if r["status"] != "ok")
        point["draws_per_s"] = point["draws_per_cpu_s"] = None
    return point


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--font", required=True, help="path of DejaVuSans.ttf")
    p.add_argument("--variant", default="unnamed",
                   help="the name of the build measured, for the results")
    p.add_argument("--scenarios", default=",".join(SCENARIOS))
    p.add_argument("--threads", default="1,2,4,8")
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--repeat", type=int, default=3,
                   help="measurements per point; the median is reported")
    p.add_argument("--layout", choices=("raqm", "basic"), default="raqm")
    p.add_argument("--glyph-cache", default="on,off", dest="glyph_cache",
                   help="the port's glyph cache settings to measure, each "
                        "point alternating between them (ignored for stock)")
    p.add_argument("--quick", action="store_true",
                   help="0.5 s per point, one measurement")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--scenario", help=argparse.SUPPRESS)
    p.add_argument("--threads-one", type=int, dest="threads_one",
                   help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        args.threads = args.threads_one
        child(args)
        return 0
    if args.quick:
        args.seconds, args.repeat = 0.5, 1
    scenarios = args.scenarios.split(",")
    unknown = set(scenarios) - set(SCENARIOS)
    if unknown:
        p.error(f"unknown scenario {unknown}")
    thread_counts = [int(t) for t in args.threads.split(",")]

    info = interpreter()
    caches = [None]
    if info["glyph_cache"]:
        caches = args.glyph_cache.split(",")
        if set(caches) - {"on", "off"}:
            p.error("--glyph-cache takes on, off or on,off")
    print(f"bench_text: {args.variant}: Python {info['python']} (GIL "
          f"{info['gil']}), Pillow {info['pillow']}, FreeType {info['freetype']}, "
          f"Raqm {info['raqm']}, layout {args.layout}; {args.seconds} s per "
          f"point, median of {args.repeat}"
          + (f"; glyph cache {' and '.join(caches)}, alternating"
             if info["glyph_cache"] else ""), flush=True)
    points = []
    for scenario in scenarios:
        base = {}
        for threads in thread_counts:
            load = os.getloadavg()[0]
            runs = {cache: [] for cache in caches}
            for _ in range(args.repeat):
                for cache in caches:
                    runs[cache].append(measure(args, scenario, threads, cache))
            for cache in caches:
                point = point_of(scenario, threads, cache, runs[cache], load)
                if threads == 1 and point["draws_per_s"]:
                    base[cache] = point["draws_per_s"]
                points.append(point)
                if point["draws_per_s"] is None:
                    shown = point["status"]
                else:
                    scaling = (f", {point['draws_per_s'] / base[cache]:.2f}x 1 thread"
                               if cache in base else "")
                    shown = (f"{point['draws_per_s']:9.0f} draws/s{scaling}, "
                             f"{point['cpus_busy']:.2f} CPUs busy")
                label = f" cache {cache:3}" if cache else ""
                print(f"  {scenario:8} {threads} threads{label}: {shown}   (load "
                      f"average before: {load:.1f})", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"variant": args.variant, "interpreter": info,
                       "text": TEXT, "image": SIZE, "font_px": 24,
                       "layout": args.layout, "seconds": args.seconds,
                       "repeat": args.repeat, "points": points}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
