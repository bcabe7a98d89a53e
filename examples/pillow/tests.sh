#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs Pillow's own font tests, unmodified, on a Pillow build made by
# examples/pillow/build.sh, with the interpreter that built it: the whole of
# Tests/test_imagefont.py, test_imagefontctl.py, test_font_leaks.py,
# test_font_crash.py, and the text cases of test_imagedraw.py (selected with
# -k "text or stroke or font or split_word": the 9 tests that draw or
# measure text). Prints one line per file and a total line
# "pillow_tests: N passed, N failed, N skipped"; exits non-zero when a test
# failed or errored. The full output is in DIR/tests.log.
# Usage: examples/pillow/tests.sh PYTHON DIR
set -euo pipefail

[ $# -eq 2 ] || {
  echo "usage: $0 PYTHON DIR" >&2
  exit 2
}
python=$1
case "$python" in */*) python=$(realpath -s "$python") ;; esac
dir=$(cd "$2" && pwd)
log=$dir/tests.log
: >"$log"

total_passed=0 total_failed=0 total_skipped=0
run() { # pytest arguments: a test file, and what to select in it
  local out rc summary passed failed skipped errors
  set +e
  out=$(cd "$dir" && PYTHONPATH="$dir"/src PYTHONPYCACHEPREFIX="$dir"/pycache \
    timeout 900 "$python" -m pytest -p no:cacheprovider --color=no -q -ra \
    "$@" 2>&1)
  rc=$?
  set -e
  printf '%s\n%s\n' "== $*" "$out" >>"$log"
  summary=$(tail -1 <<<"$out")
  count() { grep -o "[0-9]* $1" <<<"$summary" | cut -d' ' -f1 || true; }
  passed=$(count passed) failed=$(count failed) skipped=$(count skipped)
  errors=$(count error)
  failed=$((${failed:-0} + ${errors:-0}))
  # pytest exits 0 when all passed, 1 when some failed; anything else
  # (interrupted, no tests collected, a crash) counts as a failure.
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
    failed=$((failed + 1))
    summary="exit status $rc: $summary"
  fi
  echo "  $*: $summary"
  total_passed=$((total_passed + ${passed:-0}))
  total_failed=$((total_failed + failed))
  total_skipped=$((total_skipped + ${skipped:-0}))
}

run Tests/test_imagefont.py
run Tests/test_imagefontctl.py
run Tests/test_font_leaks.py
run Tests/test_font_crash.py
run Tests/test_imagedraw.py -k "text or stroke or font or split_word"
echo "pillow_tests: $total_passed passed, $total_failed failed," \
  "$total_skipped skipped"
[ "$total_failed" -eq 0 ]
