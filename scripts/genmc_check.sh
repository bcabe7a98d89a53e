#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Proves the memory orders of lib/ under the C11 model (RC11) with GenMC, on
# the code itself: every harness in test/genmc/ (each includes the
# unmodified lib/ sources of one protocol, FreeType and the files it leaves
# out replaced by shims it names) must show no error in any execution;
# then every ordered atomic site of lib/ (scripts/genmc_sites.py: each
# release, acquire, acq_rel and seq_cst call and each fence), weakened alone
# one step (test/genmc/weaken.h; acq_rel to each half), must make a harness
# that checks that site's file (its "Checks:" line) report an error. A control no harness
# catches fails the check: the site needs a harness that can, or is shown
# unnecessary and weakened in lib/. Each site has its row in
# docs/design.md's table ("Every order, proven"), with why it needs its
# order; the check fails when a site has none or a row names no site.
#
# GenMC is built once per machine by scripts/genmc_build.sh (~11 min on 2
# cores, cached outside the clone). Where its source is not found, this
# prints one line saying so and how to enable it, and passes: a user's
# clone has no ../shared. Results: build/genmc/ (a log per run, table.md).
# Usage: scripts/genmc_check.sh [--table] [HARNESS...]
#   --table   print the table's rows as the run measured them, with the
#             why cells of docs/design.md, for pasting there
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

print_table=false
if [ "${1:-}" = --table ]; then
  print_table=true
  shift
fi

genmc=$(scripts/genmc_build.sh | tail -n 1)
case "${PIPESTATUS[0]}" in
0) ;;
3)
  echo "genmc_check: SKIPPED: no GenMC source; to run it, set GENMC_SRC to" \
    "genmc-0.11.0.tar.gz (or put that file in ../shared/tools/ beside" \
    "the clone) and run scripts/genmc_check.sh"
  exit 0
  ;;
*) exit 1 ;;
esac

out=build/genmc
rm -rf "$out"
mkdir -p "$out/logs"
# GenMC leaves its IR in /tmp/__genmc.ll.XXXXXX, a name it fixes: those made
# after this mark are removed at the end.
touch "$out/start"
trap 'find /tmp -maxdepth 1 -name "__genmc.ll.*" -newer "$out/start" -delete' EXIT
cflags=(-I. -Ilib -Iinclude -I/usr/include/freetype2)
if [ $# -gt 0 ]; then
  harnesses=("$@")
else
  harnesses=(test/genmc/*_harness.c)
fi

# One GenMC run: harness [control]; prints "VERDICT EXECUTIONS SECONDS",
# VERDICT ok, error (what GenMC reported) or broken (no verdict: a compile
# error, say). A harness's own options are on its "GenMC options:" line.
run() {
  local harness=$1 control=${2:-} name log options
  name=$(basename "$harness" .c)
  log=$out/logs/$name${control:+-$(echo "$control" | tr ' :' '__')}.log
  options=$(sed -n 's/.*GenMC options: *//p' "$harness" | head -n 1)
  local defines=()
  # GenMC hands its flags to clang through a shell: quoted for it.
  [ -z "$control" ] || defines=("-DFTPOOL_WEAKEN='\"$control\"'")
  # Without -disable-instruction-caching GenMC 0.11 reports a local of a
  # re-run function (carry_out's callback) as freed memory; without
  # -disable-spin-assume it cuts a CAS loop's failed iterations, and with
  # them the re-search after a failed publish.
  # shellcheck disable=SC2086 # options are words
  timeout 600 "$genmc" -disable-instruction-caching -disable-spin-assume \
    $options -- \
    "${cflags[@]}" "${defines[@]}" \
    "$harness" >"$log" 2>&1
  local executions seconds verdict
  executions=$(sed -n 's/^Number of complete executions explored: //p' "$log")
  seconds=$(sed -n 's/^Total wall-clock time: \([0-9.]*\)s$/\1/p' "$log")
  if grep -q '^No errors were detected' "$log"; then
    verdict=ok
  elif grep -qE '^(Error|Assertion violation)' "$log"; then
    verdict=error
  else
    verdict=broken
  fi
  echo "$verdict ${executions:-0} ${seconds:-?} $log"
}

failed=0
declare -A deps
echo "genmc_check: $genmc"
for h in "${harnesses[@]}"; do
  read -r verdict executions seconds log < <(run "$h")
  printf '  %-28s %-6s %8s executions %7s s\n' "$(basename "$h")" "$verdict" \
    "$executions" "$seconds"
  if [ "$verdict" != ok ]; then
    sed -n '/^\(Error\|Assertion violation\)/,$p' "$log" | head -n 60
    [ "$verdict" = broken ] && tail -n 20 "$log"
    failed=1
  fi
  # The lib/ files whose sites it answers for, on its "Checks:" line.
  deps[$h]=$(sed -n 's/.*Checks: *//p' "$h" | head -n 1)
done
[ "$failed" = 0 ] || {
  echo "genmc_check: FAILED: a harness reports an error on the code as it is"
  exit 1
}

# Each control: the harnesses that check its file, in turn, until one
# reports an error. Two at a time.
try_control() {
  local control=$1 key=$2 file=${1%%:*} h verdict executions seconds log
  for h in "${harnesses[@]}"; do
    case " ${deps[$h]} " in *" $file "*) ;; *) continue ;; esac
    read -r verdict executions seconds log < <(run "$h" "$control")
    if [ "$verdict" = error ]; then
      printf '%s\t%s\tcaught\t%s\t%s\t%s\t%s\n' "$control" "$key" \
        "$(basename "$h" .c)" "$executions" "$seconds" \
        "$(grep -E '^(Error|Assertion violation)' "$log" | head -n 1)"
      return
    fi
  done
  printf '%s\t%s\tMISSED\n' "$control" "$key"
}
export -f try_control run
export genmc out
export_deps=$(declare -p deps harnesses cflags)
export export_deps
results=$out/controls.tsv
scripts/genmc_sites.py | (
  if [ $# -gt 0 ]; then
    # Only the sites of the files the named harnesses check.
    files=" $(for h in "${harnesses[@]}"; do echo "${deps[$h]}"; done | tr '\n' ' ') "
    while IFS=$'\t' read -r control key; do
      case "$files" in *" ${control%%:*} "*) printf '%s\t%s\n' "$control" "$key" ;; esac
    done
  else
    cat
  fi
) | xargs -d '\n' -P "$(nproc)" -I{} bash -c \
  'eval "$export_deps"; IFS=$'"'"'\t'"'"' read -r c k <<<"$1"; try_control "$c" "$k"' _ {} \
  >"$results"
