#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Checks Pillow builds for the port of Pillow's FreeType layer onto ftpool.
# For each variant (examples/pillow/variant.sh makes it: sources fetched
# through a private apt configuration and cached, Pillow built in place):
#   1. Pillow's own font tests (examples/pillow/tests.sh), whose tallies must
#      be the ones expected below, with no failure;
#   2. examples/pillow/threaded_text.py, 8 threads drawing with shared fonts,
#      every image compared with the single-threaded one; it must pass where
#      the variant says so, and is only reported where it is known to fail;
#      the port's variants run it twice: with the default glyph cache, and
#      with one of 8 KiB (FTPOOL_PILLOW_GLYPH_CACHE=8192), which evicts all
#      the time while other threads read;
#   3. examples/pillow/compare_drawings.py: some 3,300 drawings, boxes and
#      lengths on one thread (every test font, sizes, modes, layouts), which
#      must equal stock Pillow's under the same interpreter byte for byte:
#      the port's with its glyph cache (the default), with one of 4 KiB,
#      and without (FTPOOL_PILLOW_GLYPH_CACHE=off).
# Variants (examples/pillow/variant.sh names them): under Debian's Python
# 3.11, stock-cp311 (Pillow 11.1.0 as released), port-cp311 (the same
# sources with examples/pillow/ftpool-port.patch, per-thread instances of
# shared fonts) and port-lock-cp311 (the port on the shared-mutex backend, a
# lock per font); with --free-threaded the same three under a free-threaded
# CPython 3.13 built here (~25-30 min the first time), where stock Pillow
# shares one FT_Face between threads with no lock, so its threaded test is
# run and reported, not required. Every port variant must give stock's
# tallies and pass the threaded test. Prints the time of each step and the
# check's wall time.
# Usage: examples/pillow/check.sh [--free-threaded]
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
free_threaded=0
case "${1:-}" in
"") ;;
--free-threaded) free_threaded=1 ;;
*)
  echo "usage: $0 [--free-threaded]" >&2
  exit 2
  ;;
esac

began=$SECONDS
mapfile -t fonts < <(examples/pillow/fonts.sh)
failures=()
summaries=()
# Pillow's COLR test font with layers in the foreground colour (the ink):
# made with Debian's fontTools, which 3.13t does not have.
scripts/setup.sh --only python3-fonttools
src=$(examples/pillow/fetch.sh)
foreground_font=$root/build/pillow/colr-foreground.ttf
[ -f "$foreground_font" ] ||
  /usr/bin/python3 examples/pillow/compare_drawings.py --make-foreground-font \
    "$src"/Tests/fonts/BungeeColor-Regular_colr_Windows.ttf "$foreground_font"

# drawings NAME PYTHON DIR OUT [VAR=VALUE...]: compare_drawings.py's dump.
drawings() {
  local name=$1 python=$2 dir=$3 out=$4
  shift 4
  rm -f "$out"
  env "$@" PYTHONPATH="$dir"/src PYTHONPYCACHEPREFIX="$dir"/pycache \
    "$python" examples/pillow/compare_drawings.py --dump "$out" \
    --tests "$src"/Tests/fonts --dejavu "${fonts[0]}" \
    --variable "${fonts[1]}" --foreground-font "$foreground_font" >/dev/null ||
    failures+=("$name: compare_drawings.py --dump failed")
}

