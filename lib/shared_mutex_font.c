/* SPDX-License-Identifier: MIT */
/* Shared fonts in the shared-mutex backend: one face per font, opened on
 * the pool's library, and a recursive lock held from acquire to give back
 * (a thread may acquire a font it holds again). */
#include "errors.h"
#include "shared_mutex.h"

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
};

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
  if (status != FTPOOL_OK) {
    FT_Done_Face(sm->face);
    return status;
  }
  sm->metrics = sm->face->size->metrics;
  sm->charmap = sm->face->charmap;
  return FTPOOL_OK;
}

ftpool_status ftpool__sm_font_prepare(ftpool_font *font) {
  struct shared_mutex_pool *pool = as_shared(font->pool);
  struct sm_font *sm = ftpool__memory_alloc(pool->base.memory, sizeof *sm);
  if (!sm)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
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
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&sm->lock, &attr);
  pthread_mutexattr_destroy(&attr);
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
  sm->uses--;
  pthread_mutex_unlock(&sm->lock);
  pthread_mutex_unlock(&sm->lock);
  return FTPOOL_OK;
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

void ftpool__sm_font_gone(ftpool_font *font) {
  struct shared_mutex_pool *pool = as_shared(font->pool);
  struct sm_font *sm = font->sm;
  /* Before the pool's lock: user code. */
  ftpool__instance_data_destroy(&sm->data);
  pthread_mutex_lock(&pool->mutex);
  unlink_font(pool, sm);
  FT_Done_Face(sm->face);
  pthread_mutex_unlock(&pool->mutex);
  pthread_mutex_destroy(&sm->lock);
  ftpool__memory_free(pool->base.memory, sm);
}

void ftpool__sm_fonts_stats(struct shared_mutex_pool *pool, ftpool_stats *s) {
  for (struct sm_font *sm = pool->fonts; sm; sm = sm->next) {
    s->font_instances++;
    s->font_faces++;
    s->font_instance_bytes += sm->bytes;
  }
  s->font_instances_created = pool->fonts_made;
}

void ftpool__sm_fonts_destroy(struct shared_mutex_pool *pool) {
  /* Every destructor first, while every font is whole: one may hold
   * another font's reference (its release is a no-op now, but reads it). */
  for (struct sm_font *sm = pool->fonts; sm; sm = sm->next)
    ftpool__instance_data_destroy(&sm->data);
  while (pool->fonts) {
    struct sm_font *sm = pool->fonts;
    pool->fonts = sm->next;
    FT_Done_Face(sm->face); /* before the font drops its bytes */
    pthread_mutex_destroy(&sm->lock);
    ftpool__font_free(sm->font);
    ftpool__memory_free(pool->base.memory, sm);
  }
}