sort -t: -k1,1 -k2,2n -o "$results" "$results"

missed=$(grep -c $'\tMISSED' "$results" || true)
caught=$(grep -c $'\tcaught\t' "$results" || true)
awk -F'\t' '{printf "  %-48s %-7s %-22s %8s exec %6s s  %s\n", $1, $3, $4, $5, $6, $7}' "$results"

# The table in docs/design.md: one row a control, keyed without lines.
table_keys() { sed -n 's/^| `\([^`]*\)` | \([a-z0-9_]*\) -> \([a-z_]*\) |.*/\1 \2 \3/p' docs/design.md | sort; }
site_keys() { awk -F'\t' '{split($1, a, " "); print $2, a[2], a[3]}' "$results" | sort; }
documented=ok
if [ $# -eq 0 ]; then
  missing=$(comm -23 <(site_keys) <(table_keys))
  extra=$(comm -13 <(site_keys) <(table_keys))
  if [ -n "$missing$extra" ]; then
    documented=FAILED
    [ -z "$missing" ] || printf 'genmc_check: no row in docs/design.md for:\n%s\n' "$missing"
    [ -z "$extra" ] || printf 'genmc_check: rows in docs/design.md for no site:\n%s\n' "$extra"
  fi
fi

if $print_table; then
  while IFS=$'\t' read -r control key result harness executions seconds _; do
    read -r _ op to <<<"$control"
    why=$(grep -F "| \`$key\` | $op -> $to |" docs/design.md | head -n 1 |
      awk -F' \\| ' '{print $3}')
    printf '| `%s` | %s -> %s | %s | %s | %s | %s |\n' "$key" "$op" "$to" \
      "${why:-?}" "$harness" "$executions" "$seconds"
  done <"$results" | tee "$out/table.md"
fi

echo "genmc_check: ${#harnesses[@]} harnesses without error; $caught controls" \
  "caught, $missed missed; table $documented; $((SECONDS - start)) s"
[ "$missed" = 0 ] && [ "$documented" = ok ]
