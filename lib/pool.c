/* SPDX-License-Identifier: MIT */
/* The public entry points that dispatch to a pool's backend. */
#include "pool.h"

#include "errors.h"
#include "memory.h"

void ftpool_config_init(ftpool_config *config) {
  if (!config)
    return;
  config->backend = FTPOOL_BACKEND_PER_THREAD;
  config->memory = NULL;
  config->configure = NULL;
  config->configure_arg = NULL;
  config->file_cache_bytes = FTPOOL_DEFAULT_FILE_CACHE_BYTES;
  config->font_idle_instances = FTPOOL_DEFAULT_FONT_IDLE_INSTANCES;
  config->font_idle_bytes = FTPOOL_DEFAULT_FONT_IDLE_BYTES;
  config->glyph_cache_bytes = FTPOOL_DEFAULT_GLYPH_CACHE_BYTES;
}

void ftpool__pool_init_header(ftpool *pool, const struct backend *backend,
                              const ftpool_config *config) {
  pool->backend = backend;
  pool->memory = config->memory;
  pool->configure = config->configure;
  pool->configure_arg = config->configure_arg;
  ftpool__blob_store_init(&pool->blobs);
  ftpool__file_cache_init(&pool->files, config->file_cache_bytes);
  pool->font_idle_instances = config->font_idle_instances;
  pool->font_idle_bytes = config->font_idle_bytes;
  counter_init(&pool->fonts);
  pool->destroying = false;
}

void ftpool__pool_fini_header(ftpool *pool) {
  ftpool__file_cache_fini(pool);
  ftpool__blob_store_fini(pool);
}

ftpool_status ftpool_create(const ftpool_config *config, ftpool **pool) {
  if (!pool)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *pool = NULL;
  ftpool_config resolved;
  ftpool_config_init(&resolved);
  if (config)
    resolved = *config;
  if (!resolved.memory)
    resolved.memory = ftpool__memory_default();
  switch (resolved.backend) {
  case FTPOOL_BACKEND_PER_THREAD:
    return ftpool__per_thread_create(&resolved, pool);
  case FTPOOL_BACKEND_SHARED_MUTEX:
    return ftpool__shared_mutex_create(&resolved, pool);
  }
  return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
}

void ftpool_destroy(ftpool *pool) {
  if (pool) {
    pool->destroying = true;
    pool->backend->destroy(pool);
  }
}

ftpool_status ftpool_library(ftpool *pool, FT_Library *library) {
  if (!pool || !library)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  return pool->backend->library(pool, library);
}

ftpool_status ftpool_collect(ftpool *pool) {
  if (!pool)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  pool->backend->collect(pool);
  return FTPOOL_OK;
}

ftpool_status ftpool_get_stats(ftpool *pool, ftpool_stats *stats) {
  if (!pool || !stats)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *stats = (ftpool_stats){0};
  pool->backend->stats(pool, stats);
  ftpool__file_cache_stats(&pool->files, stats);
  stats->blob_bytes_live = counter_load_relaxed(&pool->blobs.live_bytes);
  stats->blob_headers = counter_load_relaxed(&pool->blobs.made);
  stats->fonts = counter_load_relaxed(&pool->fonts);
  return FTPOOL_OK;
}
