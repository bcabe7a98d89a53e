/* SPDX-License-Identifier: MIT */
/*
 * An acquire's part in the glyph cache (glyph_cache.h, struct glyph_hold):
 * whether a lookup was made under it, which holds the reader's pin, and
 * the glyphs returned to it uncached, kept until its give-back or a
 * quiescent point, rendered once each: a miss looks for its glyph among
 * them first, in a line while they are few, through a table of their own
 * beyond (a CJK text drawn with the cache off or stalled would otherwise
 * walk thousands a miss). All of it the acquire's holder's alone.
 */
#include "glyph_cache.h"
#include "memory.h"

/* Searched in a line up to this many; indexed past it. */
#define OWN_LINE_MAX 8

static void own_reset(struct glyph_hold *hold) {
  hold->own = NULL;
  hold->own_index = NULL;
  hold->own_mask = 0;
  hold->own_count = 0;
}

void ftpool__glyph_hold_init(struct glyph_hold *hold) {
  hold->looked_up = false;
  own_reset(hold);
}

void ftpool__glyph_hold_slow(struct glyph_cache *cache,
                             struct glyph_reader *reader,
                             struct glyph_hold *hold) {
  hold->looked_up = true;
  reader->holds++;
  /* With the cache off nothing is evicted, so nothing needs a pin. */
  if (!reader->pinned && cache->buckets)
    ftpool__glyph_pin(cache, reader);
}

void ftpool__glyph_hold_fini(struct glyph_cache *cache,
                             struct glyph_hold *hold) {
  for (struct glyph_entry *e = hold->own, *next; e; e = next) {
    next = e->queue_next;
    ftpool__glyph_entry_free(cache, e);
  }
  ftpool__memory_free(cache->memory, hold->own_index);
  own_reset(hold);
}

void ftpool__glyph_hold_end_slow(struct glyph_cache *cache,
                                 struct glyph_reader *reader,
                                 struct glyph_hold *hold) {
  ftpool__glyph_hold_fini(cache, hold);
  if (!hold->looked_up)
    return;
  hold->looked_up = false;
#ifdef FTPOOL_CONTROL_GLYPH_UNPIN_PER_GIVE_BACK
  reader->holds = 1; /* test/glyph_pin_read_test.cc's control */
#endif
  if (--reader->holds == 0 && reader->pinned)
    ftpool__glyph_unpin(cache, reader);
}

/* The index's bucket for a hash: the table's bits, as the cache's own. */
static struct glyph_entry **own_bucket(struct glyph_hold *hold, uint64_t hash) {
  return &hold->own_index[(size_t)(hash >> 17) & hold->own_mask];
}

struct glyph_entry *ftpool__glyph_own_search(struct glyph_hold *hold,
                                             const struct glyph_request *req) {
  /* Uncached entries are nobody else's: their `queue_next` links the
   * acquire's list, their `queue_prev` an index bucket's chain. */
  struct glyph_entry *e =
      hold->own_index ? *own_bucket(hold, req->hash) : hold->own;
  for (; e; e = hold->own_index ? e->queue_prev : e->queue_next)
    if (ftpool__glyph_matches(e, req))
      return e;
  return NULL;
}

/* An index of twice the buckets (at first 4 x OWN_LINE_MAX); without the
 * memory, the index stays as it is: longer walks, nothing lost. */
static void own_grow(struct glyph_cache *cache, struct glyph_hold *hold) {
  size_t buckets =
      hold->own_index ? 2 * (hold->own_mask + 1) : 4 * (size_t)OWN_LINE_MAX;
  struct glyph_entry **index =
      ftpool__memory_alloc(cache->memory, buckets * sizeof *index);
  if (!index)
    return;
  ftpool__memory_free(cache->memory, hold->own_index);
  hold->own_index = index;
  hold->own_mask = buckets - 1;
  for (struct glyph_entry *e = hold->own; e; e = e->queue_next) {
    struct glyph_entry **bucket = own_bucket(hold, e->hash);
    e->queue_prev = *bucket;
    *bucket = e;
  }
}

void ftpool__glyph_own_add(struct glyph_cache *cache, struct glyph_hold *hold,
                           struct glyph_entry *e) {
  e->queue_next = hold->own;
  hold->own = e;
  if (hold->own_index) {
    struct glyph_entry **bucket = own_bucket(hold, e->hash);
    e->queue_prev = *bucket;
    *bucket = e;
  }
  size_t limit = hold->own_index ? 2 * (hold->own_mask + 1) : OWN_LINE_MAX;
  if (++hold->own_count > limit)
    own_grow(cache, hold);
}
