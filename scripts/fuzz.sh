#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Fuzzes ftpool with hostile fonts: builds test/fuzz/open_face_fuzzer.c and
# lib/*.c with clang's libFuzzer, AddressSanitizer and UBSan (not with
# Bazel), seeds a corpus from the system fonts and test/fuzz/regressions/,
# and runs it.
#
# Usage:
#   scripts/fuzz.sh                  # the bounded CI run (about 1-2 minutes)
#   scripts/fuzz.sh --runs N         # exactly N executions, one process
#   scripts/fuzz.sh --time SECONDS   # the long run: 2 workers for SECONDS,
#                                    # e.g. scripts/fuzz.sh --time 600
#   scripts/fuzz.sh ... -- FLAGS     # extra libFuzzer flags, which win over
#                                    # the defaults (e.g. -- -max_len=1048576)
#
# Everything goes under build/fuzz/: the binary, corpus/ (the seeds, and what
# libFuzzer adds to them; kept between runs), artifacts/ (the inputs that
# failed) and logs/. It prints one summary line, "fuzz: N executions, C
# crashes", and exits non-zero if libFuzzer found a crash, leak, timeout or
# out-of-memory: copy the artifact it names into test/fuzz/regressions/
# (named after what it caught), where //test/fuzz:fuzz_regression_test
# replays it on every `bazel test`.
#
# Installs clang-14 and libclang-rt-14-dev (and FreeType's headers, DejaVu)
# with apt (scripts/setup.sh) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# The CI default: 100000 executions; about 75 s on 2 cores from a fresh
# corpus (test/fuzz/regressions/README.md has the measurements).
runs=100000
seconds=""
extra=()
usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
while [ $# -gt 0 ]; do
  case "$1" in
  --runs)
    [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage
    runs=$2 seconds=""
    shift 2
    ;;
  --time)
    [ $# -ge 2 ] && [[ "$2" =~ ^[0-9]+$ ]] || usage
    seconds=$2
    shift 2
    ;;
  --)
    shift
    extra=("$@")
    break
    ;;
  -h | --help) usage ;;
  *) usage ;;
  esac
done

scripts/setup.sh clang-14 libclang-rt-14-dev pkg-config

# --- Build. ---------------------------------------------------------------
out=$root/build/fuzz
bin=$out/open_face_fuzzer
mkdir -p "$out/obj" "$out/corpus" "$out/artifacts" "$out/logs"
cc=clang-14
read -r -a ft_cflags <<<"$(pkg-config --cflags freetype2)"
common=(-fsanitize=address,undefined -fno-sanitize-recover=all -g -O1
  -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Iinclude "${ft_cflags[@]}")
