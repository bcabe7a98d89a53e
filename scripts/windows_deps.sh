#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cross-builds what the Windows build of ftpool links, for x86_64 Windows
# with Debian's mingw-w64: FreeType from Debian's source package (fetched with
# a private apt configuration, so the machine's own is untouched) and
# GoogleTest from the sources Debian ships in libgtest-dev. Both static,
# installed into build/windows/deps with their pkg-config files; also writes
# the Meson cross file build/windows/cross.ini that uses them. Cached: does
# nothing when they are there (delete build/windows to start over).
# Usage: scripts/windows_deps.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=$PWD/build/windows
deps=$out/deps
start=$SECONDS

scripts/setup.sh --only gcc-mingw-w64-x86-64-posix \
  g++-mingw-w64-x86-64-posix binutils-mingw-w64-x86-64 \
  wine wine64 meson ninja-build cmake pkg-config dpkg-dev xz-utils \
  libgtest-dev fonts-dejavu-core

mkdir -p "$out"
cat >"$out/cross.ini" <<EOF
[binaries]
c = 'x86_64-w64-mingw32-gcc-posix'
cpp = 'x86_64-w64-mingw32-g++-posix'
ar = 'x86_64-w64-mingw32-ar'
strip = 'x86_64-w64-mingw32-strip'
windres = 'x86_64-w64-mingw32-windres'
pkgconfig = 'pkg-config'
exe_wrapper = 'wine'

[properties]
pkg_config_libdir = '$deps/lib/pkgconfig'

[built-in options]
# Executables carry the C and C++ runtimes and winpthreads, so they run
# under wine with no DLL beside them.
c_link_args = ['-static']
cpp_link_args = ['-static']

[host_machine]
system = 'windows'
cpu_family = 'x86_64'
cpu = 'x86_64'
endian = 'little'
EOF

# Runs a step with its output in a log, shown only when the step fails.
log=$out/deps.log
quiet() {
  "$@" >"$log" 2>&1 || {
    cat "$log" >&2
    echo "windows_deps: failed: $*" >&2
    return 1
  }
}

if [ ! -f "$deps/lib/pkgconfig/freetype2.pc" ]; then
  echo "windows_deps: FreeType from Debian's sources" >&2
  apt=$out/apt
  rm -rf "$apt" "$out/freetype"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/parts" \
    "$out/freetype"
  echo "deb-src http://deb.debian.org/debian bookworm main" >"$apt/sources.list"
  o=(-o "Dir::Etc::SourceList=$apt/sources.list"
    -o "Dir::Etc::SourceParts=$apt/parts"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache")
  quiet apt-get "${o[@]}" update
  (cd "$out/freetype" && quiet apt-get "${o[@]}" source --download-only freetype)
  quiet dpkg-source -x "$(ls "$out"/freetype/freetype_*.dsc)" \
    "$out/freetype/src"
  # Only what ftpool's tests need: no compression, PNG, HarfBuzz or Brotli.
  # With CMake: FreeType's meson.build marks a static library's functions
  # dllexport too, and ftpool's DLL would export them.
  quiet cmake -S "$out/freetype/src" -B "$out/freetype/build" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/mingw-w64-x86_64.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$deps" \
    -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_SHARED_LIBS=OFF \
    -DFT_DISABLE_ZLIB=ON -DFT_DISABLE_BZIP2=ON -DFT_DISABLE_PNG=ON \
    -DFT_DISABLE_HARFBUZZ=ON -DFT_DISABLE_BROTLI=ON
  quiet cmake --build "$out/freetype/build"
  quiet cmake --install "$out/freetype/build"
fi

if [ ! -f "$deps/lib/pkgconfig/gtest.pc" ]; then
  echo "windows_deps: GoogleTest from /usr/src/googletest" >&2
  rm -rf "$out/googletest"
  quiet cmake -S /usr/src/googletest -B "$out/googletest" -G Ninja \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/mingw-w64-x86_64.cmake" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$deps" \
    -DCMAKE_INSTALL_LIBDIR=lib -DBUILD_GMOCK=OFF -Dgtest_disable_pthreads=OFF
  quiet cmake --build "$out/googletest"
  quiet cmake --install "$out/googletest"
fi

# wine's first start in a fresh prefix takes a while: do it here, once.
export WINEPREFIX=$out/wineprefix WINEDEBUG=-all
[ -d "$WINEPREFIX" ] || quiet wine cmd /c exit
echo "windows_deps: ok in $((SECONDS - start)) s" >&2
