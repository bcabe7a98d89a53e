# SPDX-License-Identifier: MIT
"""Draws text from many threads with shared Pillow fonts, and checks every
image byte for byte against the same drawing done on one thread.

Pillow has no such test. What it covers, all at once in THREADS threads:
one shared ImageFont.FreeTypeFont per case, with the basic layout and with
Raqm (ligatures, right-to-left, features), a stroke, a 1-bit image (FreeType
converts the mono bitmap), a variable font whose axes or named instance were
set before the threads started, a font made from bytes, getbbox/getlength,
and fonts created on one thread and drawn and deleted on another (handed
through a queue to the next thread).

The drawing runs in a child process, so that a crash (a corrupted heap, a
segfault) is reported rather than fatal: the parent runs the child RUNS times
and prints, for each, the mismatches, the exceptions (by message) and how
the child ended; then one summary line, PASS or FAIL. Exit status 0 on PASS.

Usage: python threaded_text.py --dejavu DejaVuSans.ttf --variable VF.otf
           [--threads 8] [--rounds 40] [--runs 3] [--timeout 300]
           [--json results.json]
with PIL importable from the Pillow build under test (PYTHONPATH).
"""

import argparse
import io
import json
import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from collections import Counter

TEXT = "Sphinx of black quartz, judge my vow"


def describe_interpreter():
    import PIL

    gil = getattr(sys, "_is_gil_enabled", None)
    return {
        "python": sys.version.split()[0],
        "gil": "enabled" if gil is None or gil() else "disabled",
        "pillow": PIL.__version__,
        "pillow_path": os.path.dirname(PIL.__file__),
    }


# ---------------------------------------------------------------- the child


def shared_fonts(args):
    """The fonts every thread draws with, made on the main thread."""
    from PIL import ImageFont

    basic, raqm = ImageFont.Layout.BASIC, ImageFont.Layout.RAQM
    with open(args.dejavu, "rb") as f:
        dejavu_bytes = f.read()
    fonts = {
        "dejavu-basic": ImageFont.truetype(args.dejavu, 24, layout_engine=basic),
        "dejavu-raqm": ImageFont.truetype(args.dejavu, 24, layout_engine=raqm),
        "dejavu-bytes": ImageFont.truetype(
            io.BytesIO(dejavu_bytes), 20, layout_engine=raqm
        ),
    }
    for name, weight in (("vf-300", 300), ("vf-700", 700)):
        font = ImageFont.truetype(args.variable, 28, layout_engine=raqm)
        font.set_variation_by_axes([weight])
        fonts[name] = font
    font = ImageFont.truetype(args.variable, 28, layout_engine=basic)
    font.set_variation_by_name("Extra Bold")
    fonts["vf-named"] = font
    return fonts, dejavu_bytes


# name: (font, image mode, size, text, draw.text keywords)
JOBS = {
    "basic": ("dejavu-basic", "L", (560, 36), TEXT, {}),
    "basic-mono": ("dejavu-basic", "1", (560, 36), TEXT, {}),
    "raqm": ("dejavu-raqm", "L", (560, 36), TEXT, {}),
    "raqm-ligatures": ("dejavu-raqm", "L", (300, 36), "office ﬁne ffl", {}),
    "raqm-rtl": ("dejavu-raqm", "L", (300, 36), "שלום עולם",
                 {"direction": "rtl"}),
    "raqm-features": ("dejavu-raqm", "L", (560, 36), TEXT, {"features": ["-kern"]}),
    "stroke": (
        "dejavu-raqm",
        "RGB",
        (580, 44),
        TEXT,
        {"stroke_width": 2, "stroke_fill": (200, 30, 30)},
    ),
    "bytes": ("dejavu-bytes", "L", (480, 32), TEXT, {}),
    "variable-300": ("vf-300", "L", (600, 44), TEXT, {}),
    "variable-700": ("vf-700", "L", (600, 44), TEXT, {}),
    "variable-named": ("vf-named", "L", (600, 44), TEXT, {}),
}

# Fonts made and deleted by the threads: (size, layout, from bytes?)
CHURN = [(size, layout, from_bytes) for size in (12, 17, 23)
         for layout in (0, 1) for from_bytes in (False, True)]


