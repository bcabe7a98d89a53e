#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ftpool on other processors, built and tested on amd64: cross-builds it and
# the GoogleTest suites through meson.build with Debian's cross compilers
# and runs every suite of test/meson.build (meson test) under qemu-user, for
# aarch64 (arm64), 32-bit ARM (armhf: 32-bit pointers and size_t, 64-bit
# atomics on a 32-bit CPU) and s390x (big-endian, 64-bit). Installs the
# cross compilers with scripts/setup.sh; FreeType and GoogleTest for each
# come from Debian's packages for that architecture (dpkg learns the
# architecture, so that apt fetches them), unpacked into a sysroot, not
# installed: they are Multi-Arch: same, pinned to the machine's own
# version, and bookworm's security archive no longer carries s390x, so dpkg
# would downgrade the machine's zlib, libssl and more. The emulators are
# trixie's (below). The sysroots, the emulators and a ccache of the
# compiles are kept outside the clone ($FTPOOL_CACHE, default
# ~/.cache/ftpool: cross-ARCH, cross-qemu, ccache), so that CI's fresh
# clone builds in about a minute; the builds themselves are under
# build/cross/ARCH. A line per architecture says how many suites and test
# cases passed, and in how long; a failure prints meson test's log.
# The suites run at their native sizes under --timeout-multiplier 3, except
# stress_test (FTPOOL_STRESS_ROUNDS=1, set below); the tests' C++ is built
# at -O1 without debug information, ftpool itself at -O2.
# Cost on 2 cores shared with other builds (load 4-9), 2026-12-07: 14 min 20
# s from nothing (arm64 359 s, armhf 274 s, s390x 216 s: building is about
# half), 8 min when built already (186, 150, 144 s: the tests alone).
# Usage: scripts/cross_check.sh [ARCH...] (arm64, armhf, s390x; all if none)
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
root=$src/build/cross
cache=${FTPOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ftpool}
# ccache keyed by the preprocessed source and the compiler, with paths made
# relative to the clone, wherever it is.
export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$src CCACHE_MAXSIZE=2G
start=$SECONDS
arches=("$@")
[ ${#arches[@]} -gt 0 ] || arches=(arm64 armhf s390x)

# Debian's architecture name: GNU triplet, qemu-user's program, and Meson's
# cpu_family, cpu and endian.
describe() {
  case "$1" in
  arm64) echo aarch64-linux-gnu aarch64 aarch64 aarch64 little ;;
  armhf) echo arm-linux-gnueabihf arm arm armv7 little ;;
  s390x) echo s390x-linux-gnu s390x s390x s390x big ;;
  *)
    echo "cross_check: unknown architecture $1 (arm64, armhf, s390x)" >&2
    return 1
    ;;
  esac
}
for arch in "${arches[@]}"; do describe "$arch" >/dev/null; done

# The cross compilers (with their own libc, libstdc++ and libatomic under
# the triplet's directory in /usr, which qemu-user takes as the root).
scripts/setup.sh --only gcc-aarch64-linux-gnu g++-aarch64-linux-gnu \
  gcc-arm-linux-gnueabihf g++-arm-linux-gnueabihf \
  gcc-s390x-linux-gnu g++-s390x-linux-gnu \
  meson ninja-build pkg-config fonts-dejavu-core ccache

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
mkdir -p "$root"
log=$root/check.log
quiet() {
  "$@" >"$log" 2>&1 || {
    cat "$log" >&2
    echo "cross_check: failed: $*" >&2
    return 1
  }
}

# qemu-user from trixie (10.0, static binaries), not bookworm's 7.2: a
# process forked from a threaded one aborts in 7.2 when it starts a thread
# ("qemu_plugin_vcpu_init_hook: assertion failed"), and fork_test does that.
# Only the three emulators are unpacked, under build/cross/qemu.
qemu_dir=$cache/cross-qemu
if [ ! -x "$qemu_dir/qemu-s390x" ]; then
  echo "cross_check: qemu-user from trixie into $qemu_dir" >&2
  rm -rf "$qemu_dir" && mkdir -p "$qemu_dir/deb"
  (cd "$qemu_dir/deb" && quiet "$src"/scripts/trixie_apt.sh download qemu-user)
  dpkg-deb --fsys-tarfile "$qemu_dir"/deb/qemu-user_*.deb |
    tar -x -C "$qemu_dir" --strip-components=3 ./usr/bin/qemu-aarch64 \
      ./usr/bin/qemu-arm ./usr/bin/qemu-s390x
  rm -rf "$qemu_dir/deb"
fi

# What each sysroot holds: FreeType with what its pkg-config file requires,
# and GoogleTest (static libraries, built by Debian with the same GCC 12).
packages=(libfreetype6 libfreetype-dev zlib1g zlib1g-dev libpng16-16
  libpng-dev libbrotli1 libbrotli-dev libgtest-dev)

