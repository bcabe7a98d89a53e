#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need (and, with
# `bench`, what the benchmarks need too), if any is missing. Safe to run
# again; does nothing when all are present.
# Usage: scripts/setup.sh [bench]
set -euo pipefail

packages=(
  bazel-bootstrap bazel-rules-java bazel-platforms
  gcc g++ binutils
  libfreetype-dev libgtest-dev libbenchmark-dev
  fonts-dejavu-core
)
if [ "${1:-}" = bench ]; then
  # A large CJK collection, where the cost of opening grows with size.
  packages+=(fonts-noto-cjk python3 python3-matplotlib)
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "setup: installing ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
if ! $sudo apt-get install -y --no-install-recommends "${missing[@]}"; then
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi
