/* SPDX-License-Identifier: MIT */
/*
 * The shared-mutex backend: one FT_Library for every thread and one mutex
 * around FT_Open_Face and FT_Done_Face, as Pillow fixed its free-threaded
 * crash. Kept so the benchmarks compare like with like.
 */
#include "shared_mutex.h"

#include "errors.h"
#include "platform.h"

#include FT_MODULE_H

/* Every pool of this backend, so that fork() happens with no thread inside
 * any pool's mutex: the child then finds each library whole and each mutex
 * free. This is the mutex design, so it may take locks. */
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared_mutex_pool *pools;

/* Not on Windows, nor in test/fork_test.cc's negative control (platform.h). */
#if FTPOOL_FORK_HANDLERS
static void before_fork(void) {
  pthread_mutex_lock(&pools_lock);
  for (struct shared_mutex_pool *p = pools; p; p = p->next)
    pthread_mutex_lock(&p->mutex);
}

static void after_fork(void) {
  for (struct shared_mutex_pool *p = pools; p; p = p->next)
    pthread_mutex_unlock(&p->mutex);
  pthread_mutex_unlock(&pools_lock);
}

static void after_fork_in_child(void) {
  for (struct shared_mutex_pool *p = pools; p; p = p->next)
    ftpool__sm_fonts_in_child(p);
  after_fork();
}

/* At load time, so that no first call races to register or waits for
 * another to. */
__attribute__((constructor)) static void register_fork_handlers(void) {
  pthread_atfork(before_fork, after_fork, after_fork_in_child);
}
#endif

static void link_pool(struct shared_mutex_pool *pool) {
  pthread_mutex_lock(&pools_lock);
  pool->prev = NULL;
  pool->next = pools;
  if (pools)
    pools->prev = pool;
  pools = pool;
  pthread_mutex_unlock(&pools_lock);
}

static void unlink_pool(struct shared_mutex_pool *pool) {
  pthread_mutex_lock(&pools_lock);
  if (pool->prev)
    pool->prev->next = pool->next;
  else
    pools = pool->next;
  if (pool->next)
    pool->next->prev = pool->prev;
  pthread_mutex_unlock(&pools_lock);
}

static ftpool_status sm_library(ftpool *base, FT_Library *library) {
  *library = as_shared(base)->library;
  return FTPOOL_OK;
}

static ftpool_status sm_open(ftpool *base, const FT_Open_Args *args,
                             FT_Long face_index, struct face_rec *rec) {
  struct shared_mutex_pool *pool = as_shared(base);
  pthread_mutex_lock(&pool->mutex);
  FT_Error error = FT_Open_Face(pool->library, args, face_index, &rec->face);
  if (!error)
    pool->opened++;
  pthread_mutex_unlock(&pool->mutex);
  if (error)
    return ftpool__fail_freetype(error, face_index != 0);
  rec->owner = pool;
  return FTPOOL_OK;
}

static void sm_close(ftpool *base, struct face_rec *rec) {
  struct shared_mutex_pool *pool = as_shared(base);
  pthread_mutex_lock(&pool->mutex);
  ftpool_blob *blob = ftpool__face_done(rec);
  pool->closed++;
  pthread_mutex_unlock(&pool->mutex);
  /* Unlocked: the release callback may call into the pool or take the
   * caller's own locks. */
  ftpool__blob_drop(blob);
}

static void sm_collect(ftpool *base) { (void)base; }

static void sm_stats(ftpool *base, ftpool_stats *s) {
  struct shared_mutex_pool *pool = as_shared(base);
  pthread_mutex_lock(&pool->mutex);
  s->contexts = 1;
  s->contexts_owned = 1;
  s->faces_opened = pool->opened;
  s->faces_closed = pool->closed;
  ftpool__sm_fonts_stats(pool, s);
  pthread_mutex_unlock(&pool->mutex);
  s->faces_open = s->faces_opened - s->faces_closed;
  ftpool__glyph_cache_stats(&base->glyphs, s); /* takes `mutex` */
}

static void sm_destroy(ftpool *base) {
  struct shared_mutex_pool *pool = as_shared(base);
  unlink_pool(pool);
  ftpool__sm_fonts_destroy(pool);
  ftpool__glyph_cache_fini(&base->glyphs);
  FT_Done_Library(pool->library);
  pthread_mutex_destroy(&pool->mutex);
  ftpool__pool_fini_header(base);
  ftpool__memory_free(base->memory, pool);
}

static const struct backend shared_mutex_backend = {
    .library = sm_library,
    .open = sm_open,
    .close = sm_close,
    .collect = sm_collect,
    .stats = sm_stats,
    .destroy = sm_destroy,
    .font_prepare = ftpool__sm_font_prepare,
    .font_acquire = ftpool__sm_font_acquire,
    .font_give_back = ftpool__sm_font_give_back,
    .font_data = ftpool__sm_font_data,
    .font_gone = ftpool__sm_font_gone,
    .font_glyph = ftpool__sm_font_glyph,
    .quiescent = ftpool__sm_quiescent,
};

ftpool_status ftpool__shared_mutex_create(const ftpool_config *config,
                                          ftpool **out) {
  ftpool_status status = ftpool__sm_fonts_init();
  if (status != FTPOOL_OK)
    return status;
  struct shared_mutex_pool *pool =
      ftpool__memory_alloc(config->memory, sizeof *pool);
  if (!pool)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  ftpool__pool_init_header(&pool->base, &shared_mutex_backend, config);
  status = ftpool__library_new(&pool->base, &pool->memory, &pool->library);
  if (status != FTPOOL_OK) {
    ftpool__memory_free(config->memory, pool);
    return status;
  }
  status = ftpool__glyph_cache_init(&pool->base.glyphs, config->memory,
                                    config->glyph_cache_bytes,
                                    ftpool__sm_fonts_oldest_pin, pool);
  if (status != FTPOOL_OK) {
    FT_Done_Library(pool->library);
    ftpool__memory_free(config->memory, pool);
    return status;
  }
  ftpool__glyph_counts_init(&pool->gone_counts);
  pthread_mutex_init(&pool->mutex, NULL);
  link_pool(pool);
  *out = &pool->base;
  return FTPOOL_OK;
}
