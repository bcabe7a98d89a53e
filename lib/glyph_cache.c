/* SPDX-License-Identifier: MIT */
/* The glyph cache's table: pins, lookups, and a miss's render and
 * publication. Eviction and reclamation are glyph_evict.c's. */
#include <string.h>

#include "blob.h"
#include "errors.h"
#include "font.h"
#include "glyph_cache.h"
#include "memory.h"
#include "test_hooks.h"

#include FT_ADVANCES_H

/* One bucket per 512 bytes of budget (a 24 px glyph with its record is
 * 400-700 bytes), so chains stay a glyph or two long when the cache is
 * full. */
#define BYTES_PER_BUCKET 512
#define MIN_BUCKETS 64
#define MAX_BUCKETS ((size_t)1 << 22)

ftpool_status ftpool__glyph_cache_init(struct glyph_cache *cache,
                                       FT_Memory memory, size_t budget,
                                       glyph_oldest_pin_fn oldest_pin,
                                       void *arg) {
  memset(cache, 0, sizeof *cache);
  cache->memory = memory;
  cache->budget = budget;
  cache->oldest_pin = oldest_pin;
  cache->oldest_pin_arg = arg;
  counter_init(&cache->bytes);
  counter_init(&cache->awaiting);
  counter_init(&cache->entries);
  counter_init(&cache->evictions);
  u64_init(&cache->epoch, 1);
  ptr_init(&cache->incoming, NULL);
  word_init(&cache->evicting, 0);
  word_init(&cache->reclaim_wanted, 0);
  if (budget == 0)
    return FTPOOL_OK;
  size_t buckets = MIN_BUCKETS;
  while (buckets < MAX_BUCKETS && buckets * BYTES_PER_BUCKET < budget)
    buckets *= 2;
  cache->buckets = ftpool__memory_alloc(memory, buckets * sizeof(atomic_ptr));
  if (!cache->buckets)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  for (size_t i = 0; i < buckets; i++)
    ptr_init(&cache->buckets[i], NULL);
  cache->mask = buckets - 1;
  return FTPOOL_OK;
}

void ftpool__glyph_cache_fini(struct glyph_cache *cache) {
  for (size_t i = 0; cache->buckets && i <= cache->mask; i++) {
    struct glyph_entry *e = ptr_load_relaxed(&cache->buckets[i]), *next;
    for (; e; e = next) {
      next = ptr_load_relaxed(&e->next);
      ftpool__glyph_entry_free(cache, e);
    }
  }
  for (struct glyph_entry *e = cache->retired_head, *next; e; e = next) {
    next = e->queue_next;
    ftpool__glyph_entry_free(cache, e);
  }
  ftpool__memory_free(cache->memory, cache->buckets);
  cache->buckets = NULL;
}

void ftpool__glyph_reader_init(struct glyph_reader *reader) {
  u64_init(&reader->pin, 0);
  reader->pinned = false;
  reader->holds = 0;
}

void ftpool__glyph_counts_init(struct glyph_counts *counts) {
  counter_init(&counts->hits);
  counter_init(&counts->misses);
  counter_init(&counts->uncached);
  counter_init(&counts->stalled);
}

void ftpool__glyph_pin(struct glyph_cache *cache, struct glyph_reader *reader) {
  /* The load is relaxed: the fence below is an acquire fence before any
   * chain read, so a reader that pins the epoch a retirement's release
   * increment made sees the victims unlinked. The store is a release: an
   * evictor that reads this pin in place of the last unpin's 0 must still
   * see the reads that unpin covered, and the unpin may have been another
   * thread's (a shared-mutex font's reader goes with the font's lock):
   * neither that thread's release sequence nor its fence covers this store
   * (test/genmc/glyph_migrate_harness.c). */
  u64_store_release(&reader->pin, u64_load_relaxed(&cache->epoch));
  /* The pin is visible to an evictor before this reader reads a chain, or
   * the reader sees every unlink the evictor made before reading pins:
   * pairs with the evictor's fence between unlinking and reading pins. */
  fence_seq_cst();
  reader->pinned = true;
}

