#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Stock MuPDF, measured before the port: how fast it renders the corpus
# (examples/mupdf/corpus.sh) from one and two threads, and how long each
# thread waits on each of MuPDF's locks (FZ_LOCK_ALLOC, _FREETYPE,
# _GLYPHCACHE: 1.21 has no other). Runs the stock-lockstat build
# (examples/mupdf/build.sh: stock plus examples/mupdf/lockstat.patch, which
# changes only the lock callbacks of mutool draw and of the example) in
# these modes, each over every file of a set, REPS times:
#   draw-T1    mutool draw -T 1 -B 256: the main thread interprets each
#              page into a display list, one worker renders its bands
#   draw-T2    the same with two workers, bands shared round robin
#   draw-P-T2  -P -T 2: the main thread interprets page n+1 while a
#              background thread has page n rendered by two workers
#   mt-1       docs/examples/multi-threaded.c: the main thread makes each
#              page's display list and hands it to a thread of its own,
#              MT_THREADS=1 at once (no PNG written: MT_SAVE=0)
#   mt-2       the same, two page threads at once
# Rendering only: mutool draw without -o renders every band and writes
# nothing, so no encoder runs. RGB, at each resolution given.
# First it checks that no file of the corpus needs a font it does not embed
# (the build has none built in): any message at render other than those of
# examples/mupdf/messages.sh fails, and a control PDF that names Helvetica
# without embedding it must fail.
# Prints, and writes to OUT (default build/mupdf/measure/locks.md), two
# markdown tables: median wall time and pages/s per set and mode, and for
# the median run the wait per thread per lock, with its share of the wall
# time. The raw records stay in OUT's folder (records.tsv).
# Usage: examples/mupdf/measure_locks.sh [--reps N] [--dpi "150 300"]
#          [--sets "latin cjk mixed"] [--modes "draw-T1 ..."] [--out FILE]
#          [--variant stock|port]  (port: the ftpool port, with the same
#          lock table: examples/mupdf/build.sh port-lockstat)
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
reps=3 dpis="150 300" sets="latin cjk mixed" variant=stock
modes="draw-T1 draw-T2 draw-P-T2 mt-1 mt-2"
out=$root/build/mupdf/measure/locks.md
while [ $# -gt 0 ]; do
  case "$1" in
  --reps) reps=$2 ;;
  --dpi) dpis=$2 ;;
  --sets) sets=$2 ;;
  --modes) modes=$2 ;;
  --out) out=$(realpath -m "$2") ;;
  --variant) variant=$2 ;;
  *)
    echo "usage: $0 [--reps N] [--dpi LIST] [--sets LIST] [--modes LIST] [--out FILE] [--variant stock|port]" >&2
    exit 2
    ;;
  esac
  shift 2
done

bin=$(examples/mupdf/build.sh "$variant"-lockstat)
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
records=$(dirname "$out")/records.tsv

. "$root"/examples/mupdf/messages.sh
fontcheck() { # FILE PAGES: fails on any other message
  "$bin"/mutool draw -q -r 72 "$1" "$2" 2>"$work"/msg >/dev/null || true
  if grep -vE "$harmless" "$work"/msg | grep -v '^lockstat: ' | grep -q .; then
    grep -vE "$harmless" "$work"/msg | grep -v '^lockstat: ' | sort | uniq -c | head >&2
    return 1
  fi
}

# The control: a page whose font is Helvetica, not embedded.
python3 "$root"/examples/mupdf/control_pdf.py "$work"/control.pdf
if fontcheck "$work"/control.pdf 1-N 2>/dev/null; then
  echo "measure_locks: the font check passed a PDF without its font" >&2
  exit 1
fi

# The corpus: "SET PATH FIRST LAST PAGES_SPEC", every font embedded.
: >"$work"/corpus
for set in $sets; do
  examples/mupdf/corpus.sh "$set" | while read -r s path spec; do
    n=$("$bin"/mutool info "$path" 2>/dev/null | awk '/^Pages:/ { print $2 }')
    first=${spec%%-*} last=${spec#*-}
    [ "$last" = N ] && last=$n
    fontcheck "$path" "$spec" || {
      echo "measure_locks: $path: a font is missing (above)" >&2
      exit 1
    }
    echo "$s $path $first $last $spec" >>"$work"/corpus
  done
done
echo "measure_locks: corpus checked, every font embedded:" \
  "$(awk '{ p += $4 - $3 + 1 } END { print NR " files, " p " pages" }' "$work"/corpus)" >&2

# One run: prints "wall_ns" then the lockstat rows, into $work/run.
run() { # MODE DPI PATH FIRST LAST SPEC
  local mode=$1 dpi=$2 path=$3 first=$4 last=$5 spec=$6 start end
  start=$(date +%s%N)
  case "$mode" in
  draw-T1) "$bin"/mutool draw -q -r "$dpi" -B 256 -T 1 "$path" "$spec" ;;
  draw-T2) "$bin"/mutool draw -q -r "$dpi" -B 256 -T 2 "$path" "$spec" ;;
  draw-P-T2) "$bin"/mutool draw -q -r "$dpi" -B 256 -T 2 -P "$path" "$spec" ;;
  mt-1 | mt-2)
    (cd "$work" && MT_THREADS=${mode#mt-} MT_DPI=$dpi MT_SAVE=0 \
      MT_PAGES="$first-$last" "$bin"/multi-threaded "$path") ;;
  esac 2>"$work"/err >/dev/null
  end=$(date +%s%N)
  grep -q '^lockstat: wall' "$work"/err || {
    tail "$work"/err >&2
    echo "measure_locks: $mode $path: no lock table" >&2
    exit 1
  }
  echo $((end - start)) >"$work"/run
  grep '^lockstat: ' "$work"/err | grep -v 'wall\|acquired' >>"$work"/run
}

