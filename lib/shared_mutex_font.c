/* SPDX-License-Identifier: MIT */
/* Shared fonts in the shared-mutex backend: one face per font, opened on
 * the pool's library, and a recursive lock held from acquire to give back
 * (a thread may acquire a font it holds again). */
#include "errors.h"
#include "shared_mutex.h"

/* One per font. Its lock is taken once per acquire not given back (`uses`
 * times), so that the holder's exit can give them all back. */
struct sm_font {
  struct sm_font *prev, *next; /* the pool's fonts */
  ftpool_font *font;
  pthread_mutex_t lock;
  FT_Face face;
  FT_Size_Metrics metrics; /* as set */
  FT_CharMap charmap;
  size_t uses; /* under lock */
  size_t bytes;
  struct instance_data data;
  /* The glyph cache's reader, the holder's part and counts: under lock but
   * for what evictors and statistics read. */
  struct glyph_reader glyphs;
  struct glyph_hold hold;
  struct glyph_counts counts;
  /* While held: the holder's list of the fonts it holds (held_key), edited
   * by the holder alone, under the fonts' locks. */
  struct sm_font *held_prev, *held_next;
  /* Freed (its font released or pool destroyed) while another thread held
   * it: leaked, never unlocked (unlock_for_free). */
  atomic_word orphaned;
};

/*
 * The fonts each thread holds, as the value of a key whose destructor gives
 * them back at the thread's exit, as the per-thread backend does: otherwise
 * a dead thread would own each lock for ever and the next acquire block.
 * Only the owner may unlock a mutex, and the destructor runs on it. One key
 * for every pool of the backend, made once and never deleted; a key and not
 * a _Thread_local, which MinGW frees from a destructor of its own.
 */
static pthread_key_t held_key;
static int held_key_error;

/* The holder's, when it holds the font no more or passes a quiescent
 * point: the glyphs it got are not read after. */
static void hold_end(struct shared_mutex_pool *pool, struct sm_font *sm) {
  ftpool__glyph_hold_end(&pool->base.glyphs, &sm->glyphs, &sm->hold);
}

static void give_back_at_exit(void *first) {
  for (struct sm_font *sm = first, *next; sm; sm = next) {
    next = sm->held_next; /* before the unlock: another thread relinks it */
    size_t uses = sm->uses;
    sm->uses = 0;
    if (uses)
      hold_end(as_shared(sm->font->pool), sm);
    /* Relaxed: set by a thread that failed to take the lock we hold; read
     * either way it is safe, since such an sm is never freed. */
    if (!word_load_relaxed(&sm->orphaned))
      while (uses--)
        pthread_mutex_unlock(&sm->lock);
  }
}

/* At load time, as shared_mutex.c's fork handlers, so that no pool's
 * creation races to make it. */
__attribute__((constructor)) static void make_held_key(void) {
  held_key_error = pthread_key_create(&held_key, give_back_at_exit);
}

ftpool_status ftpool__sm_fonts_init(void) {
  return held_key_error ? ftpool__fail(FTPOOL_ERR_THREAD) : FTPOOL_OK;
}

/* Puts sm, just acquired, first in the caller's list; false when the key's
 * slot cannot be allocated (the thread's first hold). */
static bool hold(struct sm_font *sm) {
  struct sm_font *first = pthread_getspecific(held_key);
  if (pthread_setspecific(held_key, sm) != 0)
    return false;
  sm->held_prev = NULL;
  sm->held_next = first;
  if (first)
    first->held_prev = sm;
  return true;
}

/* Takes sm out of the caller's list. */
static void unhold(struct sm_font *sm) {
  if (sm->held_prev)
    sm->held_prev->held_next = sm->held_next;
  else
    pthread_setspecific(held_key, sm->held_next); /* its slot exists */
  if (sm->held_next)
    sm->held_next->held_prev = sm->held_prev;
}

static ftpool_status open_font(struct shared_mutex_pool *pool,
                               ftpool_font *font, struct sm_font *sm) {
  ftpool_status status = ftpool__font_open_face(font, pool->library, &sm->face);
  if (status != FTPOOL_OK)
    return status;
  status = ftpool__font_set_size(font, sm->face);
  if (status == FTPOOL_OK && font->encoding != FT_ENCODING_NONE) {
    FT_Error error = FT_Select_Charmap(sm->face, font->encoding);
    if (error)
      status = ftpool__fail_freetype(error, 0);
  }
  /* Once: the face is the font's alone. */
  if (status == FTPOOL_OK && font->colour != 0)
    status = ftpool__colour_set(sm->face, font->colour);
  if (status != FTPOOL_OK) {
    FT_Done_Face(sm->face);
    return status;
  }
  sm->metrics = sm->face->size->metrics;
  sm->charmap = sm->face->charmap;
  return FTPOOL_OK;
}

/* Recursive: the holder takes it again for every acquire, give-back and
 * lookup (held_by_caller). */
static void init_lock(struct sm_font *sm) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&sm->lock, &attr);
  pthread_mutexattr_destroy(&attr);
}