def draw(font, mode, size, text, kwargs):
    """The image's bytes and the text's metrics, to compare."""
    from PIL import Image, ImageDraw

    ink, paper = (0, 1) if mode == "1" else ("black", "white")
    im = Image.new(mode, size, paper)
    ImageDraw.Draw(im).text((4, 2), text, fill=ink, font=font, **kwargs)
    layout = {k: v for k, v in kwargs.items() if k in ("direction", "features")}
    stroke = {k: v for k, v in kwargs.items() if k == "stroke_width"}
    metrics = (font.getbbox(text, **layout, **stroke), font.getlength(text, **layout))
    return im.mode, im.size, im.tobytes(), metrics


def make_churn_font(args, dejavu_bytes, key):
    from PIL import ImageFont

    size, layout, from_bytes = key
    source = io.BytesIO(dejavu_bytes) if from_bytes else args.dejavu
    return ImageFont.truetype(source, size, layout_engine=layout)


def child(args):
    from PIL import Image

    fonts, dejavu_bytes = shared_fonts(args)

    def run_job(name):
        font, mode, size, text, kwargs = JOBS[name]
        return draw(fonts[font], mode, size, text, kwargs)

    def run_churn(font):
        return draw(font, "L", (480, 32), TEXT, {})

    # The references, on this thread alone.
    expected = {name: run_job(name) for name in JOBS}
    blank = [n for n, (mode, size, data, _) in expected.items()
             if data == Image.new(mode, size, 1 if mode == "1" else "white").tobytes()]
    assert not blank, f"nothing drawn by {blank}"
    weights = {expected[n][2] for n in ("variable-300", "variable-700",
                                        "variable-named")}
    assert len(weights) == 3, "the variable font's weights draw alike"
    expected_churn = {}
    for key in CHURN:
        font = make_churn_font(args, dejavu_bytes, key)
        expected_churn[key] = run_churn(font)
        del font

    lock = threading.Lock()  # for the counters and the output only
    counts = Counter()
    reported = set()

    def event(kind, detail):
        with lock:
            counts[kind] += 1
            if (kind, detail) not in reported and len(reported) < 50:
                reported.add((kind, detail))
                print("EVENT " + json.dumps({"kind": kind, "detail": detail}),
                      flush=True)
            else:
                print("EVENT " + json.dumps({"kind": kind}), flush=True)

    def uncaught(hook_args):
        event("exception", f"thread died: {hook_args.exc_type.__name__}: "
                           f"{hook_args.exc_value}")

    threading.excepthook = uncaught
    handoff = [queue.Queue() for _ in range(args.threads)]
    start = threading.Barrier(args.threads)

    def worker(index):
        rng = random.Random(index)
        names = list(JOBS)
        start.wait()
        for _ in range(args.rounds):
            rng.shuffle(names)
            for name in names:
                try:
                    if run_job(name) != expected[name]:
                        event("mismatch", name)
                except Exception as e:  # noqa: BLE001: every failure is counted
                    event("exception", f"{name}: {type(e).__name__}: {e}")
                with lock:
                    counts["draws"] += 1
            # A font made here, handed to the next thread, which draws with
            # it and deletes it, while this one gets the previous thread's.
            key = CHURN[rng.randrange(len(CHURN))]
            try:
                font = make_churn_font(args, dejavu_bytes, key)
            except Exception as e:  # noqa: BLE001
                event("exception", f"create: {type(e).__name__}: {e}")
                font = None
            handoff[(index + 1) % args.threads].put((key, font))
            del font
            key, font = handoff[index].get(timeout=120)
            if font is None:
                continue
            try:
                if run_churn(font) != expected_churn[key]:
                    event("mismatch", f"churn {key}")
            except Exception as e:  # noqa: BLE001
                event("exception", f"churn {key}: {type(e).__name__}: {e}")
            del font
            with lock:
                counts["draws"] += 1
                counts["fonts handed over"] += 1
                print("ROUND", flush=True)  # progress: how far a crash got

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(args.threads)]
    began = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result = dict(counts)
    result["seconds"] = round(time.monotonic() - began, 3)
    print("RESULT " + json.dumps(result), flush=True)


# --------------------------------------------------------------- the parent


