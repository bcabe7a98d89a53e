#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The build without Bazel, as a consumer meets it: configures and builds the
# library with CMake, installs it with a prefix given only at install time
# (`cmake --install --prefix`), moves the installed tree elsewhere (both
# ftpool.pc and the CMake package must follow it), builds
# examples/cmake_consumer through find_package and through pkg-config, each
# against the shared and the static library, and runs the four programs. The
# shared library must export exactly the functions ftpool.h declares (no
# internal ftpool__*). Leaves nothing in the source tree; on failure, keeps its
# temporary directory and says where.
# Usage: scripts/cmake_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
start=$SECONDS

scripts/setup.sh --only cmake make pkg-config gcc libc6-dev binutils \
  libfreetype-dev fonts-dejavu-core

work=$(mktemp -d)
trap '[ $? -eq 0 ] || echo "cmake_check: FAILED; files in $work" >&2' EXIT
prefix=$work/prefix
jobs=$(nproc)

# Runs a step with its output in a log, shown only when the step fails.
quiet() {
  "$@" >"$work/log" 2>&1 || {
    cat "$work/log" >&2
    echo "cmake_check: failed: $*" >&2
    return 1
  }
}

# Configured for the default prefix, installed into another, then moved.
quiet cmake -S "$src" -B "$work/build"
quiet cmake --build "$work/build" -j "$jobs"
quiet cmake --install "$work/build" --prefix "$work/installed"
mv "$work/installed" "$prefix"

export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$(find "$prefix" -name ftpool.pc)")
libdir=$(pkg-config --variable=libdir ftpool)
version=$(pkg-config --modversion ftpool)
for dir in "$libdir" "$(pkg-config --variable=includedir ftpool)"; do
  case "$(cd "$dir" && pwd -P)" in
  "$(cd "$prefix" && pwd -P)"/*) ;;
  *)
    echo "cmake_check: ftpool.pc points at $dir, not into $prefix" >&2
    exit 1
    ;;
  esac
done

declared=$(grep -oE '\bftpool_[a-z_]+\(' include/ftpool.h | tr -d '(' | sort -u)
exported=$(nm -D --defined-only "$libdir/libftpool.so" | awk '{print $3}' |
  sort -u)
if [ "$exported" != "$declared" ]; then
  echo "cmake_check: libftpool.so exports other than ftpool.h declares:" >&2
  diff <(echo "$declared") <(echo "$exported") >&2 || true
  exit 1
fi

# $1: the program; $2: whether it must load libftpool.so.
run_consumer() {
  if readelf -d "$1" | grep -q 'NEEDED.*libftpool'; then
    [ "$2" = shared ] || { echo "cmake_check: $1 loads libftpool.so" >&2; exit 1; }
  else
    [ "$2" = static ] || { echo "cmake_check: $1 lacks libftpool.so" >&2; exit 1; }
  fi
  LD_LIBRARY_PATH=$libdir quiet "$1"
}

for link in shared static; do
  static=OFF
  [ $link = shared ] || static=ON
  dir=$work/find_package-$link
  quiet cmake -S examples/cmake_consumer -B "$dir" \
    -DCMAKE_PREFIX_PATH="$prefix" -DFTPOOL_USE_STATIC_LIBS=$static
  quiet cmake --build "$dir"
  run_consumer "$dir/consumer" $link

  dir=$work/pkg-config-$link
  mkdir "$dir"
  quiet make -f "$src/examples/cmake_consumer/Makefile" -C "$dir" LINK=$link
  run_consumer "$dir/consumer" $link
done

rm -rf "$work"
echo "cmake_check: ok: ftpool $version, static and shared," \
  "$(wc -l <<<"$exported") symbols exported, 4 consumers built and run" \
  "(find_package, pkg-config; shared, static) from a moved install in" \
  "$((SECONDS - start)) s"
