#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds the CPython extension examples/python (ftpool_text) with Debian's
# Python and setuptools, out of tree under build/python, and runs its tests.
# Installs the Debian packages it needs if any is missing. Prints one summary
# line. Usage: scripts/python_check.sh   (PYTHON=... for another interpreter;
# it needs setuptools and the development headers)
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
out=$root/build/python
python=${PYTHON:-/usr/bin/python3}

scripts/setup.sh --only python3 python3-dev python3-setuptools gcc \
  libfreetype-dev pkg-config fonts-dejavu-core

rm -rf "$out"
mkdir -p "$out"
log=$out/check.log
fail() {
  cat "$log" >&2
  echo "python_check: FAIL: $1 (log: ${log#"$root"/})"
  exit 1
}

# setup.py build_ext writes only where it is told: no build/ or *.egg-info
# next to setup.py. Bytecode goes under $out too.
start=$SECONDS
(cd examples/python &&
  "$python" setup.py build_ext --build-lib "$out/lib" \
    --build-temp "$out/temp") >"$log" 2>&1 || fail "build"
built=$((SECONDS - start))

start=$SECONDS
(cd examples/python &&
  PYTHONPATH="$out/lib" PYTHONPYCACHEPREFIX="$out/pycache" \
    timeout 600 "$python" -m unittest -v test_ftpool_text test_glyph_cache) \
    >>"$log" 2>&1 ||
  fail "tests"
tested=$((SECONDS - start))

ran=$(sed -n 's/^Ran \([0-9]*\) tests.*/\1/p' "$log")
skipped=$(sed -n 's/^OK (skipped=\([0-9]*\))/\1/p' "$log")
version=$("$python" -c 'import sys; print(sys.version.split()[0])')
echo "python_check: PASS: Python $version, $ran tests (${skipped:-0}" \
  "skipped), build ${built}s, tests ${tested}s"
