/* SPDX-License-Identifier: MIT */
/*
 * A reader that moves between threads (found by an adversarial review): a
 * shared-mutex font's reader is used by whichever thread holds the font's
 * lock. Thread 0 locks the font, pins, hits V, reads it, gives it back
 * (unpin) and unlocks; thread 1, later in time (a relaxed flag, so it is
 * not ordered after thread 0 by anything but the lock), locks the font and
 * pins again, and keeps the font; thread 2 evicts V and reclaims, its walk
 * of the pins (the real ftpool__sm_fonts_oldest_pin) reading thread 1's
 * pin. Asserted: thread 0's read of V happens before V's free (GenMC
 * reports a read of freed memory otherwise). With a relaxed pin store it
 * does not: thread 0's unpin heads no release sequence that thread 1's
 * store is in, and thread 0's fence is not before it.
 *
 * Checks: glyph_cache.c
 * GenMC options: --disable-estimation
 */
#define GLYPH_SM_READERS 1
#include "test/genmc/harness.h"

#include <genmc.h>

#include "test/genmc/glyph_common.h"

static struct glyph_key *key;
static const FT_UInt glyph = 5;
static size_t need;
static _Atomic(int) first_done;
static FT_Fixed got;

static void *thread(void *arg) {
  struct sm_font *sm = &glyph_sm_fonts[0];
  switch ((intptr_t)arg) {
  case 0: {
    pthread_mutex_lock(&sm->lock);
    struct glyph_request req = glyph_request_of(key, glyph);
    ftpool__glyph_hold(&cache, glyph_reader(0), glyph_hold_of(0));
    struct glyph_entry *e = ftpool__glyph_hit(&cache, glyph_counts_of(0), &req);
    if (e)
      got = e->value.advance; /* the user's read of the glyph */
    glyph_give_back(0);
    pthread_mutex_unlock(&sm->lock);
    atomic_store_explicit(&first_done, 1, memory_order_relaxed);
    break;
  }
  case 1:
    __VERIFIER_assume(atomic_load_explicit(&first_done, memory_order_relaxed));
    pthread_mutex_lock(&sm->lock);
    ftpool__glyph_hold(&cache, glyph_reader(0), glyph_hold_of(0)); /* pins */
    pthread_mutex_unlock(&sm->lock); /* and holds the font on */
    break;
  default:
    ftpool__glyph_make_room(&cache, need);
  }
  return NULL;
}

int main(void) {
  key = ftpool__glyph_key_new(&glyph_font);
  need = advance_entry_bytes() + key->bytes;
  glyph_setup(need, 1);
  pthread_mutex_init(&glyph_sm_fonts[0].lock, NULL);
  struct glyph_request req = glyph_request_of(key, glyph);
  struct glyph_entry *e = NULL;
  assert(glyph_lookup(0, &req, &e) == FTPOOL_OK && e);
  glyph_give_back(0);
  harness_run(3, thread);
  return 0;
}
