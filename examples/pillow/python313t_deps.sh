#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Gives the free-threaded CPython of examples/pillow/python313t_build.sh
# the pure Python packages that building and testing Pillow need
# (setuptools, pytest and what they import), from Debian trixie's own .deb
# files: downloaded through scripts/trixie_apt.sh, checked to be
# Architecture: all, unpacked with dpkg -x under build/python3.13t/deps
# (nothing is installed into the system) and put on that interpreter's path
# by a .pth file in its own site-packages. Reused when present with the same
# list.
# Usage: examples/pillow/python313t_deps.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
dir=$root/build/python3.13t
python=$dir/install/bin/python3.13t

packages=(
  python3-pytest python3-pluggy python3-iniconfig python3-packaging
  python3-setuptools python3-pkg-resources python3-jaraco.text
  python3-jaraco.functools python3-jaraco.context python3-autocommand
  python3-inflect python3-more-itertools python3-typeguard
  python3-typing-extensions python3-zipp
)

[ -x "$python" ] || {
  echo "python313t_deps: no $python: run examples/pillow/python313t_build.sh" >&2
  exit 1
}
site=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
pth=$site/debian-trixie-deps.pth
deps=$dir/deps
if [ -f "$pth" ] && [ "$(cat "$deps"/packages 2>/dev/null)" = "${packages[*]}" ]; then
  exit 0
fi

rm -rf "$deps" "$dir"/debs
mkdir -p "$deps" "$dir"/debs
(cd "$dir"/debs && "$root"/scripts/trixie_apt.sh download "${packages[@]}" \
  >"$dir"/debs/download.log 2>&1) || {
  cat "$dir"/debs/download.log >&2
  exit 1
}
for deb in "$dir"/debs/*.deb; do
  arch=$(dpkg-deb -f "$deb" Architecture)
  [ "$arch" = all ] || {
    echo "python313t_deps: $deb is not pure Python ($arch)" >&2
    exit 1
  }
  dpkg -x "$deb" "$deps"
done
echo "$deps/usr/lib/python3/dist-packages" >"$pth"
echo "${packages[*]}" >"$deps"/packages
"$python" -c 'import pytest, setuptools
print("python313t_deps: pytest", pytest.__version__, "setuptools", setuptools.__version__)'
