#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds ftpool's static library (the CMake build, position-independent
# objects) for the Pillow port to link into its extension, in
# build/pillow/ftpool, rebuilding what changed. Prints the folder that holds
# libftpool.a and nothing else, so that the linker finds the static one.
# Usage: examples/pillow/ftpool_lib.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
out=$root/build/pillow/ftpool
scripts/setup.sh --only cmake make gcc libfreetype-dev >&2

cmake -S "$root" -B "$out"/cmake -DCMAKE_BUILD_TYPE=Release >"$out".log 2>&1 &&
  cmake --build "$out"/cmake --target ftpool_static -j "$(nproc)" \
    >>"$out".log 2>&1 || {
  cat "$out".log >&2
  echo "pillow_ftpool_lib: FAIL" >&2
  exit 1
}
mkdir -p "$out"/lib
cp -p "$out"/cmake/libftpool.a "$out"/lib/
echo "$out/lib"