ftpool_status ftpool__sm_font_prepare(ftpool_font *font) {
  struct shared_mutex_pool *pool = as_shared(font->pool);
  struct sm_font *sm = ftpool__memory_alloc(pool->base.memory, sizeof *sm);
  if (!sm)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  word_init(&sm->orphaned, 0);
  ftpool__glyph_reader_init(&sm->glyphs);
  ftpool__glyph_hold_init(&sm->hold);
  ftpool__glyph_counts_init(&sm->counts);
  pthread_mutex_lock(&pool->mutex);
  size_t before = ftpool__library_memory_bytes(&pool->memory);
  ftpool_status status = open_font(pool, font, sm);
  if (status == FTPOOL_OK) {
    /* Other threads' renders may allocate meanwhile: a close estimate. */
    size_t after = ftpool__library_memory_bytes(&pool->memory);
    sm->bytes = after > before ? after - before : 0;
    sm->font = font;
    sm->next = pool->fonts;
    if (pool->fonts)
      pool->fonts->prev = sm;
    pool->fonts = sm;
    pool->fonts_made++;
  }
  pthread_mutex_unlock(&pool->mutex);
  if (status != FTPOOL_OK) {
    ftpool__memory_free(pool->base.memory, sm);
    return status;
  }
  init_lock(sm);
  font->sm = sm;
  return FTPOOL_OK;
}

ftpool_status ftpool__sm_font_acquire(ftpool_font *font, FT_Face *face) {
  struct sm_font *sm = font->sm;
  pthread_mutex_lock(&sm->lock);
  if (sm->uses++ == 0) {
    /* As the per-thread backend does: the font's size, charmap, no
     * transform, whatever the last user set. */
    ftpool_status status = FTPOOL_OK;
    if (ftpool__size_changed(sm->face->size, &sm->metrics) &&
        (status = ftpool__font_set_size(font, sm->face)) != FTPOOL_OK) {
      sm->uses--;
      pthread_mutex_unlock(&sm->lock);
      return status;
    }
    sm->metrics = sm->face->size->metrics;
    if (sm->face->charmap != sm->charmap)
      sm->face->charmap = sm->charmap; /* FT_Set_Charmap refuses NULL */
    FT_Set_Transform(sm->face, NULL, NULL);
    if (!hold(sm)) {
      sm->uses--;
      pthread_mutex_unlock(&sm->lock);
      return ftpool__fail(FTPOOL_ERR_THREAD);
    }
  }
  *face = sm->face;
  return FTPOOL_OK;
}

/* True, with the lock taken once more, if the caller holds the font. A
 * recursive lock's owner can always take it again; another thread cannot
 * while it is held, and one that can while it is not holds nothing. */
static bool held_by_caller(struct sm_font *sm, FT_Face face) {
  if (face != sm->face || pthread_mutex_trylock(&sm->lock) != 0)
    return false;
  if (sm->uses == 0) {
    pthread_mutex_unlock(&sm->lock);
    return false;
  }
  return true;
}

ftpool_status ftpool__sm_font_give_back(ftpool_font *font, FT_Face face) {
  struct sm_font *sm = font->sm;
  if (!held_by_caller(sm, face))
    return ftpool__fail(FTPOOL_ERR_NOT_ACQUIRED);
  if (--sm->uses == 0) {
    unhold(sm);
    hold_end(as_shared(font->pool), sm);
  }
  pthread_mutex_unlock(&sm->lock);
  pthread_mutex_unlock(&sm->lock);
  return FTPOOL_OK;
}

static bool size_as_set(const void *arg) {
  const struct sm_font *sm = arg;
  return !ftpool__size_changed(sm->face->size, &sm->metrics);
}

/* The table is the per-thread backend's: a hit takes no lock but the
 * font's, which the caller holds already (a recursive lock taken again
 * never waits), and a miss renders on the font's face under that lock
 * alone. */
ftpool_status ftpool__sm_font_glyph(ftpool_font *font, FT_Face face,
                                    const struct glyph_request *req,
                                    struct glyph_entry **out) {
  struct sm_font *sm = font->sm;
  if (!held_by_caller(sm, face))
    return ftpool__fail(FTPOOL_ERR_NOT_ACQUIRED);
  ftpool_status status =
      ftpool__glyph_lookup(&font->pool->glyphs, &sm->glyphs, &sm->hold,
                           &sm->counts, req, face, size_as_set, sm, out);
  pthread_mutex_unlock(&sm->lock); /* held_by_caller's */
  return status;
}

void ftpool__sm_quiescent(ftpool *base) {
  for (struct sm_font *sm = pthread_getspecific(held_key); sm;
       sm = sm->held_next)
    if (sm->font->pool == base)
      hold_end(as_shared(base), sm);
}

