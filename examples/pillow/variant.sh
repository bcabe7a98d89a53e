#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Pillow builds that the check and the benchmark know, by name: makes
# what the named one needs (its interpreter, Pillow built by that interpreter
# in a folder of its own), reusing what is there, and prints one line:
# "PYTHON DIR BACKEND", the interpreter, the Pillow build folder
# (PYTHONPATH=DIR/src) and the FTPOOL_PILLOW_BACKEND to run it with ("-"
# for stock). Progress goes to stderr.
#   stock-cp311      Pillow 11.1.0 as released, Debian's Python 3.11
#   stock-cp313t     the same under a free-threaded CPython 3.13 built here
#                    (examples/pillow/python313t_build.sh: long the first time)
#   port-cp311       Pillow 11.1.0 with examples/pillow/ftpool-port.patch:
#   port-cp313t      its FreeType layer on ftpool, each thread rendering on
#                    its own instance of a shared font, with no lock
#   port-lock-cp311  the port on ftpool's shared-mutex backend: one face per
#   port-lock-cp313t font behind a lock of its own, the design of Pillow's
#                    later releases (a critical section per font)
# Usage: examples/pillow/variant.sh NAME
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD

case "${1:-}" in
stock-cp311 | stock-cp313t) port=() backend=- ;;
port-cp311 | port-cp313t) port=(--port) backend=per_thread ;;
port-lock-cp311 | port-lock-cp313t) port=(--port) backend=shared_mutex ;;
*)
  echo "usage: $0 {stock,port,port-lock}-{cp311,cp313t}" >&2
  exit 2
  ;;
esac
case "$1" in
*-cp311)
  python=/usr/bin/python3
  scripts/setup.sh --only python3 python3-dev python3-setuptools \
    python3-pytest >&2
  ;;
*-cp313t)
  python=$root/build/python3.13t/install/bin/python3.13t
  examples/pillow/python313t_build.sh >&2
  examples/pillow/python313t_deps.sh >&2
  ;;
esac
# The lock variant runs the port's build.
dir=$root/build/pillow/${1/port-lock-/port-}
examples/pillow/build.sh "$python" "$dir" ${port[@]+"${port[@]}"} >&2
echo "$python $dir $backend"