def run_once(args):
    cmd = [sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "--child",
           "--dejavu", args.dejavu, "--variable", args.variable,
           "--threads", str(args.threads), "--rounds", str(args.rounds)]
    began = time.monotonic()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=args.timeout)
        returncode, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
    except subprocess.TimeoutExpired as e:
        returncode = None
        stdout = (e.stdout or b"").decode(errors="replace") if isinstance(
            e.stdout, bytes) else (e.stdout or "")
        stderr = (e.stderr or b"").decode(errors="replace") if isinstance(
            e.stderr, bytes) else (e.stderr or "")
    run = {"seconds": round(time.monotonic() - began, 1), "rounds": 0,
           "mismatch": 0, "exception": 0, "details": Counter(), "result": None}
    for line in stdout.splitlines():
        if line.startswith("EVENT "):
            ev = json.loads(line[6:])
            run[ev["kind"]] += 1
            if "detail" in ev:
                run["details"][ev["kind"] + ": " + ev["detail"]] += 1
        elif line == "ROUND":
            run["rounds"] += 1
        elif line.startswith("RESULT "):
            run["result"] = json.loads(line[7:])
    if returncode is None:
        run["end"] = "timed out, killed"
    elif returncode < 0:
        run["end"] = f"crashed: {signal.Signals(-returncode).name}"
    elif returncode != 0 or run["result"] is None:
        run["end"] = f"failed: exit status {returncode}"
    else:
        run["end"] = "exited normally"
    # What the C library and faulthandler said, without the stacks.
    run["stderr"] = [l for l in stderr.splitlines() if l.strip()
                     and not l.startswith((" ", "Thread 0x", "Current thread",
                                           "Extension modules"))][:3]
    lines = stderr.splitlines()
    for i, line in enumerate(lines[:-1]):
        if line.startswith("Current thread"):
            run["stderr"].append("crashed in: " + lines[i + 1].strip())
    run["details"] = dict(run["details"])
    planned = args.threads * args.rounds * (len(JOBS) + 1)
    if run["result"] and run["result"].get("draws") != planned:
        run["end"] = f"drew {run['result'].get('draws')} of {planned}"
    run["ok"] = (run["end"] == "exited normally" and not run["mismatch"]
                 and not run["exception"])
    return run


def parent(args):
    info = describe_interpreter()
    print(f"threaded_text: Python {info['python']} (GIL {info['gil']}), "
          f"Pillow {info['pillow']} from {info['pillow_path']}; "
          f"{args.threads} threads x {args.rounds} rounds x "
          f"{len(JOBS) + 1} drawings, {args.runs} runs", flush=True)
    runs = []
    for i in range(args.runs):
        run = run_once(args)
        runs.append(run)
        draws = (run["result"]["draws"] if run["result"]
                 else f"{run['rounds'] * (len(JOBS) + 1)}+")
        print(f"  run {i + 1}: {run['end']} after {run['seconds']}s; "
              f"draws {draws}, mismatches {run['mismatch']}, "
              f"exceptions {run['exception']}", flush=True)
        for detail, n in sorted(run["details"].items()):
            print(f"    first seen: {detail}" + (f" (x{n})" if n > 1 else ""))
        if run["result"]:
            print(f"    fonts made on one thread, drawn and deleted on "
                  f"another: {run['result'].get('fonts handed over', 0)}")
        for line in run["stderr"]:
            print(f"    stderr: {line}")
    crashed = sum(1 for r in runs if r["end"] != "exited normally")
    passed = sum(1 for r in runs if r["ok"])
    verdict = "PASS" if passed == len(runs) else "FAIL"
    summary = (f"threaded_text: {verdict}: {passed}/{len(runs)} runs clean; "
               f"mismatches {sum(r['mismatch'] for r in runs)}, "
               f"exceptions {sum(r['exception'] for r in runs)}, "
               f"runs that did not exit normally {crashed}")
    print(summary)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"interpreter": info, "threads": args.threads,
                       "rounds": args.rounds, "runs": runs,
                       "verdict": verdict}, f, indent=1)
    return 0 if verdict == "PASS" else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dejavu", required=True, help="path of DejaVuSans.ttf")
    p.add_argument("--variable", required=True,
                   help="a variable font with a Weight axis and an "
                        "'Extra Bold' instance (Cantarell-VF.otf)")
    p.add_argument("--threads", type=int, default=8)
    p.add_argument("--rounds", type=int, default=40)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--json", help="write the results here")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args)
        return 0
    return parent(args)


if __name__ == "__main__":
    sys.exit(main())
