#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian packages the build and the tests need (with `bench`,
# what the benchmarks need too, and any other package named), if any is
# missing. Safe to run again; does nothing when all are present. The other
# scripts call it with the packages of their own tools; with --only, just
# those (for the checks that build without Bazel).
# Usage: scripts/setup.sh [--only] [bench] [PACKAGE...]
set -euo pipefail

base=(
  bazel-bootstrap bazel-rules-java bazel-platforms
  gcc g++ binutils
  libfreetype-dev libgtest-dev libbenchmark-dev
  fonts-dejavu-core
  libharfbuzz-dev
  python3
)
packages=("${base[@]}")
if [ "${1:-}" = --only ]; then
  packages=()
  shift
fi
for arg in "$@"; do
  case "$arg" in
  # A large CJK collection, where the cost of opening grows with size.
  bench) packages+=(fonts-noto-cjk python3 python3-matplotlib) ;;
  *) packages+=("$arg") ;;
  esac
done

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
