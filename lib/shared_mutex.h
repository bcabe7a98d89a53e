/* SPDX-License-Identifier: MIT */
/*
 * The shared-mutex backend: one FT_Library for every thread and one mutex
 * around FT_Open_Face and FT_Done_Face, as Pillow fixed its free-threaded
 * crash; and, for shared fonts, one face per font behind a lock of its own
 * held from acquire to give back, as Pillow 11 guards each font. Kept so the
 * benchmarks compare like with like.
 */
#ifndef FTPOOL_SHARED_MUTEX_H
#define FTPOOL_SHARED_MUTEX_H

#include <pthread.h>

#include "memory.h"
#include "pool.h"

struct shared_mutex_pool {
  ftpool base;
  struct shared_mutex_pool *prev, *next; /* in `pools`, for fork() */
  pthread_mutex_t mutex; /* guards library's face lists, the fonts list and
                            the counts */
  FT_Library library;
  struct library_memory memory; /* the library's allocator */
  size_t opened;
  size_t closed;
  struct sm_font *fonts; /* live fonts, for destroy */
  size_t fonts_made;
  /* The glyph lookups of fonts gone, under `mutex`; each live font counts
   * its own. */
  struct glyph_counts gone_counts;
};

static inline struct shared_mutex_pool *as_shared(ftpool *pool) {
  return (struct shared_mutex_pool *)pool;
}

/* Whether the key through which a thread's exit gives back the fonts it
 * holds was made (at load time); for ftpool_create. */
ftpool_status ftpool__sm_fonts_init(void);

ftpool_status ftpool__sm_font_prepare(ftpool_font *font);
ftpool_status ftpool__sm_font_acquire(ftpool_font *font, FT_Face *face);
ftpool_status ftpool__sm_font_give_back(ftpool_font *font, FT_Face face);
struct instance_data *ftpool__sm_font_data(ftpool_font *font, FT_Face face);
void ftpool__sm_font_gone(ftpool_font *font);
ftpool_status ftpool__sm_font_glyph(ftpool_font *font, FT_Face face,
                                    const struct glyph_request *req,
                                    struct glyph_entry **out);

/* The glyph cache's readers, one per font: the oldest pin; takes `mutex`. */
uint64_t ftpool__sm_fonts_oldest_pin(void *pool, size_t *pinned);

/* ftpool_quiescent: ends the holds of the fonts the caller holds. */
void ftpool__sm_quiescent(ftpool *pool);

/* A fork() child, holding every lock: the fonts the forking thread holds
 * stay its own, the others have no reader left. */
void ftpool__sm_fonts_in_child(struct shared_mutex_pool *pool);

/* Under the pool's mutex. */
void ftpool__sm_fonts_stats(struct shared_mutex_pool *pool, ftpool_stats *s);

/* In ftpool_destroy: runs the instances' data destructors, closes their
 * faces and frees every font still referenced. */
void ftpool__sm_fonts_destroy(struct shared_mutex_pool *pool);

#endif /* FTPOOL_SHARED_MUTEX_H */