void ftpool__glyph_unpin(struct glyph_cache *cache,
                         struct glyph_reader *reader) {
#ifndef FTPOOL_CONTROL_GLYPH_NO_REPIN
  reader->pinned = false; /* the next lookup pins again */
#endif
  /* Release: every read of an entry this pin covered happens before an
   * evictor that reads 0 frees it. */
  u64_store_release(&reader->pin, 0);
  /* Pairs with the evictor's fence between adding to `awaiting` and reading
   * pins: it saw this unpin, or this sees what awaits. */
  fence_seq_cst();
  if (counter_load_relaxed(&cache->awaiting))
    ftpool__glyph_reclaim(cache);
}

void ftpool__glyph_reader_forget(struct glyph_reader *reader) {
  u64_store_relaxed(&reader->pin, 0);
  reader->pinned = false;
  reader->holds = 0;
}

/* Two fonts' keys, apart: the slow path of a hit found through another
 * font of the same file and size. */
bool ftpool__glyph_same_key_apart(const struct glyph_key *a,
                                  const struct glyph_key *b,
                                  FT_Int32 load_flags) {
  if ((load_flags & FT_LOAD_COLOR) && a->colour != b->colour)
    return false;
  if (a->hash != b->hash || a->blob_serial != b->blob_serial ||
      a->face_index != b->face_index || a->char_width != b->char_width ||
      a->char_height != b->char_height ||
      a->horz_resolution != b->horz_resolution ||
      a->vert_resolution != b->vert_resolution ||
      a->pixel_width != b->pixel_width || a->pixel_height != b->pixel_height ||
      a->num_coords != b->num_coords ||
      (a->num_coords &&
       memcmp(a->coords, b->coords, a->num_coords * sizeof *a->coords) != 0))
    return false;
  return a->blob_serial != 0 || ftpool__same_identity(&a->file, &b->file);
}

/* --- a miss ------------------------------------------------------------- */

static struct glyph_entry *new_entry(struct glyph_cache *cache,
                                     const struct glyph_request *req,
                                     size_t bytes) {
  struct glyph_entry *e = ftpool__memory_alloc_raw(cache->memory, bytes);
  if (!e)
    return NULL;
  memset(e, 0, offsetof(struct glyph_entry, value));
  ptr_init(&e->next, NULL);
  word_init(&e->visited, 0);
  e->hash = req->hash;
  e->key = req->key;
  refcount_add_relaxed(&req->key->refs); /* the caller's font holds one */
  e->glyph_index = req->glyph_index;
  e->load_flags = req->load_flags;
  e->kind = req->kind;
  if (req->transform)
    e->transform = *req->transform;
  /* Its key's bytes too, until the evictor takes it in and charges the key
   * once for all its entries (take_incoming). */
  e->bytes = bytes + req->key->bytes;
  return e;
}

static size_t advance_entry_bytes(void) {
  return offsetof(struct glyph_entry, value) + sizeof(FT_Fixed);
}

/* FT_Get_Advance once face has loaded the glyph, so that the advance is the
 * key's, not the face's history's: FreeType 2.12 reads a variable font's
 * HVAR at the face's first glyph load, and until then gives its instances
 * the rounded advance of a load where it would read HVAR (with
 * FT_LOAD_NO_HINTING or FT_LOAD_TARGET_LIGHT). */
static FT_Error loaded_advance(FT_Face face, const struct glyph_request *req,
                               FT_Fixed *advance) {
  FT_Error error = FT_Load_Glyph(face, req->glyph_index, req->load_flags);
  if (error)
    return error;
  return FT_Get_Advance(face, req->glyph_index, req->load_flags, advance);
}

/* FT_Load_Glyph with req's transform, if it has one, set for this load
 * alone: the face's own (the user's, or none) is set back after it. */
