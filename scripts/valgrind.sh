#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The unit tests under valgrind's memcheck: any invalid read or write, use of
# uninitialised memory, bad free, or byte definitely or indirectly lost fails
# the run. (The stress tests are left out: valgrind runs one thread at a
# time, and they would take an hour.)
# Usage: scripts/valgrind.sh [extra bazel test flags]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh valgrind

memcheck="valgrind --tool=memcheck --error-exitcode=99 --leak-check=full"
memcheck+=" --errors-for-leak-kinds=definite,indirect"
memcheck+=" --show-leak-kinds=definite,indirect --num-callers=30"
# Not fork_test and deadlock_test: their children are copies of the test
# (fork without exec, where the parent's threads leak by design) or re-exec
# /proc/self/exe, which under valgrind is valgrind itself.
bazel test --run_under="$memcheck" --test_output=errors \
  --test_timeout=900 "$@" \
  //test:api_test //test:protocol_test //test:blob_test \
  //test:alloc_failure_test //test:platform_test
