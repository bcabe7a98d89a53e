#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every absolute path to a system file that the sources under test/, bench/,
# examples/, scripts/ and docs/ name (fonts above all) must be in a Debian
# package that scripts/setup.sh installs for the command that reads it: its
# plain list (what scripts/test.sh installs), the bench list for files only
# the benchmarks name (bench/, scripts/compare.sh, examples/pillow/bench*),
# plus whatever a script asks setup.sh for itself. A package counts when
# installing those lists on a bare bookworm (the essential packages and apt,
# as mmdebstrap --variant=apt makes) would bring it in, as apt resolves it
# from the lists it has (no download). Fails naming each file and the
# package to add.
# The owner comes from `dpkg -S`, which knows installed files only. A named
# file that is absent here fails too, never passes unseen (run
# scripts/setup.sh first, as test.sh does, or find its package with
# `apt-file search PATH` and add it), unless everything that names it
# installs its own packages or is a benchmark: a machine that has not run
# those yet (a fresh one: the first static step, scripts/fresh_check.sh)
# says so and checks it once they have run. Not system files, so not checked:
# /usr/local (the user's own installs) and the machine's own configuration
# (/etc/resolv.conf, /etc/apt/sources.list, /etc/apt/apt.conf).
# With --self-test, shows that the check fails, naming the file and the
# package, on copies of setup.sh without fonts-inter-variable and without
# fonts-noto-cjk. --setup FILE checks against another copy of setup.sh.
# Usage: scripts/packages_check.sh [--self-test] [--setup FILE]
set -euo pipefail

cd "$(dirname "$0")/.."
setup=scripts/setup.sh
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

