#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Model-checks the context protocol (docs/design.pml), its fork() recovery
# (docs/fork.pml), a shared font's instance lifetime (docs/font.pml) and the
# glyph cache's reclamation (docs/glyph.pml) with spin: each model must hold
# in every state (exhaustive search; fork.pml at three sets of bounds,
# glyph.pml at four), each negative control, a mutation of one step, must
# make spin break the assertion named below, and each probe of fork.pml and
# glyph.pml must be reached (the model is not vacuous).
#
# glyph.pml: readers (contexts) that hold an outer font and acquire and
# give back an inner one under it; a lookup under an acquire counts it
# (its looked_up flag, the context's count) and pins the epoch if the
# context is not pinned (a load, then a store: any step of another thread
# between), walks a chain of atomic links, and what it found is read until
# that acquire's give-back or the thread's next quiescent point; the last
# give-back of a counted acquire unpins when the count reaches 0, a
# quiescent point unpins and clears the flags and the count, and the next
# lookup pins again; misses that publish a copy by CAS after searching the
# chain, and search again after a failed CAS; one evictor at a time (the
# token) that unlinks any entry (the head by CAS, an inner one by a store),
# retires it with fetch_add(epoch) + 1 and frees what is older than every
# pin; an unpin that asks for a reclaim, served by the token's holder when
# it gives the token back; thread exit (its give-backs) and a fork whose
# child clears the gone threads' pins; ftpool_destroy. It checks that no
# freed entry is ever read, that a chain holds exactly its linked entries
# with no two equal, that once every thread has ended nothing retired is
# left (in a fork child, after the survivor's next reclaim, unless a gone
# evictor keeps the token), and that destroy frees nothing twice. Its
# controls free at once, pin after the walk, free one epoch too new, keep
# gone threads' pins, publish without the re-check, bump the epoch before
# the unlink, unlink a head by a store, leave the context marked pinned at
# a quiescent point, unpin at every counted give-back whatever the count,
# and two are the code before da0aeaf: a reclaim that gives up when the
# token is taken, and frees before unlisting.
#
# Installs spin if missing. About 5 min and 1.1 GiB on 2 cores.
# Usage: scripts/model_check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh spin libc6-dev

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The negative controls (see the top of each model), each with the
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

# fork.pml's: ALIVE(t) is st[t] == LIVE (1) or LIVES_ON (4).
alive_of() { echo "((st[($1-1)]==1)||(st[($1-1)]==4))"; }
two_holders="((holder[w]==0)|| !($(alive_of 'holder[w]')))"
fork_stuck="((quar[c]||(mail[c]==0))||((holder[c]!=0)&&$(alive_of 'holder[c]')))"
fork_lost="(quar[c]||((((mail[c]!=0)&&(holder[c]!=0))&&$(alive_of 'holder[c]'))&&found))"
declare -A fork_expect=(
  [LAZY_RECOVERY]=$two_holders
  [TLS_TOKENS]=$fork_stuck
  [LOCAL_DRAIN]=$fork_lost
  [EXCHANGE_NOT_BUSY]=$fork_lost
  [UNSTAMP_EARLY]=$two_holders
  [KEEP_DRAINING]=$fork_lost
  [NO_QUARANTINE]='(busy[c]==0)' # a half-edited library used again
  [HINT_AFTER_WALK]=$fork_stuck
)
fork_controls=(
  LAZY_RECOVERY TLS_TOKENS LOCAL_DRAIN EXCHANGE_NOT_BUSY UNSTAMP_EARLY
  KEEP_DRAINING NO_QUARANTINE HINT_AFTER_WALK
)
fork_probes=(1 2 3 4 5 6 7)

