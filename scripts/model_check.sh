#!/usr/bin/env bash
# Model-checks the context protocol (docs/design.pml) with spin: the model
# must hold in every state (exhaustive search), and each negative control, a
# mutation of one step of the protocol, must make spin report an error.
# Installs spin if missing. About 1 to 1.5 min and 1.1 GiB on 2 cores.
# Usage: scripts/model_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
model=$PWD/docs/design.pml

scripts/setup.sh spin libc6-dev

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The negative controls (see the top of docs/design.pml), each with the
# assertion it must break, so that a slip in the model (an array index out of
# bounds, say) does not pass for a caught control.
lost='(((mail[c]!=0)&&(holder[c]!=0))&&alive[(holder[c]-1)])'   # a close lost
stuck='((mail[c]==0)||((holder[c]!=0)&&alive[(holder[c]-1)]))' # no live holder
declare -A expect=(
  [RELEASE_STORE]=$lost
  [POST_ALWAYS]=$stuck
  [CLAIM_LOAD_STORE]='(holder[c]==0)' # two holders
  [DRAIN_LOAD_STORE]=$lost
  [LINK_AFTER_POST]=$lost
  [RELEASE_ONCE]=$stuck
  [CLOSE_IN_OWNER]='(busy[o]<=1)' # FT_Done_Face during another edit
  [LATE_ATTACH]=$stuck
  [LATE_FIRST_CALL]=$stuck
)
controls=(
  RELEASE_STORE POST_ALWAYS CLAIM_LOAD_STORE DRAIN_LOAD_STORE
  LINK_AFTER_POST RELEASE_ONCE CLOSE_IN_OWNER LATE_ATTACH LATE_FIRST_CALL
)

# build DIR [spin -D flags...]: generates and compiles the verifier in DIR.
# COLLAPSE compresses each stored state without loss, so the search stays
# exhaustive; MEMLIM makes pan stop (and this script fail) rather than
# exceed 2 GiB.
build() {
  local dir=$1
  shift
  mkdir -p "$dir"
  cp "$model" "$dir/design.pml"
  (cd "$dir" && spin -a "$@" design.pml >spin.log 2>&1) || {
    cat "$dir/spin.log" >&2
    return 1
  }
  gcc -w -O2 -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -o "$dir/pan" "$dir/pan.c"
}

field() { # field FILE REGEX: the first match of REGEX in FILE, or "?"
  grep -m1 -oE "$2" "$1" || echo "?"
}

failures=0

echo "=== the model: exhaustive search"
dir=$work/model
build "$dir"
start=$(date +%s%N)
(cd "$dir" && timeout 300 ./pan -m100000 >pan.out 2>&1) || true
tenths=$((($(date +%s%N) - start) / 100000000))
out=$dir/pan.out
if grep -q "errors: 0" "$out" && grep -q "^Full statespace search" "$out" &&
  ! grep -qE "max search depth too small|out of memory|Search not completed" "$out"; then
  echo "errors: 0"
  echo "states stored:  $(field "$out" '[0-9]+ states, stored' | cut -d' ' -f1)"
  echo "states matched: $(field "$out" '[0-9]+ states, matched' | cut -d' ' -f1)"
  echo "transitions:    $(field "$out" '[0-9]+ transitions' | cut -d' ' -f1)"
  echo "depth reached:  $(field "$out" 'depth reached [0-9]+' | cut -d' ' -f3)"
  echo "memory (MB):    $(grep -m1 'total actual memory usage' "$out" | awk '{print $1}')"
  echo "time:           $((tenths / 10)).$((tenths % 10)) s"
else
  echo "FAILED: the model does not hold (or the search did not complete):"
  cat "$out"
  failures=$((failures + 1))
fi

for control in "${controls[@]}"; do
  echo "=== negative control -D$control: spin must report an error"
  dir=$work/$control
  build "$dir" "-D$control"
  (cd "$dir" && timeout 120 ./pan -m100000 >pan.out 2>&1) || true
  out=$dir/pan.out
  violation=$(grep -m1 '^pan:1:' "$out" | sed 's/^pan:1: //' || true)
  if grep -qE "errors: [1-9]" "$out" && [ -f "$dir/design.pml.trail" ] &&
    [[ "$violation" == "assertion violated ${expect[$control]} "* ]]; then
    steps=$( (cd "$dir" && spin -t "-D$control" design.pml 2>&1) |
      grep -m1 -oE 'trail ends after [0-9]+ steps' | grep -oE '[0-9]+' || echo "?")
    echo "caught: $violation; trail of $steps steps"
  else
    echo "FAILED: -D$control did not break ${expect[$control]}"
    tail -n 30 "$out"
    failures=$((failures + 1))
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "model_check: $failures surprise(s)"
  exit 1
fi
echo "model_check: the model holds; all ${#controls[@]} negative controls caught"