ignored() {
  case "$1" in
  /usr/local | /usr/local/* | /etc/resolv.conf | /etc/apt/sources.list* | \
    /etc/apt/apt.conf) return 0 ;;
  esac
  return 1
}

bench_only() {
  case "$1" in
  bench/* | scripts/compare.sh | examples/pillow/bench*) return 0 ;;
  esac
  return 1
}

# The packages a script asks setup.sh for itself, as setup.sh's own words
# (its own `--only` lists are on top of the plain list test.sh installed).
own_packages() {
  [ -f "$1" ] || return 0
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" |
    sed -nE 's@^[[:space:]]*("\$root"/)?scripts/setup\.sh([^|&;>]*).*@\2@p' |
    tr ' ' '\n' | grep -vE '^(--only|--list|)$|[$"'\'']' || true
}

# Every package a bare bookworm ends up with after installing these: apt's
# own resolution against an empty dpkg status. Cached per list, in a file
# (callers run it in a subshell).
closure() {
  local key file
  key=$(printf '%s\n' "$@" | sort -u | md5sum | cut -c1-16)
  file=$scratch/closure.$key
  if [ ! -s "$file" ]; then
    : >"$scratch/empty-status"
    # shellcheck disable=SC2046
    apt-get -s -o Dir::State::status="$scratch/empty-status" \
      install --no-install-recommends apt \
      $(dpkg-query -W -f='${Package} ${Essential}\n' | awk '$2 == "yes" { print $1 }') \
      "$@" 2>"$scratch/apt.err" | awk '$1 == "Inst" { print $2 }' | sort -u >"$file" ||
      true
    if [ ! -s "$file" ]; then
      cat "$scratch/apt.err" >&2
      echo "packages_check: apt could not resolve: $*" \
        "(no package lists? sudo apt-get update)" >&2
      exit 2
    fi
  fi
  echo "$file"
}

# Whether every file named asks setup.sh for packages of its own, or is a
# benchmark's.
installs_own() {
  local f
  for f in "$@"; do
    bench_only "$f" && continue
    [ -n "$(own_packages "$f")" ] || return 1
  done
}

check() {
  local setup=$1 failures=0 deferred=0 path file owners owner set ok f
  local -a plain bench
  mapfile -t plain < <(bash "$setup" --list)
  mapfile -t bench < <(bash "$setup" --list bench)

  # path <TAB> file naming it, for every absolute path under the system's
  # directories: preceded by nothing that makes it part of a longer path.
  git ls-files --cached --others --exclude-standard -- test bench examples scripts docs |
    while IFS= read -r f; do
      [ -f "$f" ] || continue
      grep -IoE '(^|[^A-Za-z0-9_.$}/~-])/(usr|etc|bin|sbin|lib|lib64|opt|var|srv)/[A-Za-z0-9_.+@/-]*' "$f" |
        sed -E 's@^[^/]@@; s@[./]+$@@' | sort -u | sed "s|\$|	$f|" || true
    done | sort -u >"$scratch/named"

  # Owners, with /usr merged: dpkg registered some files under /bin, /lib.
  cut -f1 "$scratch/named" | sort -u | while IFS= read -r path; do
    ignored "$path" && continue
    for alias in "$path" "$(echo "$path" | sed -E 's@^/usr/(bin|sbin|lib)/@/\1/@; t; s@^/(bin|sbin|lib)/@/usr/\1/@')" \
      "$(readlink -f "$path" || true)"; do
      owners=$(dpkg -S "$alias" 2>/dev/null | grep -v '^diversion by' |
        sed -n "s@: $alias\$@@p" | tr -d ' ' | tr ',' '\n' | sed 's/:.*//' | sort -u | tr '\n' ' ' || true)
      [ -n "$owners" ] && break
    done
    printf '%s\t%s\n' "$path" "$owners"
  done >"$scratch/owners"

  while IFS=$'\t' read -r path owners; do
    files=$(awk -F'\t' -v p="$path" '$1 == p { print $2 }' "$scratch/named")
    # Named only by scripts that install their own packages (or by
    # benchmarks) and not installed yet: a machine that has not run them
    # (a fresh one) cannot say whose it is; checked where they have run.
    if [ -z "$owners" ] && [ ! -e "$path" ] && installs_own $files; then
      echo "packages_check: $path (named in $(echo $files)) is not installed" \
        "here; what names it installs its own packages: checked where it has run"
      deferred=$((deferred + 1))
      continue
    fi
    if [ -z "$owners" ]; then
      if [ -e "$path" ]; then
        echo "packages_check: $path (named in $(echo $files)) is in no Debian package" >&2
      else
        echo "packages_check: $path (named in $(echo $files)) is absent here, so no" \
          "package can be named for it: run scripts/setup.sh, or find it with" \
          "'apt-file search $path' and add its package to scripts/setup.sh" >&2
      fi
      failures=$((failures + 1))
      continue
    fi
    for file in $files; do
      ok=false
      for set in plain bench own; do
        case $set in
        plain) set=$(closure "${plain[@]}") ;;
        bench) bench_only "$file" || continue
          set=$(closure "${bench[@]}") ;;
        own) mapfile -t own < <(own_packages "$file")
          [ ${#own[@]} -gt 0 ] || continue
          set=$(closure "${plain[@]}" $(bash "$setup" --list "${own[@]}")) ;;
        esac
        for owner in $owners; do
          grep -qxF "$owner" "$set" && ok=true && break
        done
        $ok && break
      done
      $ok && continue
      owner=${owners%% *}
      echo "packages_check: $path (named in $file) is in $owner, which" \
        "scripts/setup.sh does not install: add $owner to its" \
        "$(bench_only "$file" && echo bench || echo plain) list" >&2
      failures=$((failures + 1))
    done
  done <"$scratch/owners"

  local count
  count=$(grep -vc '	$' "$scratch/owners" || true)
  if [ "$failures" -ne 0 ]; then
    echo "packages_check: $failures system files not installed by scripts/setup.sh" >&2
    return 1
  fi
  local more=""
  [ "$deferred" -eq 0 ] || more=" ($deferred more not installed here: not checked)"
  echo "packages_check: the $count system files the sources name come from packages scripts/setup.sh installs$more"
}

if [ "${1:-}" = --setup ]; then
  setup=$2
  shift 2
fi
if [ "${1:-}" = --self-test ]; then
  for package in fonts-inter-variable fonts-noto-cjk; do
    copy=$scratch/setup-without-$package.sh
    sed -E "s/([ (])$package([ )]|\$)/\\1\\2/g" scripts/setup.sh >"$copy"
    if bash "$copy" --list bench | grep -qxF "$package"; then
      echo "packages_check self-test: could not take $package out of setup.sh" >&2
      exit 1
    fi
    if (check "$copy") 2>"$scratch/out" >/dev/null; then
      echo "packages_check self-test: passed without $package in setup.sh" >&2
      exit 1
    fi
    if ! grep -q "is in $package, which scripts/setup.sh does not install" "$scratch/out"; then
      cat "$scratch/out" >&2
      echo "packages_check self-test: the failure did not name $package" >&2
      exit 1
    fi
    echo "packages_check self-test: without $package, caught:"
    grep "is in $package" "$scratch/out" | sed 's/^/  /'
  done
  echo "packages_check self-test: passed"
  exit 0
fi
check "$setup"