# font.pml's: a released font's record neither freed nor waiting for the
# destroyer (before ftpool_destroy).
font_lost='((( !(font_freed)|| !(slot[c]))||(rec[c]==3))||((holder[c]==1)&&((mail[c]&2)||(gone[c]&&uses[c]))))'
declare -A font_expect=(
  [EVICT_IN_USE]=' !(uses[c])'      # an acquired instance closed
  [CLOSE_IN_RELEASER]='(busy[i]<=1)' # the releaser closes inside the owner's edit
  [SKIP_FREE_CONTEXTS]=$font_lost
  [GONE_IGNORES_USES]=' !(uses[c])'
  [EXIT_KEEPS_ACQUIRED]=$font_lost
  [MAIL_READS_FONT]=' !(font_freed)' # the font struct read after its free
  [FACE_NO_BLOB_REF]=' !(blob_freed)' # an open face's bytes freed
  [DEAD_TWICE]='(font_frees==0)'     # the font freed twice
  [GIVE_BACK_READS_FACE]='( !(slot[i])||(rec[i]==2))' # a closed face read
)
font_controls=(
  EVICT_IN_USE CLOSE_IN_RELEASER SKIP_FREE_CONTEXTS GONE_IGNORES_USES
  EXIT_KEEPS_ACQUIRED MAIL_READS_FONT FACE_NO_BLOB_REF DEAD_TWICE
  GIVE_BACK_READS_FACE
)
# fork.pml's bounds: threads before the first fork, threads born in a child,
# faces (at most 2 forks in all). Each set is searched exhaustively.
fork_bounds=("-DNP=2 -DNK=1 -DNF=2" "-DNP=2 -DNK=2 -DNF=1" "-DNP=3 -DNK=1 -DNF=1")

# glyph.pml's: a freed entry read (READ, at every dereference); two equal
# entries linked in the chain, or a linked entry missing from it (CHAIN_OK);
# a retired entry never freed after every thread ended or is gone, with the
# token free (the end check); an entry freed twice (ftpool_destroy's).
glyph_read='(es[gr]!=5)'
declare -A glyph_expect=(
  [FREE_AT_ONCE]=$glyph_read
  [PIN_AFTER_READ]=$glyph_read
  [OFF_BY_ONE]=$glyph_read
  [NO_FORGET]='(stuck||(es[t]!=4))'
  [NO_RECHECK]=' !((gseen&(1<<key[(gc-1)])))'
  [EPOCH_FIRST]=$glyph_read
  [HEAD_STORE]='((es[gc]!=2)||(gvis&(1<<gc)))' # a linked entry not in the chain
  [NO_REQUEST]='(stuck||(es[t]!=4))'
  [FREE_BEFORE_UNLIST]='(es[t]!=5)' # ftpool_destroy frees an entry again
  [QUIESCENT_STAYS_PINNED]=$glyph_read # a lookup after it walks unpinned
  [UNPIN_PER_GIVEBACK]=$glyph_read     # the outer font's glyph, freed
)
glyph_controls=(
  FREE_AT_ONCE PIN_AFTER_READ OFF_BY_ONE NO_FORGET NO_RECHECK EPOCH_FIRST
  HEAD_STORE NO_REQUEST FREE_BEFORE_UNLIST QUIESCENT_STAYS_PINNED
  UNPIN_PER_GIVEBACK
)
# glyph.pml's bounds: two threads that may make any call (nested fonts and
# quiescent points included: the model's defaults); a reader, a reader
# that may give its font back, and a thread that may make any call; two
# misses on the same glyph and a thread that may make any call; a reader
# that nests an inner font in its outer one and passes quiescent points,
# with six calls (hits, acquires, give-backs, quiescent points), and a
# reader that evicts up to twice. Each set is searched exhaustively.
glyph_bounds=(
  ""
  "-DNT=3 -DMENU0=HIT -DOPS0=1 -DMENU1=HIT+GIVE -DOPS1=2"
  "-DNT=3 -DMENU0=MISS -DOPS0=1 -DMENU1=MISS -DOPS1=1"
  "-DMENU0=HIT+ACQ+GIVE+QUIESCENT -DOPS0=6 -DMENU1=HIT+EVICT -DOPS1=3"
)
glyph_probes=(1 2 3 4 5 6 7 8 9 10 11 12 13)
declare -A glyph_probe_bounds=([10]=${glyph_bounds[1]}) # two threads gone

# build MODEL DIR OPT [spin -D flags...]: generates and compiles the verifier
# for docs/MODEL in DIR with gcc -OOPT, or, for -O0, with clang if there is
# one (it compiles fork.pml's large pan.c three times as fast). COLLAPSE
# compresses each stored state without loss, so the search stays
# exhaustive; MEMLIM makes pan stop (and this script fail) rather than
# exceed 2 GiB.
build() {
  local model=$1 dir=$2 opt=$3 cc=gcc
  shift 3
  [ "$opt" = 0 ] && command -v clang >/dev/null && cc=clang
  mkdir -p "$dir"
  cp "docs/$model" "$dir/$model"
  (cd "$dir" && spin -a "$@" "$model" >spin.log 2>&1) || {
    cat "$dir/spin.log" >&2
    return 1
  }
  "$cc" -w "-O$opt" -DSAFETY -DCOLLAPSE -DMEMLIM=2048 -o "$dir/pan" "$dir/pan.c"
}

