/*
 * The shared-mutex backend: one FT_Library for every thread and one mutex
 * around FT_Open_Face and FT_Done_Face, as Pillow fixed its free-threaded
 * crash. Kept so the benchmarks compare like with like.
 */
#include <pthread.h>

#include "errors.h"
#include "memory.h"
#include "pool.h"

#include FT_MODULE_H

struct shared_mutex_pool {
  ftpool base;
  pthread_mutex_t mutex; /* guards library's face lists and the counts */
  FT_Library library;
  struct library_memory memory; /* the library's allocator */
  size_t opened;
  size_t closed;
};

static struct shared_mutex_pool *as_shared(ftpool *pool) {
  return (struct shared_mutex_pool *)pool;
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
  ftpool__face_done(rec);
  pool->closed++;
  pthread_mutex_unlock(&pool->mutex);
}

static void sm_collect(ftpool *base) { (void)base; }

static void sm_stats(ftpool *base, ftpool_stats *s) {
  struct shared_mutex_pool *pool = as_shared(base);
  pthread_mutex_lock(&pool->mutex);
  s->contexts = 1;
  s->contexts_owned = 1;
  s->faces_opened = pool->opened;
  s->faces_closed = pool->closed;
  pthread_mutex_unlock(&pool->mutex);
  s->faces_open = s->faces_opened - s->faces_closed;
}

static void sm_destroy(ftpool *base) {
  struct shared_mutex_pool *pool = as_shared(base);
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
};

ftpool_status ftpool__shared_mutex_create(const ftpool_config *config,
                                          ftpool **out) {
  struct shared_mutex_pool *pool =
      ftpool__memory_alloc(config->memory, sizeof *pool);
  if (!pool)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  ftpool__pool_init_header(&pool->base, &shared_mutex_backend, config);
  ftpool_status status =
      ftpool__library_new(&pool->base, &pool->memory, &pool->library);
  if (status != FTPOOL_OK) {
    ftpool__memory_free(config->memory, pool);
    return status;
  }
  pthread_mutex_init(&pool->mutex, NULL);
  *out = &pool->base;
  return FTPOOL_OK;
}
