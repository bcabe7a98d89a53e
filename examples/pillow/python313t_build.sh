#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds a free-threaded CPython 3.13 (configure --disable-gil) from Debian
# trixie's python3.13 source package, fetched through scripts/trixie_apt.sh,
# into build/python3.13t/ (install/bin/python3.13t). Upstream's sources as
# released (Debian's patches are not applied: they adapt the interpreter to
# Debian's /usr layout), no PGO or LTO. Reused when present: delete the
# folder to rebuild. Writes the times of configure, make and make install to
# build/python3.13t/timing.txt and prints them.
# Usage: examples/pillow/python313t_build.sh [-jN]   (default -j2)
set -euo pipefail

cd "$(dirname "$0")/../.."
root=$PWD
dir=$root/build/python3.13t
python=$dir/install/bin/python3.13t
jobs=${1:--j2}

if [ -x "$python" ] && "$python" -c 'import sys; assert not sys._is_gil_enabled()'; then
  echo "python313t_build: reusing $python ($(tr '\n' ' ' <"$dir"/timing.txt))"
  exit 0
fi

# A compiler, and the headers of the extension modules that the tests use
# (zlib, bz2, lzma, ctypes); the rest (ssl, sqlite, readline, tk...) is not
# needed and configure skips what it does not find.
scripts/setup.sh --only gcc make pkg-config zlib1g-dev libbz2-dev \
  liblzma-dev libffi-dev

rm -rf "$dir"
mkdir -p "$dir"/fetch "$dir"/obj
(cd "$dir"/fetch && "$root"/scripts/trixie_apt.sh source --download-only \
  python3.13)
dsc=$(ls "$dir"/fetch/python3.13_*.dsc)
dpkg-source --skip-patches -x "$dsc" "$dir"/src >"$dir"/unpack.log 2>&1
rm -f "$dir"/python3.13_*.orig.tar.* # the copy dpkg-source leaves beside src

log=$dir/build.log
cd "$dir"/obj
t0=$SECONDS
"$dir"/src/configure --disable-gil --prefix="$dir"/install \
  --without-ensurepip >"$log" 2>&1
t1=$SECONDS
make "$jobs" >>"$log" 2>&1
t2=$SECONDS
make install >>"$log" 2>&1
t3=$SECONDS

# The sources and objects stay, for a debugger; the install alone is enough.
size_install=$(du -sh "$dir"/install | cut -f1)
size_all=$(du -sh "$dir" | cut -f1)
{
  echo "configure $((t1 - t0))s"
  echo "make $jobs $((t2 - t1))s"
  echo "install $((t3 - t2))s"
  echo "disk: install $size_install, with sources and objects $size_all"
} | tee "$dir"/timing.txt
"$python" -VV
"$python" -c 'import sys; assert not sys._is_gil_enabled(), "GIL is on"'
