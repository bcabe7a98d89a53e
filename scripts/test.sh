#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every test: the Bazel test suite in four builds (plain, AddressSanitizer,
# ThreadSanitizer against a FreeType built with it too, and
# UndefinedBehaviorSanitizer), then the checks that run outside it: the unit
# tests under valgrind, the protocol's models under spin, the memory orders
# under C11's model with GenMC (skipped, saying so, where its source is not
# found), a bounded fuzz run,
# the ways of embedding ftpool (CMake and pkg-config, Meson, another Bazel
# workspace, a CPython extension), lib/ within POSIX, the hand-written build
# lists, the Windows port under wine, the suites on aarch64, armhf and
# s390x under qemu-user, Pillow ported to ftpool under
# Python 3.11 (examples/pillow/check.sh --free-threaded adds CPython 3.13t,
# whose build takes ~25 min: run by hand, results in docs/pillow.md), and
# MuPDF ported to ftpool (examples/mupdf/check.sh: every page of a corpus
# the same as stock's, and rendered by 4 threads under ThreadSanitizer).
# First, static checks: the system files the sources name come from packages
# setup.sh installs, licence lines. Last, the same set-up and the plain and
# Python suites on a brand-new bookworm root (scripts/fresh_check.sh, root).
# Installs what is missing first; each check installs its own tools.
# About 48 minutes on 2 cores from a clean clone when the machine is quiet
# (44.5 measured with every step but Windows passing; docs/building.md has
# each step's cost; CI has 90). The Bazel builds' compiles, GenMC's build,
# the cross builds' sysroots and the MuPDF and cross compiles (ccache) are
# cached outside the clone.
# Usage: scripts/test.sh [extra bazel test flags]
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1

log=$(mktemp)
trap 'rm -f "$log"' EXIT
failures=()

# Runs one step, timed; a failure is remembered and the next step runs.
step() {
  local name=$1
  shift
  echo "=== $name: $*"
  local start result=passed
  start=$(date +%s)
  "$@" || { result=FAILED && failures+=("$name"); }
  echo "=== $name: $result in $(($(date +%s) - start)) s"
}

# First, in seconds: every system file the sources name comes from a package
# setup.sh installs, every file has its licence line, and each check catches
# what it guards against.
static_checks() {
  scripts/packages_check.sh && scripts/packages_check.sh --self-test &&
    scripts/spdx_check.sh && scripts/spdx_check.sh --self-test
}
step static static_checks

# What the four builds compile is kept outside the clone, keyed by its
# inputs (Bazel's disk cache), so that CI's fresh clone compiles only what
# changed; the tests themselves always run again.
cache=${FTPOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ftpool}
bazel_test() {
  bazel test --disk_cache="$cache/bazel" --cache_test_results=no "$@" //... \
    2>&1 | tee -a "$log"
}
for config in plain asan tsan ubsan; do
  flags=()
  [ "$config" = plain ] || flags=(--config="$config")
  if [ "$config" = tsan ]; then
    # The tsan build links FreeType built with ThreadSanitizer: built on the
    # first run (about 2 minutes), reused after.
    step "freetype tsan" scripts/freetype_tsan.sh
  fi
  step "bazel $config" bazel_test "${flags[@]}" "$@"
done
# One line per test target and build, as Bazel's summary prints them.
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FLAKY)' "$log" || true)
echo "bazel tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || failures+=("bazel summary")

step valgrind scripts/valgrind.sh
step "spin model" scripts/model_check.sh
step genmc scripts/genmc_check.sh
step fuzz scripts/fuzz.sh
step cmake scripts/cmake_check.sh
step "bazel consumer" scripts/bazel_consumer_check.sh
step python scripts/python_check.sh
step posix scripts/posix_check.sh
step "build lists" scripts/build_lists_check.sh
step meson scripts/meson_check.sh
step windows scripts/windows_check.sh
step "other CPUs" scripts/cross_check.sh
step pillow examples/pillow/check.sh
step mupdf examples/mupdf/check.sh
# Last: setup.sh and the suite on a brand-new bookworm root, where nothing a
# developer installed by hand can hide a missing package.
step "fresh machine" scripts/fresh_check.sh

if [ ${#failures[@]} -eq 0 ]; then
  echo "all tests passed"
else
  echo "FAILED: ${failures[*]}"
  exit 1
fi
