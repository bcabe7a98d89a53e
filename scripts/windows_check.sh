#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Windows port, built and tested on Linux: cross-builds ftpool with
# Debian's mingw-w64 (winpthreads) through meson.build, runs the GoogleTest
# suites under wine (meson test), cross-builds it with CMakeLists.txt too,
# checks that both DLLs export exactly the functions ftpool.h declares, and
# runs examples/cmake_consumer against the Meson one. FreeType and
# GoogleTest for Windows come from scripts/windows_deps.sh; everything is
# built under build/windows and kept for the next run.
# Usage: scripts/windows_check.sh [meson test arguments, e.g. a test's name]
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
out=$PWD/build/windows
build=$out/meson

scripts/windows_deps.sh
export WINEPREFIX=$out/wineprefix WINEDEBUG=-all

log=$out/check.log
quiet() {
  "$@" >"$log" 2>&1 || {
    cat "$log" >&2
    echo "windows_check: failed: $*" >&2
    return 1
  }
}

[ -f "$build/build.ninja" ] ||
  quiet meson setup "$build" . --cross-file "$out/cross.ini"
quiet meson compile -C "$build"

# A new prefix, made by whichever wine process comes first, took the first
# suite (api_test, 0.3 s alone) 49-72 s here, and past its 120 s limit in
# CI's clean clone on a busy machine: made here, before any suite's clock.
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  began=$SECONDS
  quiet wine wineboot --init
  wineserver --wait
  echo "windows_check: wine prefix made in $((SECONDS - began)) s"
fi

# wine is slow to start threads and processes, not busy: two suites at once.
tests=$out/tests.log
if ! meson test -C "$build" --num-processes 2 --print-errorlogs "$@" \
  >"$tests" 2>&1; then
  cat "$tests" >&2
  echo "windows_check: meson test failed under wine" >&2
  exit 1
fi
grep -E '^ *[0-9]+/[0-9]+ ' "$tests"
suites=$(grep -cE '^ *[0-9]+/[0-9]+ .* OK ' "$tests")
cases=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\.\r\?$/\1/p' \
  "$build/meson-logs/testlog.txt" | awk '{n += $1} END {print n + 0}')
[ $# -gt 0 ] && exit 0

# The CMake build of the DLL too, against the same FreeType.
cmake_build=$out/cmake
quiet cmake -S . -B "$cmake_build" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/mingw-w64-x86_64.cmake" \
  -DFREETYPE_INCLUDE_DIR_ft2build="$out/deps/include/freetype2" \
  -DFREETYPE_INCLUDE_DIR_freetype2="$out/deps/include/freetype2" \
  -DFREETYPE_LIBRARY="$out/deps/lib/libfreetype.a"
quiet cmake --build "$cmake_build"

dll=$(ls "$build"/libftpool-*.dll)
declared=$(grep -oE '\bftpool_[a-z_]+\(' include/ftpool.h | tr -d '(' | sort -u)
for built in "$dll" "$cmake_build/libftpool.dll"; do
  exported=$(x86_64-w64-mingw32-objdump -p "$built" |
    sed -n '/^\[Ordinal\/Name Pointer\] Table/,/^$/p' |
    sed -n 's/^\s*\[ *[0-9]*\] //p' | sort -u)
  if [ "$exported" != "$declared" ]; then
    echo "windows_check: $built exports other than ftpool.h declares:" >&2
    diff <(echo "$declared") <(echo "$exported") >&2 || true
    exit 1
  fi
done

# The consumer calls FreeType itself: it links the same FreeType build the
# DLL carries inside (a real deployment shares one freetype.dll).
consumer=$out/consumer
rm -rf "$consumer" && mkdir -p "$consumer"
cp "$dll" "$consumer/"
quiet x86_64-w64-mingw32-gcc-posix -std=c11 -Wall -Wextra -Werror -O2 \
  -Iinclude $(PKG_CONFIG_LIBDIR=$out/deps/lib/pkgconfig pkg-config \
  --cflags freetype2) -o "$consumer/consumer.exe" \
  examples/cmake_consumer/consumer.c "$build/libftpool.dll.a" \
  "$out/deps/lib/libfreetype.a" -static -pthread
imports=$(x86_64-w64-mingw32-objdump -p "$consumer/consumer.exe")
if ! grep -q "DLL Name: $(basename "$dll")" <<<"$imports"; then
  echo "windows_check: consumer.exe does not load $(basename "$dll")" >&2
  exit 1
fi
(cd "$consumer" && quiet wine consumer.exe)

echo "windows_check: ok: $suites suites, $cases tests passed under wine;" \
  "the Meson and CMake DLLs export the $(wc -l <<<"$exported") functions of" \
  "ftpool.h; the consumer ran against $(basename "$dll"); in" \
  "$((SECONDS - start)) s"
