#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Meson build, natively: builds ftpool with meson.build and runs the
# GoogleTest suites (meson test); installs it into a staging directory
# (DESTDIR, so its ftpool.pc must be relocatable to be found there) and
# checks the shared library's exports; then builds and runs
# examples/meson_consumer twice: against that install through pkg-config,
# and with ftpool as its subproject (a link to this checkout). The build is
# kept under build/meson for the next run; the rest is temporary.
# Usage: scripts/meson_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
start=$SECONDS
build=$src/build/meson

scripts/setup.sh --only meson ninja-build pkg-config gcc g++ binutils \
  libfreetype-dev libgtest-dev fonts-dejavu-core

work=$(mktemp -d)
trap '[ $? -eq 0 ] && rm -rf "$work" ||
  echo "meson_check: FAILED; files in $work" >&2' EXIT
quiet() {
  "$@" >"$work/log" 2>&1 || {
    cat "$work/log" >&2
    echo "meson_check: failed: $*" >&2
    return 1
  }
}

[ -f "$build/build.ninja" ] || quiet meson setup "$build" .
quiet meson compile -C "$build"
if ! meson test -C "$build" --print-errorlogs >"$work/tests" 2>&1; then
  cat "$work/tests" >&2
  exit 1
fi
suites=$(grep -cE '^ *[0-9]+/[0-9]+ .* OK ' "$work/tests")

quiet meson install -C "$build" --destdir "$work/staged"
pc=$(find "$work/staged" -name ftpool.pc)
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir ftpool)
case "$(cd "$libdir" && pwd -P)" in
"$(cd "$work/staged" && pwd -P)"/*) ;;
*)
  echo "meson_check: $pc points at $libdir, not into the install" >&2
  exit 1
  ;;
esac
declared=$(grep -oE '\bftpool_[a-z_]+\(' include/ftpool.h | tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$libdir/libftpool.so" | awk '{print $3}' |
  sort -u)
if [ "$exported" != "$declared" ]; then
  echo "meson_check: libftpool.so exports other than ftpool.h declares:" >&2
  diff <(echo "$declared") <(echo "$exported") >&2 || true
  exit 1
fi

# The installed ftpool, through pkg-config; no subproject to fall back on.
quiet meson setup "$work/installed" examples/meson_consumer \
  --wrap-mode=nofallback
quiet meson compile -C "$work/installed"
LD_LIBRARY_PATH=$libdir quiet "$work/installed/consumer"

# ftpool as a subproject, found through the same dependency('ftpool').
cp -r examples/meson_consumer "$work/consumer"
mkdir "$work/consumer/subprojects"
ln -s "$src" "$work/consumer/subprojects/ftpool"
quiet meson setup "$work/subproject" "$work/consumer" \
  --force-fallback-for=ftpool
quiet meson compile -C "$work/subproject"
quiet "$work/subproject/consumer"

echo "meson_check: ok: $suites suites passed (meson test); installed with" \
  "a relocatable ftpool.pc, $(wc -l <<<"$exported") symbols exported;" \
  "the consumer built and ran against the install and as a subproject;" \
  "in $((SECONDS - start)) s"
