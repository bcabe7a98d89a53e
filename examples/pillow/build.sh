#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds Pillow in place (setup.py build_ext --inplace) in a folder of its
# own: a copy of the sources that examples/pillow/fetch.sh unpacked, built
# by the interpreter given, with FreeType and Raqm required and the other
# optional codecs off, so that the same build comes out whatever else the
# machine has. `import PIL` then works with PYTHONPATH=DIR/src. With --port,
# the copy gets examples/pillow/ftpool-port.patch (Pillow's FreeType layer
# on ftpool) and links ftpool's static library. Reused when DIR already
# holds a build of the same sources, patch and library for the same
# interpreter. Prints one line: the folder and the build time.
# Usage: examples/pillow/build.sh PYTHON DIR [--port]
#   PYTHON: /usr/bin/python3 (Debian's 3.11, with python3-setuptools), or
#           build/python3.13t/install/bin/python3.13t once
#           examples/pillow/python313t_deps.sh gave it setuptools
set -euo pipefail

[ $# -eq 2 ] || [ $# -eq 3 ] && [ "${3:---port}" = --port ] || {
  echo "usage: $0 PYTHON DIR [--port]" >&2
  exit 2
}
port=${3:-}
python=$1
case "$python" in */*) python=$(realpath -s "$python") ;; esac
out=$(mkdir -p "$2" && cd "$2" && pwd)
cd "$(dirname "$0")/../.."
root=$PWD

scripts/setup.sh --only gcc pkg-config libjpeg-dev zlib1g-dev \
  libfreetype-dev libraqm-dev
src=$(examples/pillow/fetch.sh)
patch=$root/examples/pillow/ftpool-port.patch
flags=()
identity=$(sha256sum <"$src"/PKG-INFO)
if [ -n "$port" ]; then
  lib=$(examples/pillow/ftpool_lib.sh)
  # As build_ext's options: CFLAGS in the environment would replace the
  # interpreter's (-O3 and the rest), and the port would be built unoptimised.
  flags=(--include-dirs="$root/include" --library-dirs="$lib")
  identity+=$(cat "$patch" "$lib"/libftpool.a "$root"/examples/pillow/build.sh |
    sha256sum)
fi

soabi=$("$python" -c 'import sysconfig; print(sysconfig.get_config_var("SOABI"))')
stamp=$out/.built-$soabi
if [ -f "$stamp" ] && [ -f "$out"/src/PIL/_imagingft."$soabi".so ] &&
  [ "$(cat "$stamp")" = "$identity" ]; then
  echo "pillow_build: reusing ${out#"$root"/} ($soabi)"
  exit 0
fi

rm -rf "$out"
mkdir -p "$out"
cp -a "$src"/. "$out"/
chmod -R u+w "$out"
if [ -n "$port" ]; then
  patch -d "$out" -p1 --quiet <"$patch"
fi

log=$out/build.log
start=$SECONDS
(cd "$out" && "$python" setup.py build_ext --inplace ${flags[@]+"${flags[@]}"} \
  --enable-freetype --enable-raqm \
  --disable-tiff --disable-lcms --disable-webp --disable-jpeg2000 \
  --disable-imagequant --disable-xcb) >"$log" 2>&1 || {
  tail -40 "$log" >&2
  echo "pillow_build: FAIL (log: ${log#"$root"/})" >&2
  exit 1
}
built=$((SECONDS - start))
(cd "$out" && PYTHONPATH="$out"/src "$python" -c '
from PIL import features
missing = [f for f in ("freetype2", "raqm") if not features.check(f)]
assert not missing, f"built without {missing}"
') || {
  echo "pillow_build: FAIL: FreeType or Raqm missing (log: ${log#"$root"/})" >&2
  exit 1
}
echo "$identity" >"$stamp"
echo "pillow_build: ${out#"$root"/} ($soabi) built in ${built}s"