# check_variant NAME EXPECTED_TALLY THREADED
#   EXPECTED_TALLY: examples/pillow/tests.sh's total line, "N passed, ..."
#   THREADED: must-pass, or known-to-fail (run and reported only)
check_variant() {
  local name=$1 expected=$2 threaded=$3 python dir backend start tally verdict
  echo "== $name"
  start=$SECONDS
  read -r python dir backend < <(examples/pillow/variant.sh "$name")
  if [ "$backend" = - ]; then
    unset FTPOOL_PILLOW_BACKEND
  else
    export FTPOOL_PILLOW_BACKEND=$backend
  fi
  echo "   ready in $((SECONDS - start))s"
  # A port variant that silently built stock Pillow would pass everything.
  if nm "$dir"/src/PIL/_imagingft.*.so | grep ' T ftpool_font_acquire$' >/dev/null; then
    [ "$backend" != - ] || failures+=("$name: stock Pillow links ftpool")
  else
    [ "$backend" = - ] || failures+=("$name: the port does not link ftpool")
  fi

  start=$SECONDS
  examples/pillow/tests.sh "$python" "$dir" | tee "$dir"/tests.summary || true
  tally=$(sed -n 's/^pillow_tests: //p' "$dir"/tests.summary)
  echo "   Pillow's tests: $tally, in $((SECONDS - start))s" \
    "(log: ${dir#"$root"/}/tests.log)"
  if [ "$tally" != "$expected" ]; then
    failures+=("$name: Pillow's tests gave '$tally', expected '$expected'")
  fi

  start=$SECONDS
  verdict=PASS
  PYTHONPATH="$dir"/src PYTHONPYCACHEPREFIX="$dir"/pycache \
    "$python" examples/pillow/threaded_text.py --dejavu "${fonts[0]}" \
    --variable "${fonts[1]}" --json "$dir"/threaded_text.json || verdict=FAIL
  echo "   threaded test: $verdict ($threaded), in $((SECONDS - start))s"
  if [ "$verdict" = FAIL ] && [ "$threaded" = must-pass ]; then
    failures+=("$name: the threaded test failed")
  fi
  if [ "$backend" != - ]; then
    start=$SECONDS
    local evicting=PASS
    FTPOOL_PILLOW_GLYPH_CACHE=8192 PYTHONPATH="$dir"/src \
      PYTHONPYCACHEPREFIX="$dir"/pycache "$python" \
      examples/pillow/threaded_text.py --dejavu "${fonts[0]}" \
      --variable "${fonts[1]}" --json "$dir/threaded_text-$name-8k.json" ||
      evicting=FAIL
    echo "   threaded test, glyph cache of 8 KiB: $evicting, in $((SECONDS - start))s"
    [ "$evicting" = PASS ] ||
      failures+=("$name: the threaded test failed with a glyph cache of 8 KiB")
    verdict+=" (8 KiB cache: $evicting)"
  fi

  # The same drawings as stock's, with the glyph cache and without.
  start=$SECONDS
  local same stock=stock-${name##*-}
  stock=$root/build/pillow/$stock/drawings-$stock.json
  drawings "$name" "$python" "$dir" "$dir/drawings-$name.json"
  if [ "$backend" = - ]; then
    same="stock's own"
  else
    drawings "$name" "$python" "$dir" "$dir/drawings-$name-4k.json" \
      FTPOOL_PILLOW_GLYPH_CACHE=4096
    drawings "$name" "$python" "$dir" "$dir/drawings-$name-uncached.json" \
      FTPOOL_PILLOW_GLYPH_CACHE=off
    if /usr/bin/python3 examples/pillow/compare_drawings.py --compare "$stock" \
      "$dir/drawings-$name.json" "$dir/drawings-$name-4k.json" \
      "$dir/drawings-$name-uncached.json" >"$dir/drawings-$name.log"; then
      same="same as stock's (cache 4 MiB, 4 KiB, off)"
    else
      same="DIFFER from stock's"
      failures+=("$name: drawings differ from stock's (${dir#"$root"/}/drawings-$name.log)")
    fi
  fi
  echo "   drawings: $same, in $((SECONDS - start))s"
  summaries+=("$name: tests $tally; threaded $verdict; drawings $same")
}

all="296 passed, 0 failed, 2 skipped"
check_variant stock-cp311 "$all" must-pass
check_variant port-cp311 "$all" must-pass
check_variant port-lock-cp311 "$all" must-pass
if [ "$free_threaded" -eq 1 ]; then
  check_variant stock-cp313t "$all" known-to-fail
  check_variant port-cp313t "$all" must-pass
  check_variant port-lock-cp313t "$all" must-pass
fi

echo "== summary (wall time $((SECONDS - began))s)"
printf '   %s\n' "${summaries[@]}"
if [ ${#failures[@]} -gt 0 ]; then
  printf 'pillow_check: FAIL: %s\n' "${failures[@]}"
  exit 1
fi
echo "pillow_check: PASS"
