#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The MuPDF port's benchmark (ftpool issue 27, item 4): pages per second of
# stock MuPDF against the ftpool port (examples/mupdf/build.sh stock and
# port: the plain builds, not the lockstat ones, whose lock callbacks add
# timing code), over the corpus (examples/mupdf/corpus.sh), in these modes,
# each over every file of a set, rendering only (no -o: every band is drawn,
# nothing is encoded), RGB, at each resolution given:
#   draw-T1    mutool draw -q -r DPI -B 256 -T 1 FILE 1-N: the main thread
#              interprets each page into a display list, one worker renders
#              its bands
#   draw-T2    the same with two workers, bands shared round robin
#   draw-P-T2  -P -T 2: the main thread interprets page n+1 while a
#              background thread has page n rendered by two workers
#   serial     -P -T 1 -s t: mutool's own per-page timings, for the serial
#              part: the main thread's interpretation (page load and display
#              list) summed over the set. In draw-T1 and draw-T2 the workers
#              wait while it runs, so its share of draw-T1's wall time, s,
#              bounds draw-T2 at 1 / (s + (1 - s) / 2) of draw-T1 (Amdahl)
# Stock and the port run interleaved (stock, port, stock, port, ...) and
# each ratio is taken within a rep: the machine is shared and noisy. Every
# message at render other than those of examples/mupdf/messages.sh fails the
# run, and a control PDF that names Helvetica without embedding it must
# fail it (the builds have no built-in font).
# Prints a markdown table (median wall time and pages/s per set, mode and
# variant, port/stock, each variant's T2/T1), the serial share and the
# targets of issue 27, and writes them to OUT/bench.md (default
# build/mupdf/bench), the raw records to OUT/records.tsv and the plot
# (examples/mupdf/bench_plot.py, matplotlib) to PLOT (default
# docs/mupdf.png). Before measuring it waits, with --quiet-load L, until
# the 1-minute load average is below L (every 20 s, up to 15 minutes, then
# it measures anyway: bench.md records the load at the start and the end).
# The port's glyph cache has ftpool's default budget (4 MiB), or
# --port-budget BYTES (FTPOOL_MUPDF_GLYPH_CACHE; stock's own is 1 MiB).
# Usage: examples/mupdf/bench.sh [--reps N] [--dpi "150 300"]
#          [--sets "latin cjk"] [--modes "draw-T1 draw-T2 draw-P-T2 serial"]
#          [--out DIR] [--plot FILE|-] [--quiet-load L] [--port-budget BYTES]
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
reps=5 dpis="150 300" sets="latin cjk" quiet_load="" port_budget=""
modes="draw-T1 draw-T2 draw-P-T2 serial"
out=$root/build/mupdf/bench plot=$root/docs/mupdf.png
while [ $# -gt 0 ]; do
  case "$1" in
  --reps) reps=$2 ;;
  --dpi) dpis=$2 ;;
  --sets) sets=$2 ;;
  --modes) modes=$2 ;;
  --out) out=$(realpath -m "$2") ;;
  --plot)
    plot=$2
    [ "$plot" = - ] || plot=$(realpath -m "$plot")
    ;;
  --quiet-load) quiet_load=$2 ;;
  --port-budget) port_budget=$2 ;;
  *)
    echo "usage: $0 [--reps N] [--dpi LIST] [--sets LIST] [--modes LIST] [--out DIR] [--plot FILE|-] [--quiet-load L] [--port-budget BYTES]" >&2
    exit 2
    ;;
  esac
  shift 2
done
case "$port_budget" in
*[!0-9]*)
  echo "mupdf_bench: --port-budget takes bytes, not $port_budget" >&2
  exit 2
  ;;
esac
for m in $modes; do
  case "$m" in
  draw-T1 | draw-T2 | draw-P-T2 | serial) ;;
  *)
    echo "mupdf_bench: unknown mode $m" >&2
    exit 2
    ;;
  esac
done
if [ "$plot" != - ]; then
  scripts/setup.sh --only python3-matplotlib >&2
fi

declare -A bin
for variant in stock port; do
  bin[$variant]=$(examples/mupdf/build.sh "$variant")
done
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
records=$out/records.tsv

# What may be printed with nothing wrong (messages.sh).
. "$root"/examples/mupdf/messages.sh
# mutool's own lines with -s t: per page, and the summary at the end.
timings='^(page |total [0-9]+ms|fastest page|slowest page)'
msgcheck() { # FILE: fails on any other message, showing them
  if grep -vE "$harmless" "$1" | grep -vE "$timings" | grep -q .; then
    grep -vE "$harmless" "$1" | grep -vE "$timings" | sort | uniq -c | head >&2
    return 1
  fi
}

# The control: a page whose font is Helvetica, not embedded.
python3 "$root"/examples/mupdf/control_pdf.py "$work"/control.pdf
for variant in stock port; do
  "${bin[$variant]}"/mutool draw -q -r 72 "$work"/control.pdf 1-N 2>"$work"/msg >/dev/null || true
  if msgcheck "$work"/msg 2>/dev/null; then
    echo "mupdf_bench: $variant: the message check passed a PDF without its font" >&2
    exit 1
  fi
