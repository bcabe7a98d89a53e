#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per operation at one thread, per variant, counted by callgrind:
# deterministic, unlike wall time on a shared machine. Each count is the
# difference between runs of 2N and N operations, so setup cancels out.
# Usage: bench/instructions.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
bazel build -c opt //bench:op_cost >/dev/null 2>&1
bin=bazel-bin/bench/op_cost

count() { # variant workload font n -> instructions
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

printf '| workload | font | per_thread | shared_mutex | raw | naive | per_thread / raw |\n'
printf '| --- | --- | --- | --- | --- | --- | --- |\n'
while read -r workload font n; do
  row="| $workload | $font |"
  raw=0
  pt=0
  for variant in per_thread shared_mutex raw naive; do
    a=$(count "$variant" "$workload" "$font" "$n")
    b=$(count "$variant" "$workload" "$font" $((2 * n)))
    per_op=$(( (b - a) / n ))
    row="$row $per_op |"
    [ "$variant" = raw ] && raw=$per_op
    [ "$variant" = per_thread ] && pt=$per_op
  done
  ratio=$(awk -v a="$pt" -v b="$raw" 'BEGIN { printf "%.4f", a / b }')
  echo "$row $ratio |"
done <<'LIST'
mem_open_close dejavu 50
mem_open_close noto_cjk 5
file_open_close dejavu 50
file_open_close noto_cjk 5
open_render_close dejavu 20
render_only dejavu 20
get_library dejavu 20000
LIST

# Shared fonts (issue 12): one font, acquired, rendered (or not) and given
# back; raw renders on a private face. font_acquire's per_thread column
# against get_library's is the cost of finding a warm instance.
echo
printf '| workload | per_thread | shared_mutex | global_mutex | raw | per_thread / raw |\n'
printf '| --- | --- | --- | --- | --- | --- |\n'
for workload in shared_font_render font_acquire; do
  row="| $workload |"
  raw=0
  pt=0
  variants=(per_thread shared_mutex global_mutex raw)
  n=20
  if [ "$workload" = font_acquire ]; then
    variants=(per_thread shared_mutex global_mutex) # raw has nothing to do
    n=20000
  fi
  for variant in "${variants[@]}"; do
    a=$(count "$variant" "$workload" dejavu "$n")
    b=$(count "$variant" "$workload" dejavu $((2 * n)))
    per_op=$(( (b - a) / n ))
    row="$row $per_op |"
    [ "$variant" = raw ] && raw=$per_op
    [ "$variant" = per_thread ] && pt=$per_op
  done
  if [ "$raw" -eq 0 ]; then
    echo "$row - | - |"
  else
    ratio=$(awk -v a="$pt" -v b="$raw" 'BEGIN { printf "%.4f", a / b }')
    echo "$row $ratio |"
  fi
done
