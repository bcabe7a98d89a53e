#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds GenMC (a model checker for C11 programs under RC11, MPI-SWS,
# GPL-3.0; a test tool, nothing of it is linked into or shipped with ftpool)
# once per machine, into a cache outside the clone, so that a fresh clone
# (CI's) finds it built: $FTPOOL_CACHE (default ~/.cache/ftpool)/genmc-<the
# first 16 digits of the source's sha256>. The source: $GENMC_SRC (a
# tarball, or an unpacked tree), else ../shared/tools/genmc-*.tar.gz beside
# the clone, whose sha256 must be the one ../shared/tools/README.md gives
# (pinned below). About 11 minutes on 2 cores; when the cache holds a
# complete build of that source, it does nothing.
# Prints the path of the genmc binary on its last line; exits 3 when no
# source and no build is found.
# Usage: scripts/genmc_build.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# v0.11.0 (commit b03f01ed), exported with git archive.
pinned=27d56bcbbfd8d90a9864ee6df50409d4e463e2e1423aaf88b3a35743344e5c4f
cache=${FTPOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ftpool}

src=${GENMC_SRC:-}
if [ -z "$src" ]; then
  for f in ../shared/tools/genmc-*.tar.gz; do [ -f "$f" ] && src=$f; done
fi
if [ -n "$src" ] && [ -d "$src" ]; then
  # A tree: keyed by what is in it, not where it is.
  sha=$(cd "$src" && find . -type f -not -path './.git/*' -print0 |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-64)
elif [ -n "$src" ]; then
  [ -f "$src" ] || { echo "genmc_build: no such file: $src" >&2 && exit 1; }
  sha=$(sha256sum "$src" | cut -c1-64)
  if [ -z "${GENMC_SRC:-}" ] && [ "$sha" != "$pinned" ]; then
    echo "genmc_build: $src has sha256 $sha, not $pinned" >&2
    exit 1
  fi
else
  sha=$pinned # no source here: a build of the pinned one may be cached
fi
dir=$cache/genmc-${sha:0:16}
if [ -f "$dir/COMPLETE" ] && [ -x "$dir/genmc" ]; then
  echo "$dir/genmc"
  exit 0
fi
if [ -z "$src" ]; then
  exit 3
fi

# GenMC's build and what its binary calls at run time (clang-14, LLVM 14).
scripts/setup.sh --only autoconf automake make g++ libffi-dev zlib1g-dev \
  libedit-dev llvm-14-dev clang-14 >&2
start=$SECONDS
rm -rf "$dir"
mkdir -p "$dir.tmp"
trap 'rm -rf "$dir.tmp"' EXIT
if [ -d "$src" ]; then
  cp -a "$src/." "$dir.tmp/"
else
  tar xzf "$src" -C "$dir.tmp" --strip-components=1
fi
# The binary keeps its source tree's include/ path: built where it stays.
mv "$dir.tmp" "$dir"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
{
  autoreconf --install
  # v0.11.0 asks for C++23, which bookworm's g++ 12 fails in configure's test
  # though the code builds; without -O2 alone (the default adds -g) the tree
  # is 536 MB and the build 16 minutes.
  ./configure --with-llvm="$(llvm-config-14 --prefix)" \
    ax_cv_cxx_compile_cxx23__std_cpp23=yes CXXFLAGS=-O2
  make -j"$(nproc)"
} >"$dir/build.log" 2>&1 || {
  tail -n 30 "$dir/build.log" >&2
  echo "genmc_build: the build failed; log above" >&2
  exit 1
}
trap - EXIT
echo "$sha $((SECONDS - start)) s" >"$dir/COMPLETE"
echo "genmc_build: built in $((SECONDS - start)) s into $dir" >&2
echo "$dir/genmc"
