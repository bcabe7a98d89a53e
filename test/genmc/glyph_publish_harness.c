/* SPDX-License-Identifier: MIT */
/*
 * The glyph cache's publication (lib/glyph_cache.c, lib/glyph_cache.h; the
 * protocol of docs/design.md, "The glyph cache's reclamation", modelled in
 * docs/glyph.pml): two threads, each a reader of its own (a context), miss
 * on one glyph at once (ftpool__glyph_lookup: pin, hit, miss: render,
 * reserve, publish by CAS with a search again after a failed CAS, push on
 * the evictor's incoming stack), while a third looks it up (pin, hit, walk
 * the chain); each reads what it got and gives its acquire back (unpin).
 * The budget has room: nothing is evicted. An entry's fields are plain, so
 * finding an entry not seen whole is an error. Asserted, as glyph.pml
 * does: both misses return the one copy linked, and the hit, if any, that
 * copy too, with the glyph's advance; the chain holds it once, with no two
 * equal entries; the incoming stack holds it once; no reader is pinned.
 *
 * Checks: glyph_cache.c glyph_cache.h
 * GenMC options: --disable-estimation
 */
#include "test/genmc/harness.h"

#include "test/genmc/glyph_common.h"

static struct glyph_key *key;
static FT_UInt glyph = 3;
static struct glyph_entry *got[3];

static void *thread(void *arg) {
  int i = (int)(intptr_t)arg;
  struct glyph_request req = glyph_request_of(key, glyph);
  if (i < 2) { /* misses, racing to publish */
    assert(glyph_lookup(i, &req, &got[i]) == FTPOOL_OK);
  } else { /* a hit, or none yet */
    ftpool__glyph_hold(&cache, glyph_reader(i), glyph_hold_of(i));
    got[i] = ftpool__glyph_hit(&cache, glyph_counts_of(i), &req);
  }
  if (got[i])
    assert(got[i]->value.advance == ADVANCE_OF(glyph));
  glyph_give_back(i);
  return NULL;
}

int main(void) {
  key = ftpool__glyph_key_new(&glyph_font);
  glyph_setup(4096, 3);
  harness_run(3, thread);
  assert(got[0] && got[0] == got[1]);
  assert(!got[2] || got[2] == got[0]);
  assert(glyph_check_table(&cache) == 1);
  struct glyph_request req = glyph_request_of(key, glyph);
  assert(ptr_load_relaxed(ftpool__glyph_bucket(&cache, req.hash)) == got[0]);
  assert(ptr_load_relaxed(&cache.incoming) == got[0] && !got[0]->queue_next);
  for (int i = 0; i < 3; i++)
    assert(u64_load_relaxed(&glyph_reader(i)->pin) == 0 &&
           !glyph_reader(i)->pinned);
  ftpool__glyph_cache_fini(&cache);
  ftpool__glyph_key_release(NULL, key); /* the font's */
  return 0;
}
