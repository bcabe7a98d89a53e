#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What a new user on a fresh Debian bookworm machine meets: a brand-new root
# made by mmdebstrap (--variant=apt: the essential packages and apt, nothing
# else; no mirror argument, so deb.debian.org with bookworm-updates and
# -security, as this machine's sources), a clean clone of HEAD (only what is
# committed), and in it, chrooted as root: scripts/setup.sh, the static
# checks test.sh runs first, the plain Bazel suite (`bazel test //...`) and
# scripts/python_check.sh. A package that setup.sh forgets fails here even
# when every developer's machine has it. Nothing is reused between runs: a
# new root, a new Bazel output base, apt's downloads from scratch.
# Everything it made is unmounted and removed at the end, on failure and on
# Ctrl-C too; it refuses to delete while anything is still mounted below the
# root (the host's /dev is bound in). Needs root (mount, chroot) and apt's
# registry; 3 min 37 s on 2 cores shared with other work, 7 min 26 s under
# heavier load (2026-12-06). The log is build/fresh_check.log.
# Usage: scripts/fresh_check.sh
set -euo pipefail

cd "$(dirname "$0")/.."
repo=$PWD
if [ "$(id -u)" -ne 0 ]; then
  exec sudo "$0" "$@"
fi
scripts/setup.sh --only mmdebstrap

mkdir -p build
log=$repo/build/fresh_check.log
: >"$log"
base=$(mktemp -d "${TMPDIR:-/var/tmp}/ftpool-fresh.XXXXXX")
root=$base/root
mounted=()

# Mount points under $base, deepest first, from this namespace's table.
mounts_below() {
  awk -v b="$base" '$5 == b || index($5, b "/") == 1 { print $5 }' \
    /proc/self/mountinfo | sort -r
}

cleanup() {
  local status=$? pid i m left
  trap - EXIT INT TERM
  # The Bazel server outlives its client: every process whose root is ours
  # was started here, and would keep the mounts busy.
  for i in 1 2; do
    for pid in $(ls /proc | grep -E '^[0-9]+$'); do
      [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$root" ] || continue
      kill "-$([ "$i" = 1 ] && echo TERM || echo KILL)" "$pid" 2>/dev/null || true
    done
    sleep 1
  done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount "${mounted[i]}" 2>/dev/null || umount -l "${mounted[i]}" || true
  done
  # Whatever else got mounted below (by the chroot's own tools): a lazy
  # unmount detaches it at once, so rm cannot reach through it after.
  for m in $(mounts_below); do
    umount "$m" 2>/dev/null || umount -l "$m" || true
  done
  left=$(mounts_below)
  if [ -n "$left" ]; then
    echo "fresh_check: still mounted, $base NOT removed:" $left >&2
    exit 1
  fi
  # --one-file-system: a mount that appeared after the check is skipped,
  # not emptied.
  rm -rf --one-file-system "$base"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start=$SECONDS
# The machine's own apt settings for fetching (proxies, date checks): a
# user's chroot reaches the registry the way the machine does.
aptopts=()
for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
  [ -f "$f" ] && grep -q '^[[:space:]]*Acquire::' "$f" && aptopts+=(--aptopt="$f")
done
echo "fresh_check: mmdebstrap --variant=apt bookworm (log: build/fresh_check.log)"
if ! mmdebstrap --variant=apt "${aptopts[@]}" bookworm "$root" >>"$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "fresh_check: FAIL: mmdebstrap"
  exit 1
fi
echo "fresh_check: root made in $((SECONDS - start)) s"
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
git clone --quiet --no-hardlinks "$repo" "$root/root/ftpool"
echo "fresh_check: cloned $(git -C "$root/root/ftpool" rev-parse --short HEAD)"

mounted+=("$root/proc")
mount -t proc proc "$root/proc"
mounted+=("$root/sys")
mount -t sysfs sysfs "$root/sys"
mounted+=("$root/dev")
mount --bind /dev "$root/dev"

failures=()
# Runs one command inside, as a login of its own would: a clean
# environment, root's home, the clone as working directory.
inside() {
  local name=$1 t=$SECONDS
  shift
  echo "=== $name: $*" >>"$log"
  if chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/bash -c 'cd /root/ftpool && "$@"' bash "$@" >>"$log" 2>&1; then
    echo "fresh_check: $name passed in $((SECONDS - t)) s"
  else
    failures+=("$name")
    tail -n 30 "$log" >&2
    echo "fresh_check: $name FAILED in $((SECONDS - t)) s"
  fi
}
inside setup scripts/setup.sh
inside static bash -c 'scripts/packages_check.sh &&
  scripts/packages_check.sh --self-test && scripts/spdx_check.sh &&
  scripts/spdx_check.sh --self-test'
inside bazel bazel test //...
grep -E '^Executed|^//' "$log" | tail -n 3 || true
inside "bazel shutdown" bazel shutdown
inside python scripts/python_check.sh
grep -E '^python_check' "$log" | tail -n 1 || true

echo "fresh_check: $((SECONDS - start)) s in all"
if [ ${#failures[@]} -ne 0 ]; then
  echo "fresh_check: FAILED: ${failures[*]}"
  exit 1
fi
echo "fresh_check: passed"
