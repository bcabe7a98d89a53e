#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The per-thread backend takes no lock and never waits: no object file of the
# library except the shared-mutex backend's may reference a lock, a condition
# variable, a blocking once, or a sleep. The shared-mutex object must: that
# proves the check sees such references (its negative control).
set -euo pipefail

archive=""
for f in "$@"; do
  case "$f" in *.a) archive="$f" ;; esac
done
[ -n "$archive" ] || { echo "no static archive among: $*" >&2; exit 1; }

blocking='pthread_(mutex|cond|spin|rwlock|barrier|once)_|^sem_|^mtx_|^cnd_|call_once|sched_yield|sleep$|futex'
failed=0
checked=0
for obj in $(ar t "$archive"); do
  refs=$(ar p "$archive" "$obj" > "$TEST_TMPDIR/$obj" && nm -u "$TEST_TMPDIR/$obj" | awk '{print $NF}')
  found=$(grep -E "$blocking" <<<"$refs" || true)
  case "$obj" in
    shared_mutex*)
      if ! grep -q '^pthread_mutex_lock$' <<<"$refs"; then
        echo "FAIL: $obj should reference pthread_mutex_lock (negative control)"
        failed=1
      fi
      ;;
    *)
      checked=$((checked + 1))
      if [ -n "$found" ]; then
        echo "FAIL: $obj references: $found"
        failed=1
      fi
      ;;
  esac
done
[ "$checked" -ge 5 ] || { echo "FAIL: only $checked objects checked"; failed=1; }
echo "$checked objects checked for lock and wait symbols"
exit $failed