printf 'dpi\tset\tmode\trep\tfile\tpages\twall_ns\tlockwall_s\tthread\tn\tlock\tacquired\tcontended\twait_ms\tmax_wait_ms\theld_ms\n' >"$records"
for dpi in $dpis; do
  for set in $sets; do
    for mode in $modes; do
      for rep in $(seq "$reps"); do
        while read -r s path first last spec; do
          [ "$s" = "$set" ] || continue
          run "$mode" "$dpi" "$path" "$first" "$last" "$spec"
          lockwall=$(grep -m1 '^lockstat: wall' "$work"/err | awk '{ print $3 }')
          awk -v pre="$dpi	$set	$mode	$rep	$path	$((last - first + 1))	$(head -1 "$work"/run)	$lockwall" \
            'NR > 1 { print pre "\t" $2 "\t" $3 "\t" $4 "\t" $5 "\t" $6 "\t" $7 "\t" $8 "\t" $9 }' \
            "$work"/run >>"$records"
        done <"$work"/corpus
        echo "measure_locks: ${dpi} dpi $set $mode run $rep done" >&2
      done
    done
  done
done

python3 - "$records" "$out" "$reps" <<'EOF'
import collections, statistics, sys
records, out, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
rows = [l.rstrip("\n").split("\t") for l in open(records)][1:]
# Per (dpi, set, mode, rep): the set's wall (sum over files) and pages.
runs = collections.defaultdict(lambda: {"wall": 0.0, "lockwall": 0.0, "pages": 0,
                                        "files": set(), "locks": collections.Counter(),
                                        "threads": collections.Counter()})
for dpi, s, mode, rep, f, pages, wall, lockwall, thread, n, lock, acq, cont, wait, maxw, held in rows:
    r = runs[dpi, s, mode, int(rep)]
    if f not in r["files"]:
        r["files"].add(f)
        r["wall"] += int(wall) / 1e9
        r["lockwall"] += float(lockwall)
        r["pages"] += int(pages)
    if lock == "ALLOC":
        r["threads"][thread] += int(n)
    r["locks"][thread, lock, "acq"] += int(acq)
    r["locks"][thread, lock, "cont"] += int(cont)
    r["locks"][thread, lock, "wait"] += float(wait)
    r["locks"][thread, lock, "held"] += float(held)
keys = list({k[:3] for k in runs})
modes_order = ["draw-T1", "draw-T2", "draw-P-T2", "mt-1", "mt-2"]
keys.sort(key=lambda k: (int(k[0]), ["latin", "cjk", "mixed"].index(k[1]), modes_order.index(k[2])))
lines = ["| dpi | set | pages | mode | wall s, median of %d (min-max) | pages/s | vs 1 thread |" % reps,
         "| ---: | --- | ---: | --- | ---: | ---: | ---: |"]
median_run = {}
base = {}
for k in keys:
    walls = sorted((runs[k + (r,)]["wall"], r) for r in range(1, reps + 1) if k + (r,) in runs)
    med = walls[(len(walls) - 1) // 2]
    median_run[k] = runs[k + (med[1],)]
    pages = median_run[k]["pages"]
    rate = pages / med[0]
    one = {"draw-T2": "draw-T1", "draw-P-T2": "draw-T1", "mt-2": "mt-1"}.get(k[2])
    base[k] = rate
    vs = "%.2fx" % (rate / base[(k[0], k[1], one)]) if one and (k[0], k[1], one) in base else ""
    lines.append("| %s | %s | %d | %s | %.3f (%.3f-%.3f) | %.1f | %s |" % (
        k[0], k[1], pages, k[2], med[0], walls[0][0], walls[-1][0], rate, vs))
lines += ["", "Waits in the median run, per thread and lock: total ms (share of the wall time"
          " from lock set-up to report; for `render`, the page threads' sum over the 2 or 1"
          " that run at once), contended acquisitions / all.", "",
          "| dpi | set | mode | thread | ALLOC | FREETYPE | GLYPHCACHE | all three |",
          "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: |"]
for k in keys:
    r = median_run[k]
    for t, n in r["threads"].items():
        slots = int(k[2][-1]) if t == "render" else 1
        cells, total = [], 0.0
        for lock in ("ALLOC", "FREETYPE", "GLYPHCACHE"):
            w = r["locks"][t, lock, "wait"]
            total += w
            cells.append("%.1f ms (%.2f%%), %d/%d" % (w, 100 * w / 1e3 / r["lockwall"] / slots,
                         r["locks"][t, lock, "cont"], r["locks"][t, lock, "acq"]))
        name = t if t != "render" else "render (%d page threads)" % n
        lines.append("| %s | %s | %s | %s | %s | %.1f ms (%.2f%%) |" % (
            k[0], k[1], k[2], name, " | ".join(cells), total, 100 * total / 1e3 / r["lockwall"] / slots))
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
print(text, end="")
EOF
echo "measure_locks: tables in ${out#"$root"/}, records in ${records#"$root"/}" >&2
