#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Keeps lib/ within C11 and POSIX.1-2008, so that nothing Linux- or
# glibc-only slips in unnoticed: compiles every lib/*.c with GCC and Clang,
# -std=c11 -D_POSIX_C_SOURCE=200809L -pedantic and warnings as errors, with
# no _GNU_SOURCE, _DEFAULT_SOURCE or the like defined anywhere in lib/, then
# checks each object's calls against the list below: C11's and POSIX's
# functions, and the names glibc and the toolchain compile them into.
# A call outside it (gettid, pthread_setname_np, secure_getenv, ...) fails
# the check even where glibc declares it: name it in docs/building.md's
# assumptions, give it a portable or guarded form, then list it here.
# Usage: scripts/posix_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh --only gcc clang binutils libfreetype-dev

allowed=(
  # C11
  fclose fopen fread free malloc memcmp memcpy memset realloc strcmp strlen
  # POSIX.1-2008
  close fstat open pread stat
  pthread_atfork pthread_getspecific pthread_key_create pthread_key_delete
  pthread_mutex_destroy pthread_mutex_init pthread_mutex_lock
  pthread_mutex_trylock pthread_mutex_unlock pthread_mutexattr_destroy
  pthread_mutexattr_init pthread_mutexattr_settype pthread_setcancelstate
  pthread_setspecific
  # errno, _Thread_local and -fPIC as glibc and the compilers implement them,
  # and bcmp, which Clang makes of a memcmp compared with zero
  __errno_location __tls_get_addr _GLOBAL_OFFSET_TABLE_ bcmp
  # stat, fstat, open and pread with 64-bit off_t, ino_t and time_t, as glibc
  # names them under _FILE_OFFSET_BITS=64 (lib/platform_posix.c)
  fstat64 open64 pread64 stat64
)

if grep -nE '_(GNU|DEFAULT|BSD|XOPEN|SVID)_SOURCE' lib/*; then
  echo "posix_check: lib/ asks for more than POSIX" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c11 -D_POSIX_C_SOURCE=200809L -pedantic -Wall -Wextra -Werror
  -O2 -fPIC -Iinclude $(pkg-config --cflags freetype2))
for cc in gcc clang; do
  for source in lib/*.c; do
    "$cc" "${flags[@]}" -c "$source" -o "$work/$cc-$(basename "$source").o"
  done
done

calls=$(nm -u "$work"/*.o | awk 'NF == 2 {print $2}' |
  grep -vE '^(FT_|ftpool_)' | sort -u)
unexpected=$(comm -23 <(echo "$calls") <(printf '%s\n' "${allowed[@]}" | sort))
if [ -n "$unexpected" ]; then
  echo "posix_check: lib/ calls outside C11 and POSIX.1-2008:" $unexpected >&2
  exit 1
fi
echo "posix_check: ok: $(ls lib/*.c | wc -l) files with gcc and clang," \
  "-std=c11 -D_POSIX_C_SOURCE=200809L -pedantic; $(wc -l <<<"$calls")" \
  "libc functions called, all C11 or POSIX"
