/* SPDX-License-Identifier: MIT */
/*
 * The glyph cache's eviction against a publication (lib/glyph_evict.c,
 * lib/glyph_cache.c; the protocol of docs/design.md, "The glyph cache" and
 * "The glyph cache's reclamation", modelled in docs/glyph.pml). The
 * readers are contexts (per_thread.c's oldest_pin walks their pins). At
 * the start (main) one chain holds V, published by context 0, whose
 * acquire is given back; the budget has room for one more entry. Thread 0
 * misses on X, a glyph of V's chain, under an acquire (pin, hit: a walk
 * past V, miss: render, reserve, publish in front of V, or alone once V
 * is gone, by CAS, push on the incoming stack), reads X and gives the
 * acquire back (unpin, and a reclaim or its request). Thread 1 is an
 * evictor (ftpool__glyph_make_room for an entry's bytes, unpinned): it
 * takes the token, takes in what was published (V, and X once pushed),
 * evicts V if X's reservation left no room (at the head by CAS, retried
 * when X is pushed in front, or inside the chain by a store, walking from
 * a head it may not have taken in), retires it, reclaims and gives the
 * token back. Entries' fields are plain. Asserted, as glyph.pml does: X
 * as thread 0 got it is its glyph, not freed; once both threads end
 * nothing retired is left and nothing awaits; every chain holds only
 * entries never retired, each once, no two equal: X at the head, V behind
 * it unless evicted.
 *
 * Checks: glyph_cache.c glyph_cache.h glyph_evict.c
 * GenMC options: --disable-estimation
 */
#include "test/genmc/harness.h"

#include "test/genmc/glyph_common.h"

static struct glyph_key *key;
static FT_UInt glyph_v = 5, glyph_x = 24; /* on one chain */
static size_t need;                       /* an entry's bytes with its key's */
static struct glyph_entry *x;

static void *thread(void *arg) {
  if ((intptr_t)arg == 0) { /* a miss, publishing */
    struct glyph_request req = glyph_request_of(key, glyph_x);
    assert(glyph_lookup(0, &req, &x) == FTPOOL_OK);
    assert(x->value.advance == ADVANCE_OF(glyph_x));
    glyph_give_back(0);
  } else { /* an evictor */
    ftpool__glyph_make_room(&cache, need);
  }
  return NULL;
}

int main(void) {
  key = ftpool__glyph_key_new(&glyph_font);
  need = advance_entry_bytes() + key->bytes;
  glyph_setup(2 * need, 2);
  struct glyph_request req_v = glyph_request_of(key, glyph_v);
  struct glyph_request req_x = glyph_request_of(key, glyph_x);
  atomic_ptr *chain = ftpool__glyph_bucket(&cache, req_v.hash);
  assert(ftpool__glyph_bucket(&cache, req_x.hash) == chain);
  struct glyph_entry *v = NULL;
  assert(glyph_lookup(0, &req_v, &v) == FTPOOL_OK && v);
  glyph_give_back(0);

  harness_run(2, thread);

  assert(!cache.retired_head && counter_load_relaxed(&cache.awaiting) == 0);
  assert(word_load_relaxed(&cache.evicting) == 0);
  /* X at the head, and V behind it unless it was evicted. */
  size_t linked = glyph_check_table(&cache);
  assert(ptr_load_relaxed(chain) == x);
  assert(ptr_load_relaxed(&x->next) == (linked == 2 ? v : NULL));
  ftpool__glyph_cache_fini(&cache);
  ftpool__glyph_key_release(NULL, key); /* the font's */
  return 0;
}