echo "fuzz: building $bin" >&2
objects=()
for src in lib/*.c; do
  obj=$out/obj/$(basename "$src" .c).o
  # The library as the fuzzer sees it: instrumented for coverage too.
  "$cc" "${common[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  objects+=("$obj")
done
"$cc" "${common[@]}" -Werror -fsanitize=fuzzer -DFTPOOL_FUZZ_EXTRA_COUNTERS \
  test/fuzz/open_face_fuzzer.c "${objects[@]}" -lfreetype -pthread -o "$bin"

# --- Seed corpus: system fonts up to 1 MiB, and every regression. ---------
seed_limit=$((1 << 20))
seeds=0
while IFS= read -r -d '' font; do
  name=system-$(echo "${font#/usr/share/fonts/}" | tr '/' '_')
  cp -f "$font" "$out/corpus/$name"
  seeds=$((seeds + 1))
done < <(find /usr/share/fonts -type f -size -$((seed_limit + 1))c -print0)
for input in test/fuzz/regressions/*; do
  [ -f "$input" ] && [ "$(basename "$input")" != README.md ] || continue
  cp -f "$input" "$out/corpus/regression-$(basename "$input")"
  seeds=$((seeds + 1))
done
if [ "$seeds" -eq 0 ]; then
  echo "fuzz: no seed inputs (no fonts under /usr/share/fonts?)" >&2
  exit 1
fi
echo "fuzz: corpus $out/corpus: $seeds seeds," \
  "$(find "$out/corpus" -type f | wc -l) inputs in all" >&2

# --- Run. -----------------------------------------------------------------
# -max_len: the seeds are longer (DejaVu is 250-760 KiB) and are cut there,
# which keeps them as truncated fonts; the LyX fonts (10-36 KiB) fit whole.
# Mutating short inputs is what finds most; -- -max_len=N to change it.
# -entropic_scale_per_exec_time: some inputs make FreeType take 0.2-0.5 s
# (huge or intricate glyphs); without it they came to dominate, and a run
# did 200 executions a second instead of 1100.
flags=(-max_len=65536 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
  -entropic_scale_per_exec_time=1 -artifact_prefix="$out/artifacts/")
before=$(find "$out/artifacts" -type f -printf '%f\n' | sort)
rm -f "$out"/logs/*.log
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
start=$(date +%s)
status=0
if [ -n "$seconds" ]; then
  echo "fuzz: $seconds s with 2 workers; logs in $out/logs/" >&2
  # -jobs writes each job's output to fuzz-N.log in the current directory
  # and copies it to its own output, which goes to fuzz.log.
  (cd "$out/logs" &&
    "$bin" "${flags[@]}" -max_total_time="$seconds" -jobs=2 -workers=2 \
      "${extra[@]}" "$out/corpus" >"$out/logs/fuzz.log" 2>&1) || status=$?
  logs=("$out"/logs/fuzz-*.log)
  for log in "${logs[@]}"; do
    [ -f "$log" ] || continue
    echo "fuzz: $(basename "$log"):" >&2
    grep -E '^#[0-9]+.*(INITED|DONE)|^Done|ERROR|SUMMARY' "$log" >&2 || true
  done
else
  echo "fuzz: $runs runs; log in $out/logs/fuzz.log" >&2
  "$bin" "${flags[@]}" -runs="$runs" "${extra[@]}" "$out/corpus" \
    >"$out/logs/fuzz.log" 2>&1 || status=$?
  logs=("$out/logs/fuzz.log")
  grep -E '^#[0-9]+.*(INITED|DONE)|^Done' "$out/logs/fuzz.log" >&2 || true
fi
elapsed=$(($(date +%s) - start))

# --- Summary. -------------------------------------------------------------
executions=0
for log in "${logs[@]}"; do
  [ -f "$log" ] || continue
  # The final stats line; a job killed by a crash has none, so fall back on
  # the last "#N" status line it printed.
  n=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" |
    tail -n 1)
  [ -n "$n" ] || n=$(sed -n 's/^#\([0-9][0-9]*\)[[:space:]].*/\1/p' "$log" |
    tail -n 1)
  executions=$((executions + ${n:-0}))
done
found=()
while IFS= read -r name; do
  case "$name" in
  crash-* | leak-* | timeout-* | oom-*) found+=("$out/artifacts/$name") ;;
  esac
done < <(comm -13 <(echo "$before") \
  <(find "$out/artifacts" -type f -printf '%f\n' | sort))
echo "fuzz: $executions executions in $elapsed s, ${#found[@]} crashes" \
  "(corpus: $(find "$out/corpus" -type f | wc -l) inputs)"
if [ ${#found[@]} -gt 0 ] || [ "$status" -ne 0 ]; then
  for artifact in "${found[@]}"; do
    echo "fuzz: FOUND $artifact"
  done
  [ ${#found[@]} -gt 0 ] || echo "fuzz: libFuzzer exited with $status;" \
    "see ${logs[*]}"
  echo "fuzz: reproduce with: $bin ARTIFACT"
  echo "fuzz: then copy the artifact into test/fuzz/regressions/, named" \
    "after what it caught, so fuzz_regression_test replays it"
  exit 1
fi