field() { # field FILE REGEX: the first match of REGEX in FILE, or "?"
  grep -m1 -oE "$2" "$1" || echo "?"
}

failures=0

# holds NAME TITLE MODEL OPT [spin -D flags...]: an exhaustive search finds
# no error.
holds() {
  local name=$1 title=$2 model=$3 opt=$4
  shift 4
  echo "=== $title: exhaustive search"
  local dir=$work/$name
  build "$model" "$dir" "$opt" "$@"
  local start tenths out=$dir/pan.out
  start=$(date +%s%N)
  (cd "$dir" && timeout 300 ./pan -m100000 >pan.out 2>&1) || true
  tenths=$((($(date +%s%N) - start) / 100000000))
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
}

# caught NAME MODEL OPT EXPECTED [spin -D flags...]: spin reports the
# violation of an assertion whose text, as pan prints it, starts with
# EXPECTED.
caught() {
  local name=$1 model=$2 opt=$3 expected=$4
  shift 4
  local dir=$work/$name
  build "$model" "$dir" "$opt" "$@"
  (cd "$dir" && timeout 120 ./pan -m100000 >pan.out 2>&1) || true
  local out=$dir/pan.out violation steps
  violation=$(grep -m1 '^pan:1:' "$out" | sed 's/^pan:1: //' || true)
  if grep -qE "errors: [1-9]" "$out" && [ -f "$dir/$model.trail" ] &&
    [[ "$violation" == "assertion violated $expected"* ]]; then
    steps=$( (cd "$dir" && spin -t "$@" "$model" 2>&1) |
      grep -m1 -oE 'trail ends after [0-9]+ steps' | grep -oE '[0-9]+' || echo "?")
    echo "caught: $violation; trail of $steps steps"
  else
    echo "FAILED: $name did not break $expected"
    tail -n 30 "$out"
    failures=$((failures + 1))
  fi
}

holds model "the model" design.pml 2
for control in "${controls[@]}"; do
  echo "=== negative control -D$control: spin must report an error"
  caught "$control" design.pml 2 "${expect[$control]} " "-D$control"
done

# fork.pml's verifier is a large pan.c (2 MB with its parts): -O0 compiles
# it in seconds, where -O2 takes ten times as long to save a third of a
# short search.
i=0
for bounds in "${fork_bounds[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # the bounds are separate flags
  holds "fork$i" "the fork model, $bounds" fork.pml 0 $bounds
done
for control in "${fork_controls[@]}"; do
  echo "=== fork negative control -D$control: spin must report an error"
  caught "fork_$control" fork.pml 0 "${fork_expect[$control]} " "-D$control"
done
for probe in "${fork_probes[@]}"; do
  echo "=== fork probe -DPROBE=$probe: spin must reach it"
  caught "fork_probe$probe" fork.pml 0 " !((($probe==$probe)&&" "-DPROBE=$probe"
done

holds font "the font model" font.pml 2
for control in "${font_controls[@]}"; do
  echo "=== font negative control -D$control: spin must report an error"
  caught "font_$control" font.pml 2 "${font_expect[$control]} " "-D$control"
done

i=0
for bounds in "${glyph_bounds[@]}"; do
  i=$((i + 1))
  # shellcheck disable=SC2086 # the bounds are separate flags
  holds "glyph$i" "the glyph model, ${bounds:-its defaults}" glyph.pml 2 $bounds
done
# The controls' and probes' searches stop early: -O0 builds in a fifth of
# the time.
for control in "${glyph_controls[@]}"; do
  echo "=== glyph negative control -D$control: spin must report an error"
  caught "glyph_$control" glyph.pml 0 "${glyph_expect[$control]} " "-D$control"
done
for probe in "${glyph_probes[@]}"; do
  echo "=== glyph probe -DPROBE=$probe: spin must reach it"
  # shellcheck disable=SC2086 # the bounds are separate flags
  caught "glyph_probe$probe" glyph.pml 0 " !((($probe==$probe)&&" \
    "-DPROBE=$probe" ${glyph_probe_bounds[$probe]:-}
done

if [ "$failures" -ne 0 ]; then
  echo "model_check: $failures surprise(s)"
  exit 1
fi
echo "model_check: the four models hold; all ${#controls[@]} +" \
  "${#fork_controls[@]} + ${#font_controls[@]} + ${#glyph_controls[@]}" \
  "negative controls caught, all ${#fork_probes[@]} + ${#glyph_probes[@]}" \
  "probes reached"