static FT_Error transformed_load(FT_Face face,
                                 const struct glyph_request *req) {
  if (!req->transform)
    return FT_Load_Glyph(face, req->glyph_index, req->load_flags);
  FT_Matrix matrix = req->transform->matrix;
  FT_Vector delta = req->transform->delta;
#if FREETYPE_MAJOR > 2 || (FREETYPE_MAJOR == 2 && FREETYPE_MINOR >= 11)
  FT_Matrix own_matrix;
  FT_Vector own_delta;
  FT_Get_Transform(face, &own_matrix, &own_delta);
  FT_Set_Transform(face, &matrix, &delta);
  FT_Error error = FT_Load_Glyph(face, req->glyph_index, req->load_flags);
  FT_Set_Transform(face, &own_matrix, &own_delta);
#else /* no FT_Get_Transform: the acquire's state, none */
  FT_Set_Transform(face, &matrix, &delta);
  FT_Error error = FT_Load_Glyph(face, req->glyph_index, req->load_flags);
  FT_Set_Transform(face, NULL, NULL);
#endif
  return error;
}

/* The entry for req, loaded on face: an advance, or the rendered glyph
 * with its bitmap copied after the record. */
static ftpool_status load(struct glyph_cache *cache,
                          const struct glyph_request *req, FT_Face face,
                          struct glyph_entry **out) {
  FT_Error error;
  if (req->kind == GLYPH_ADVANCE) {
    FT_Fixed advance;
    if ((error = loaded_advance(face, req, &advance)))
      return ftpool__fail_freetype(error, 0);
    if (!(*out = new_entry(cache, req, advance_entry_bytes())))
      return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
    (*out)->value.advance = advance;
    return FTPOOL_OK;
  }
  /* The key's colours, whatever a user selected on the face against the
   * rules: the entry is shared under them. Only a colour load reads them. */
  if (req->load_flags & FT_LOAD_COLOR) {
    ftpool_status status = ftpool__colour_set(face, req->key->colour);
    if (status != FTPOOL_OK)
      return status;
  }
  if ((error = transformed_load(face, req)))
    return ftpool__fail_freetype(error, 0);
  FT_GlyphSlot slot = face->glyph;
  if (slot->format != FT_GLYPH_FORMAT_BITMAP)
    return ftpool__fail_freetype(FT_Err_Invalid_Glyph_Format, 0);
  const FT_Bitmap *bm = &slot->bitmap;
  size_t pitch = (size_t)(bm->pitch < 0 ? -bm->pitch : bm->pitch);
  size_t size = bm->buffer ? (size_t)bm->rows * pitch : 0;
  struct glyph_entry *e = new_entry(cache, req, sizeof *e + size);
  if (!e)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  ftpool_glyph *g = &e->value.glyph;
  memset(g, 0, sizeof *g);
  g->bitmap.rows = bm->rows;
  g->bitmap.width = bm->width;
  g->bitmap.pitch = bm->pitch;
  g->bitmap.num_grays = bm->num_grays;
  g->bitmap.pixel_mode = bm->pixel_mode;
  if (size) {
    g->bitmap.buffer = (unsigned char *)(e + 1);
    memcpy(g->bitmap.buffer, bm->buffer, size);
  }
  g->left = slot->bitmap_left;
  g->top = slot->bitmap_top;
  g->advance = slot->advance;
  g->lsb_delta = slot->lsb_delta;
  g->rsb_delta = slot->rsb_delta;
  g->metrics = slot->metrics;
  *out = e;
  return FTPOOL_OK;
}

/* Reserves e's bytes against the budget, or says why they do not fit. */
static enum glyph_room reserve(struct glyph_cache *cache, size_t bytes) {
  if (bytes > cache->budget)
    return GLYPH_ROOM_NONE;
  size_t held = counter_load_relaxed(&cache->bytes);
  for (;;) {
    if (held + bytes <= cache->budget) {
      /* Relaxed: a count; what it admits is published by the chain's CAS. */
      if (counter_cas_relaxed(&cache->bytes, &held, held + bytes))
        return GLYPH_ROOM;
    } else {
      enum glyph_room room = ftpool__glyph_make_room(cache, bytes);
      if (room != GLYPH_ROOM)
        return room;
      held = counter_load_relaxed(&cache->bytes);
    }
  }
}

/* Release: a reader that finds e sees it complete. Acquire on failure:
 * the new head's entries are searched. */