uint64_t ftpool__sm_fonts_oldest_pin(void *arg, size_t *pinned) {
  struct shared_mutex_pool *pool = arg;
  uint64_t oldest = UINT64_MAX;
  pthread_mutex_lock(&pool->mutex);
  for (struct sm_font *sm = pool->fonts; sm; sm = sm->next) {
    /* Acquire pairs with the holder's release unpin: its reads of what it
     * unpinned happen before the free that follows. */
    uint64_t pin = u64_load_acquire(&sm->glyphs.pin);
    if (pin && pinned)
      ++*pinned;
    if (pin && pin < oldest)
      oldest = pin;
  }
  pthread_mutex_unlock(&pool->mutex);
  return oldest;
}

void ftpool__sm_fonts_in_child(struct shared_mutex_pool *pool) {
  struct sm_font *held_first = pthread_getspecific(held_key);
  for (struct sm_font *sm = pool->fonts; sm; sm = sm->next) {
    struct sm_font *held = held_first;
    while (held && held != sm)
      held = held->held_next;
    if (!held) {
      ftpool__glyph_reader_forget(&sm->glyphs);
      ftpool__glyph_hold_init(&sm->hold); /* its glyphs leaked, as its stack */
      continue;
    }
    /* A recursive lock records its owner's thread id, which the forking
     * thread does not keep in the child: made again, held as often, so
     * that the child can go on using and give back what it holds. */
    init_lock(sm);
    for (size_t i = 0; i < sm->uses; i++)
      pthread_mutex_lock(&sm->lock);
  }
}

struct instance_data *ftpool__sm_font_data(ftpool_font *font, FT_Face face) {
  struct sm_font *sm = font->sm;
  if (!held_by_caller(sm, face))
    return NULL;
  pthread_mutex_unlock(&sm->lock);
  return &sm->data;
}

/* Unlinks sm; under the pool's mutex. */
static void unlink_font(struct shared_mutex_pool *pool, struct sm_font *sm) {
  if (sm->prev)
    sm->prev->next = sm->next;
  else
    pool->fonts = sm->next;
  if (sm->next)
    sm->next->prev = sm->prev;
}

/* Whether sm may be freed: then its lock is destroyed, and sm taken out of
 * the caller's list if the caller still holds it (its font released or its
 * pool destroyed first), so that its exit does not find it. A lock the
 * caller cannot take is held by another thread: one a fork() left behind
 * (the forking one's too: its owner's id changed in the child), which
 * never exits in this process, or one that broke the contract (released
 * the font while another held it, or destroyed the pool before joining).
 * That lock cannot be destroyed while locked: sm is leaked, and the
 * holder's exit, which may still find it in its list, skips it. */
static bool unlock_for_free(struct shared_mutex_pool *pool,
                            struct sm_font *sm) {
  if (pthread_mutex_trylock(&sm->lock) != 0) {
    word_store_relaxed(&sm->orphaned, 1); /* see give_back_at_exit */
    return false;
  }
  if (sm->uses) {
    unhold(sm);
    hold_end(pool, sm);
  }
  for (size_t locks = sm->uses + 1; locks; locks--)
    pthread_mutex_unlock(&sm->lock);
  pthread_mutex_destroy(&sm->lock);
  return true;
}

void ftpool__sm_font_gone(ftpool_font *font) {
  struct shared_mutex_pool *pool = as_shared(font->pool);
  struct sm_font *sm = font->sm;
  /* Before the pool's lock: user code. */
  ftpool__instance_data_destroy_in(&pool->base, &sm->data);
  pthread_mutex_lock(&pool->mutex);
  unlink_font(pool, sm);
  /* Its lookups stay in the statistics. Relaxed: the holder's counts, and
   * every holder gave the font back before its last release. */
  ftpool__glyph_counts_add(&pool->gone_counts, &sm->counts);
  FT_Done_Face(sm->face);
  pthread_mutex_unlock(&pool->mutex);
  if (unlock_for_free(pool, sm))
    ftpool__memory_free(pool->base.memory, sm);
}

void ftpool__sm_fonts_stats(struct shared_mutex_pool *pool, ftpool_stats *s) {
  ftpool__glyph_counts_stats(&pool->gone_counts, s);
  for (struct sm_font *sm = pool->fonts; sm; sm = sm->next) {
    s->font_instances++;
    s->font_faces++;
    s->font_instance_bytes += sm->bytes;
    ftpool__glyph_counts_stats(&sm->counts, s);
  }
  s->font_instances_created = pool->fonts_made;
}

void ftpool__sm_fonts_destroy(struct shared_mutex_pool *pool) {
  /* Every destructor first, while every font is whole: one may hold
   * another font's reference (its release is a no-op now, but reads it). */
  for (struct sm_font *sm = pool->fonts; sm; sm = sm->next)
    ftpool__instance_data_destroy_in(&pool->base, &sm->data);
  while (pool->fonts) {
    struct sm_font *sm = pool->fonts;
    pool->fonts = sm->next;
    FT_Done_Face(sm->face); /* before the font drops its bytes */
    ftpool__font_free(sm->font);
    if (unlock_for_free(pool, sm))
      ftpool__memory_free(pool->base.memory, sm);
  }
}