sysroot() {
  local arch=$1 triplet=$2 out=$cache/cross-$1 p link target
  local stamp=$out/sysroot/.packages
  [ "$(cat "$stamp" 2>/dev/null)" = "${packages[*]}" ] && return 0
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    quiet $sudo dpkg --add-architecture "$arch"
  fi
  echo "cross_check: $arch: FreeType and GoogleTest into $out/sysroot" >&2
  rm -rf "$out/debs" "$out/sysroot"
  mkdir -p "$out/debs"
  # As root, apt warns that its _apt user cannot write here: harmless.
  if ! (cd "$out/debs" && apt-get download "${packages[@]/%/:$arch}") \
    >"$log" 2>&1; then
    # No lists for the architecture yet, or older than the archive.
    echo "cross_check: apt-get update, for $arch's package lists" >&2
    quiet $sudo apt-get update
    (cd "$out/debs" && quiet apt-get download "${packages[@]/%/:$arch}")
  fi
  for p in "$out"/debs/*.deb; do
    quiet dpkg-deb -x "$p" "$out/sysroot"
  done
  # A link to an absolute path (libz.so) is meant inside the sysroot.
  find "$out/sysroot" -type l -lname '/*' | while read -r link; do
    target=$(readlink "$link")
    ln -sfn "$out/sysroot$target" "$link"
  done
  rm -rf "$out/debs"
  echo "${packages[*]}" >"$stamp"
}

# The Meson cross file, rewritten only when it changes. The programs find
# the sysroot's libraries through their rpath, and the rest (libc,
# libstdc++) under qemu's -L root.
cross_file() {
  local arch=$1 triplet=$2 qemu=$3 family=$4 cpu=$5 endian=$6
  local out=$root/$1 sys=$cache/cross-$1/sysroot
  local wrapper="'$qemu_dir/qemu-$qemu', '-L', '/usr/$triplet'"
  local dirs=$sys/usr/lib/$triplet:$sys/lib/$triplet
  local link_args="'-Wl,-rpath-link,$dirs', '-Wl,-rpath,$dirs',"
  link_args+=" '-Wl,--disable-new-dtags'"
  local pc="'$sys/usr/lib/$triplet/pkgconfig', '$sys/usr/share/pkgconfig'"
  cat >"$out/cross.ini.new" <<EOF
[binaries]
c = ['ccache', '$triplet-gcc']
cpp = ['ccache', '$triplet-g++']
ar = '$triplet-ar'
strip = '$triplet-strip'
pkgconfig = 'pkg-config'
exe_wrapper = [$wrapper]

[properties]
sys_root = '$sys'
pkg_config_libdir = [$pc]
# test/meson.build: how a suite starts itself again in a child process.
child_exe_wrapper = [$wrapper]

[built-in options]
# To build in half the time: no debug information, and the tests' C++ at
# -O1 (ftpool itself stays at meson.build's -O2).
debug = false
cpp_args = ['-O1']
# An RPATH, not a RUNPATH: it serves libfreetype's own libraries too.
c_link_args = [$link_args]
cpp_link_args = [$link_args]

[host_machine]
system = 'linux'
cpu_family = '$family'
cpu = '$cpu'
endian = '$endian'
EOF
  if cmp -s "$out/cross.ini.new" "$out/cross.ini"; then
    rm "$out/cross.ini.new"
  else
    mv "$out/cross.ini.new" "$out/cross.ini"
    # Meson reads a cross file once, at setup: a changed one starts afresh.
    rm -rf "$out/meson"
  fi
}

# stress_test's 4 rounds of 16 threads take minutes under emulation; one
# round runs every path. The other suites run at their own size.
export FTPOOL_STRESS_ROUNDS=1
failed=()
for arch in "${arches[@]}"; do
  arch_start=$SECONDS
  read -r triplet qemu family cpu endian < <(describe "$arch")
  out=$root/$arch
  build=$out/meson
  mkdir -p "$out"
  sysroot "$arch" "$triplet"
  cross_file "$arch" "$triplet" "$qemu" "$family" "$cpu" "$endian"
  if ! { [ -f "$build/build.ninja" ] ||
    quiet meson setup "$build" . --cross-file "$out/cross.ini"; } ||
    ! quiet meson compile -C "$build"; then
    echo "cross_check: $arch: FAILED to build" >&2
    failed+=("$arch")
    continue
  fi
  tests=$out/tests.log
  status=ok
  meson test -C "$build" --num-processes 2 --timeout-multiplier 3 \
    --print-errorlogs >"$tests" 2>&1 || status=FAILED
  suites=$(sed -n 's/^Ok: *\([0-9]*\).*/\1/p' "$tests")
  total=$(grep -m1 -oE '^ *[0-9]+/[0-9]+ ' "$tests" | cut -d/ -f2 |
    tr -d ' ' || true)
  cases=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) tests\?\.$/\1/p' \
    "$build/meson-logs/testlog.txt" | awk '{n += $1} END {print n + 0}')
  line="$arch ($triplet, $endian-endian): $status: $suites of $total suites,"
  line+=" $cases test cases passed under qemu-$qemu"
  line+=" in $((SECONDS - arch_start)) s"
  if [ "$status" != ok ]; then
    cat "$tests" >&2
    failed+=("$arch")
  fi
  echo "cross_check: $line"
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "cross_check: FAILED on ${failed[*]}; the tests' logs are in" \
    "build/cross/ARCH/meson/meson-logs/testlog.txt" >&2
  exit 1
fi
echo "cross_check: ok: ${arches[*]} in $((SECONDS - start)) s"
