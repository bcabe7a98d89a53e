#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every source, script and build file that git tracks carries an
# SPDX-License-Identifier line in its first three lines (after a shebang):
# fails naming each file without one. Data (fuzz regressions, images), prose
# (*.md) and the Pillow patch (Pillow's licence, examples/pillow/README.md)
# are not sources of ours.
# With --self-test, shows on a scratch repository that the check fails on a
# file without the line and passes once it has one.
# Usage: scripts/spdx_check.sh [--self-test] [REPO]
set -euo pipefail

needs_line() {
  case "$1" in
  *.md | *.png | *.patch | test/fuzz/regressions/* | .gitignore | */.gitignore | \
    .bazelignore | */.bazelignore) return 1 ;;
  *.c | *.h | *.cc | *.hpp | *.sh | *.py | *.bzl | *.pml | *.build | *.cmake | \
    *.in | *.map | *.def | *.bazelrc | .clang-format | BUILD | */BUILD | \
    *.BUILD | WORKSPACE | */WORKSPACE | CMakeLists.txt | */CMakeLists.txt | \
    Makefile | */Makefile | meson_options.txt | .ci/run) return 0 ;;
  esac
  head -c2 "$1" | grep -q '^#!' # any other script
}

check() {
  local repo=$1 missing=0 f
  while IFS= read -r f; do
    [ -f "$repo/$f" ] || continue
    needs_line "$f" || (cd "$repo" && needs_line "$f") || continue
    if ! head -n3 "$repo/$f" | grep -q 'SPDX-License-Identifier: MIT'; then
      echo "spdx: $f has no 'SPDX-License-Identifier: MIT' line at its top" >&2
      missing=$((missing + 1))
    fi
  done < <(git -C "$repo" ls-files)
  [ "$missing" -eq 0 ] || { echo "spdx: $missing files without a licence line" >&2; return 1; }
}

if [ "${1:-}" = --self-test ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  git -C "$scratch" init -q
  printf 'int main(void) { return 0; }\n' >"$scratch/a.c"
  git -C "$scratch" add a.c
  if check "$scratch" 2>/dev/null; then
    echo "spdx self-test: a file without the line passed the check" >&2
    exit 1
  fi
  sed -i '1i /* SPDX-License-Identifier: MIT */' "$scratch/a.c"
  check "$scratch" || { echo "spdx self-test: a file with the line failed" >&2; exit 1; }
  echo "spdx self-test: passed (caught the file without the line)"
  exit 0
fi
repo=${1:-$(cd "$(dirname "$0")/.." && pwd)}
check "$repo"
echo "spdx: every source, script and build file has its licence line"