static bool publish_cas(atomic_ptr *bucket, void **head,
                        struct glyph_entry *e) {
#ifdef FTPOOL_CONTROL_GLYPH_RELAXED_PUBLISH
  return ptr_cas_relaxed(bucket, head, e);
#else
  return ptr_cas_acq_rel(bucket, head, e);
#endif
}

/* Pushes e on its bucket's chain unless an equal entry is there: then frees
 * e and returns that one. */
static struct glyph_entry *publish(struct glyph_cache *cache,
                                   struct glyph_entry *e,
                                   const struct glyph_request *req) {
  atomic_ptr *bucket = ftpool__glyph_bucket(cache, req->hash);
  void *head = ptr_load_acquire(bucket);
  for (;;) {
    struct glyph_entry *found = ftpool__glyph_search(head, req);
    if (found) {
      counter_sub_relaxed(&cache->bytes, e->bytes);
      ftpool__glyph_entry_free(cache, e); /* never published */
      return found;
    }
    ptr_store_relaxed(&e->next, head);
    FTPOOL_TEST_HOOK(FTPOOL_HOOK_GLYPH_PUBLISHING);
    if (publish_cas(bucket, &head, e))
      break;
  }
  counter_add_relaxed(&cache->entries, 1);
  /* On the evictor's incoming stack. Release pairs with its acquire
   * exchange: it sees e's fields. */
  void *top = ptr_load_relaxed(&cache->incoming);
  do
    e->queue_next = top;
  while (!ptr_cas_release(&cache->incoming, &top, e));
  return e;
}

ftpool_status ftpool__glyph_miss(struct glyph_cache *cache,
                                 struct glyph_hold *hold,
                                 struct glyph_counts *counts,
                                 const struct glyph_request *req, FT_Face face,
                                 struct glyph_entry **out) {
  struct glyph_entry *e = ftpool__glyph_own_search(hold, req);
  if (e) {
    counter_bump_single_writer(&counts->hits);
    *out = e;
    return FTPOOL_OK;
  }
  ftpool_status status = load(cache, req, face, &e);
  if (status != FTPOOL_OK)
    return status;
  counter_bump_single_writer(&counts->misses);
  enum glyph_room room =
      cache->buckets ? reserve(cache, e->bytes) : GLYPH_ROOM_NONE;
  if (room == GLYPH_ROOM) {
    *out = publish(cache, e, req);
    return FTPOOL_OK;
  }
  counter_bump_single_writer(&counts->uncached);
  if (room == GLYPH_ROOM_STALLED)
    counter_bump_single_writer(&counts->stalled);
  ftpool__glyph_own_add(cache, hold, e);
  *out = e;
  return FTPOOL_OK;
}

void ftpool__glyph_counts_stats(struct glyph_counts *counts, ftpool_stats *s) {
  s->glyph_hits += counter_load_relaxed(&counts->hits);
  s->glyph_misses += counter_load_relaxed(&counts->misses);
  s->glyph_uncached += counter_load_relaxed(&counts->uncached);
  s->glyph_uncached_stalled += counter_load_relaxed(&counts->stalled);
}

void ftpool__glyph_counts_add(struct glyph_counts *into,
                              struct glyph_counts *from) {
  counter_add_relaxed(&into->hits, counter_load_relaxed(&from->hits));
  counter_add_relaxed(&into->misses, counter_load_relaxed(&from->misses));
  counter_add_relaxed(&into->uncached, counter_load_relaxed(&from->uncached));
  counter_add_relaxed(&into->stalled, counter_load_relaxed(&from->stalled));
}

void ftpool__glyph_cache_stats(struct glyph_cache *cache, ftpool_stats *s) {
  s->glyph_evictions += counter_load_relaxed(&cache->evictions);
  s->glyph_entries += counter_load_relaxed(&cache->entries);
  s->glyph_bytes_cached += counter_load_relaxed(&cache->bytes);
  s->glyph_bytes_awaiting += counter_load_relaxed(&cache->awaiting);
  size_t pinned = 0;
  uint64_t oldest = cache->oldest_pin(cache->oldest_pin_arg, &pinned);
  s->glyph_readers_pinned += pinned;
  if (pinned)
    s->glyph_oldest_pin_age = u64_load_relaxed(&cache->epoch) - oldest;
}
