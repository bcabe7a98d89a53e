#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Uses ftpool the way another Bazel workspace does: builds
# examples/bazel_consumer (local_repository and ftpool_deps()), runs its
# program and its test, then builds and runs
# examples/bazel_consumer/own_freetype, which compiles only if ftpool_deps()
# kept that workspace's own @system_freetype. Each workspace has a Bazel
# server of its own; both are shut down at the end so that none stays
# resident next to the main one on a two-core CI machine.
# Usage: scripts/bazel_consumer_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
start=$SECONDS

consumer=examples/bazel_consumer
own_freetype=$consumer/own_freetype
shutdown() {
  (cd "$consumer" && bazel shutdown) || true
  (cd "$own_freetype" && bazel shutdown) || true
}
trap shutdown EXIT

check() {
  (cd "$consumer" && bazel build //... && bazel run //:render &&
    bazel test //...) &&
    (cd "$own_freetype" && bazel test //...)
}

if check; then
  echo "bazel_consumer_check: ok: build, run and test of the consumer," \
    "own FreeType kept, in $((SECONDS - start)) s"
else
  echo "bazel_consumer_check: FAILED after $((SECONDS - start)) s"
  exit 1
fi
