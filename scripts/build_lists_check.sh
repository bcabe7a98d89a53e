#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Bazel and CMake glob lib/*.c; Meson cannot, and the Windows DLL's .def
# file names each export. This fails when a list written out by hand has
# drifted from what it lists:
#   - meson.build's sources and lib/*.c;
#   - test/meson.build's suites and the cc_tests of test/BUILD and
#     test/cpp/BUILD (less the Bazel-only ones test/meson.build names), and
#     its support sources and test/support/*.cc;
#   - cmake/ftpool.def and the functions ftpool.h declares.
# Usage: scripts/build_lists_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
status=0

# $1: what; $2: the list as written; $3: what it must equal.
same() {
  if [ "$2" != "$3" ]; then
    echo "build_lists_check: $1 differs (< written, > actual):" >&2
    diff <(echo "$2") <(echo "$3") >&2 || true
    status=1
  fi
}

same "meson.build's sources" \
  "$(grep -oE "'lib/[a-z_0-9]+\.c'" meson.build | tr -d "'" | sort)" \
  "$(ls lib/*.c | sort)"

same "test/meson.build's suites" \
  "$(grep -oE "^  '[a-z_]+_test'|'fork_test'" test/meson.build | tr -d "' " |
    sort -u)" \
  "$(grep -h -A1 '^cc_test(' test/BUILD test/cpp/BUILD |
    sed -n 's/^ *name = "\(.*\)",$/\1/p' |
    grep -vxE 'fork_negative_control_test|race_window_test|loaded_freetype_test' |
    grep -vxE 'glyph_(fork|reclaim)_test|glyph_[a-z_]+_negative_control_test' |
    sort)"

same "test/meson.build's support sources" \
  "$(grep -oE "'support/[a-z_0-9]+\.cc'" test/meson.build | tr -d "'" |
    grep -v test_main | sort)" \
  "$(cd test && ls support/*.cc | grep -v test_main | sort)"

same "cmake/ftpool.def" \
  "$(sed -n 's/^  \(ftpool_[a-z_]*\)$/\1/p' cmake/ftpool.def | sort)" \
  "$(grep -oE '\bftpool_[a-z_]+\(' include/ftpool.h | tr -d '(' | sort -u)"

[ $status -eq 0 ] && echo "build_lists_check: ok: meson.build, test/meson.build" \
  "and cmake/ftpool.def match lib/, the BUILD files and ftpool.h"
exit $status
