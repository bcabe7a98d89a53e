#!/usr/bin/env bash
# Every test, in four builds: plain, AddressSanitizer, ThreadSanitizer and
# UndefinedBehaviorSanitizer. Installs what is missing first.
# Usage: scripts/test.sh [extra bazel test flags]
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh || exit 1

log=$(mktemp)
trap 'rm -f "$log"' EXIT
builds_failed=0
for config in plain asan tsan ubsan; do
  flags=()
  [ "$config" = plain ] || flags=(--config="$config")
  echo "=== bazel test ${flags[*]} //..."
  start=$(date +%s)
  if bazel test "${flags[@]}" "$@" //... 2>&1 | tee -a "$log"; then
    result=passed
  else
    builds_failed=$((builds_failed + 1))
    result=FAILED
  fi
  echo "=== $config: $result in $(($(date +%s) - start)) s"
done
# One line per test target and build, as Bazel's summary prints them.
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log" || true)
failed=$(grep -cE '^//[^ ]+ +(FAILED|TIMEOUT|NO STATUS|FLAKY)' "$log" || true)
echo "tests: $passed passed, $failed failed"
[ "$builds_failed" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
