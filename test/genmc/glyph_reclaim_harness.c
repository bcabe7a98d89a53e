/* SPDX-License-Identifier: MIT */
/*
 * The glyph cache's reclamation (lib/glyph_evict.c, lib/glyph_cache.c's
 * pin and unpin, lib/glyph_key.c's release, and the per-thread backend's
 * walk of the pins, lib/per_thread.c's oldest_pin; the protocol of
 * docs/design.md, "The glyph cache's reclamation", modelled in
 * docs/glyph.pml). The readers are contexts in a registry, as the
 * per-thread backend's. At the start (main) context 0 has missed on V,
 * published it and given its acquire back: the budget is full. Thread 0
 * looks V up under an acquire (pin, hit: the head, V's fields, SIEVE's
 * mark), reads it, gives the acquire back (unpin; if anything awaits
 * reclamation, the request: reclaim now, or leave it to the token's
 * holder), then releases its font's key. Thread 1 is an evictor: a miss
 * with no room (ftpool__glyph_make_room, called unpinned, so that it frees
 * at once what no reader holds, where a miss's own pin would keep it): it
 * takes the token, takes V in, evicts it (unlink, retire with the epoch),
 * reclaims (the walk of the pins, the frees, the key's release) and gives
 * the token back, serving a request. Entries' and keys' fields are plain:
 * a read of an entry freed under it, or a free that does not follow a
 * reader's last read, is an error. Asserted, as glyph.pml does: what the
 * hit got is its glyph, not freed; once both threads end nothing retired
 * is left, nothing awaits, no reader is pinned, the token is free, and
 * the table holds nothing.
 *
 * Checks: glyph_cache.c glyph_evict.c glyph_key.c per_thread.c
 * GenMC options: --disable-estimation
 */
#include "test/genmc/harness.h"

#include "test/genmc/glyph_common.h"

static struct glyph_key *key;
static FT_UInt glyph = 5;
static size_t need; /* an entry's bytes with its key's */

static void *thread(void *arg) {
  if ((intptr_t)arg == 0) { /* a hit, during the eviction */
    struct glyph_request req = glyph_request_of(key, glyph);
    ftpool__glyph_hold(&cache, glyph_reader(0), glyph_hold_of(0));
    struct glyph_entry *e = ftpool__glyph_hit(&cache, glyph_counts_of(0), &req);
    if (e)
      assert(e->value.advance == ADVANCE_OF(glyph));
    glyph_give_back(0);
    ftpool__glyph_key_release(NULL, key); /* its font is released */
  } else { /* an evictor, as a miss with no room */
    ftpool__glyph_make_room(&cache, need);
  }
  return NULL;
}

int main(void) {
  key = ftpool__glyph_key_new(&glyph_font); /* thread 0's font's */
  need = advance_entry_bytes() + key->bytes;
  glyph_setup(need, 2);
  struct glyph_request req = glyph_request_of(key, glyph);
  struct glyph_entry *e = NULL;
  assert(glyph_lookup(0, &req, &e) == FTPOOL_OK && e);
  assert(ptr_load_relaxed(ftpool__glyph_bucket(&cache, req.hash)) == e);
  glyph_give_back(0);

  harness_run(2, thread);

  assert(!cache.retired_head && !cache.retired_tail);
  assert(counter_load_relaxed(&cache.awaiting) == 0);
  assert(word_load_relaxed(&cache.evicting) == 0);
  for (int i = 0; i < 2; i++)
    assert(u64_load_relaxed(&glyph_reader(i)->pin) == 0);
  assert(glyph_check_table(&cache) == 0);
  assert(counter_load_relaxed(&cache.bytes) == 0);
  ftpool__glyph_cache_fini(&cache); /* the key went with the entry */
  return 0;
}