done

# The corpus: "SET PATH PAGES SPEC".
: >"$work"/corpus
for set in $sets; do
  examples/mupdf/corpus.sh "$set" | while read -r s path spec; do
    n=$("${bin[stock]}"/mutool info "$path" 2>/dev/null | awk '/^Pages:/ { print $2 }')
    first=${spec%%-*} last=${spec#*-}
    [ "$last" = N ] && last=$n
    echo "$s $path $((last - first + 1)) $spec" >>"$work"/corpus
  done
done
[ -s "$work"/corpus ] || {
  echo "mupdf_bench: no file in sets: $sets" >&2
  exit 2
}

# The quiet machine: other people build on these cores.
if [ -n "$quiet_load" ]; then
  waited=0
  until awk -v l="$quiet_load" '{ exit !($1 < l) }' /proc/loadavg; do
    if [ "$waited" -ge 900 ]; then
      echo "mupdf_bench: the load stayed at or above $quiet_load for 15 minutes;" \
        "measuring anyway (bench.md records the load)" >&2
      break
    fi
    echo "mupdf_bench: load $(cut -d' ' -f1 /proc/loadavg), waiting" >&2
    sleep 20
    waited=$((waited + 20))
  done
fi
load_start=$(cut -d' ' -f1-3 /proc/loadavg)

# One run of one variant over one file: appends a record.
run() { # DPI SET MODE REP VARIANT PATH PAGES SPEC
  local dpi=$1 set=$2 mode=$3 rep=$4 variant=$5 path=$6 pages=$7 spec=$8
  local mutool=${bin[$variant]}/mutool start end rc=0 interp=- render=-
  local budget=(env -u FTPOOL_MUPDF_GLYPH_CACHE)
  [ "$variant" != port ] || [ -z "$port_budget" ] ||
    budget=(env FTPOOL_MUPDF_GLYPH_CACHE="$port_budget")
  local args=(draw -q -r "$dpi" -B 256)
  case "$mode" in
  draw-T1) args+=(-T 1) ;;
  draw-T2) args+=(-T 2) ;;
  draw-P-T2) args+=(-P -T 2) ;;
  serial) args+=(-P -T 1 -s t) ;;
  esac
  start=$(date +%s%N)
  "${budget[@]}" "$mutool" "${args[@]}" "$path" "$spec" 2>"$work"/err >/dev/null </dev/null || rc=$?
  end=$(date +%s%N)
  if [ "$rc" -ne 0 ] || ! msgcheck "$work"/err; then
    echo "mupdf_bench: $variant $mode ${dpi} dpi $path: exit $rc, or a message above" >&2
    exit 1
  fi
  if [ "$mode" = serial ]; then
    read -r interp render _ < <(awk '
      / [0-9]+ms \(interpretation\) [0-9]+ms \(rendering\)/ && /^page / {
        for (i = 1; i < NF; i++) {
          if ($(i + 1) == "(interpretation)") { v = $i; sub("ms", "", v); it += v; n++ }
          if ($(i + 1) == "(rendering)") { v = $i; sub("ms", "", v); rt += v }
        }
      }
      END { print it + 0, rt + 0, n + 0 }' "$work"/err)
    [ "$(grep -c '(interpretation)' "$work"/err)" -ge "$pages" ] || {
      echo "mupdf_bench: $variant serial $path: no per-page timings" >&2
      exit 1
    }
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$dpi" "$set" "$mode" "$rep" \
    "$variant" "$path" "$pages" $((end - start)) "$interp" "$render" >>"$records"
}

printf 'dpi\tset\tmode\trep\tvariant\tfile\tpages\twall_ns\tinterp_ms\trender_ms\n' >"$records"
for dpi in $dpis; do
  for set in $sets; do
    for rep in $(seq "$reps"); do
      for mode in $modes; do
        for variant in stock port; do
          while read -r s path pages spec; do
            [ "$s" = "$set" ] || continue
            run "$dpi" "$set" "$mode" "$rep" "$variant" "$path" "$pages" "$spec"
          done <"$work"/corpus
        done
      done
      echo "mupdf_bench: ${dpi} dpi $set rep $rep done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    done
  done
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
budget_said="${port_budget:-4194304} bytes"
[ -n "$port_budget" ] || budget_said+=" (ftpool's default)"

{
  echo "mupdf_bench: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores," \
    "load average $load_start at the start, $load_end at the end;" \
    "$reps reps, stock and port interleaved;" \
    "the port's glyph cache budget $budget_said"
  echo
  plot_args=()
  [ "$plot" = - ] || plot_args=(--plot "$plot")
  /usr/bin/python3 examples/mupdf/bench_plot.py "$records" ${plot_args[@]+"${plot_args[@]}"}
} | tee "$out"/bench.md
echo "mupdf_bench: tables in ${out#"$root"/}/bench.md, records in ${records#"$root"/}$(
  [ "$plot" = - ] || echo ", plot in ${plot#"$root"/}")" >&2
