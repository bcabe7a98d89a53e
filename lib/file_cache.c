/* SPDX-License-Identifier: MIT */
#include "file_cache.h"

#include <string.h>

#include "errors.h"
#include "memory.h"
#include "pool.h"
#include "test_hooks.h"

struct cache_entry {
  struct cache_entry *next; /* fixed before publication */
  size_t hash;
  atomic_ptr blob;
  char path[];
};

void ftpool__file_cache_init(struct file_cache *cache, size_t budget) {
  cache->budget = budget;
  counter_init(&cache->bytes);
  counter_init(&cache->hits);
  counter_init(&cache->misses);
  counter_init(&cache->loads);
  counter_init(&cache->evictions);
  for (size_t i = 0; i < FILE_CACHE_BUCKETS; i++)
    ptr_init(&cache->buckets[i], NULL);
}

/* 64-bit FNV-1a, whatever size_t's width: its constants are 64-bit. */
static size_t hash_path(const char *path) {
  uint64_t h = 14695981039346656037u;
  for (const unsigned char *p = (const unsigned char *)path; *p; p++)
    h = (h ^ *p) * 1099511628211u;
  return (size_t)h;
}

static struct cache_entry *find(struct cache_entry *from,
                                struct cache_entry *until, size_t hash,
                                const char *path) {
  for (struct cache_entry *e = from; e != until; e = e->next)
    if (e->hash == hash && strcmp(e->path, path) == 0)
      return e;
  return NULL;
}

/* The path's entry, added if missing; NULL only when out of memory. */
static struct cache_entry *entry_for(ftpool *pool, const char *path) {
  size_t hash = hash_path(path);
  atomic_ptr *bucket = &pool->files.buckets[hash % FILE_CACHE_BUCKETS];
  /* Acquire pairs with the release below: an entry found is fully built. */
  void *head = ptr_load_acquire(bucket);
  struct cache_entry *found = find(head, NULL, hash, path);
  if (found)
    return found;
  size_t length = strlen(path) + 1;
  struct cache_entry *mine =
      ftpool__memory_alloc(pool->memory, sizeof *mine + length);
  if (!mine)
    return NULL;
  mine->hash = hash;
  ptr_init(&mine->blob, NULL);
  memcpy(mine->path, path, length);
  for (;;) {
    mine->next = head;
    /* A failed CAS reloads head with acquire; only the entries pushed since
     * our last look need a look for the same path. */
    if (ptr_cas_acq_rel(bucket, &head, mine))
      return mine;
    found = find(head, mine->next, hash, path);
    if (found) {
      ftpool__memory_free(pool->memory, mine);
      return found;
    }
  }
}

/* Clears entries until the cache fits its budget: blobs no face uses first,
 * then any (those stay alive until their last face closes); never `keep`,
 * the entry just filled. */
static void evict_over_budget(ftpool *pool, struct cache_entry *keep) {
  struct file_cache *cache = &pool->files;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < FILE_CACHE_BUCKETS; i++) {
      for (struct cache_entry *e = ptr_load_acquire(&cache->buckets[i]); e;
           e = e->next) {
        if (counter_load_relaxed(&cache->bytes) <= cache->budget)
          return;
        if (e == keep)
          continue;
        void *b = ptr_load_acquire(&e->blob);
        /* Headers are never freed, so reading a stale one's count is safe;
         * the CAS below decides. Only the cache's reference: idle. */
        if (!b ||
            (pass == 0 && refcount_load_relaxed(&((ftpool_blob *)b)->refs) > 1))
          continue;
        /* Acquire: the blob taken may be one a replacement stored after the
         * load above, whose size is read next. No release: storing NULL
         * hands nothing over, for whoever reads it reads nothing after. */
        if (ptr_cas_acquire(&e->blob, &b, NULL)) {
          /* The entry's reference is ours now. */
          counter_sub_relaxed(&cache->bytes, ((ftpool_blob *)b)->size);
          counter_add_relaxed(&cache->evictions, 1);
          ftpool__blob_drop(b);
        }
      }
    }
  }
}

/* Offers a fresh blob to the entry in place of `seen`. */
static void offer(ftpool *pool, struct cache_entry *e, ftpool_blob *seen,
                  ftpool_blob *fresh) {
  struct file_cache *cache = &pool->files;
  if (fresh->size > cache->budget)
    return;
  ftpool__blob_retain(fresh); /* the entry's reference */
  /* Counted before it can be seen, and uncounted only after it is gone: the
   * count never falls below what the cache holds, so evictors racing to
   * subtract can never wrap it. */
  counter_add_relaxed(&cache->bytes, fresh->size);
  void *expected = seen;
  if (!ptr_cas_acq_rel(&e->blob, &expected, fresh)) {
    /* Another thread published first; ours stays the caller's alone. */
    counter_sub_relaxed(&cache->bytes, fresh->size);
    ftpool__blob_drop(fresh);
    return;
  }
  FTPOOL_TEST_HOOK(FTPOOL_HOOK_OFFERED);
  if (seen) {
    /* The entry's reference to the stale version is ours now. */
    counter_sub_relaxed(&cache->bytes, seen->size);
    ftpool__blob_drop(seen);
  }
  evict_over_budget(pool, e);
}

ftpool_status ftpool__file_cache_get(ftpool *pool, const char *path,
                                     ftpool_blob **out) {
  struct file_cache *cache = &pool->files;
  struct file_identity now;
  ftpool_status status = ftpool__file_identity(path, &now);
  if (status != FTPOOL_OK)
    return status;
  struct cache_entry *e = entry_for(pool, path);
  ftpool_blob *seen = e ? ptr_load_acquire(&e->blob) : NULL;
  FTPOOL_TEST_HOOK(FTPOOL_HOOK_LOOKED_UP);
  if (seen && ftpool__blob_try_acquire(seen)) {
    /* A header reused for another file since we loaded it shows here. */
    if (ftpool__same_identity(&seen->identity, &now)) {
      counter_add_relaxed(&cache->hits, 1);
      *out = seen;
      return FTPOOL_OK;
    }
    ftpool__blob_drop(seen);
  }
  counter_add_relaxed(&cache->misses, 1);
  ftpool_blob *fresh;
  status = ftpool__blob_load_file(pool, path, &fresh);
  if (status != FTPOOL_OK)
    return status;
  counter_add_relaxed(&cache->loads, 1);
  if (e)
    offer(pool, e, seen, fresh);
  *out = fresh;
  return FTPOOL_OK;
}

void ftpool__file_cache_stats(struct file_cache *cache, ftpool_stats *s) {
  s->blob_hits = counter_load_relaxed(&cache->hits);
  s->blob_misses = counter_load_relaxed(&cache->misses);
  s->blob_loads = counter_load_relaxed(&cache->loads);
  s->blob_evictions = counter_load_relaxed(&cache->evictions);
  s->blob_bytes_cached = counter_load_relaxed(&cache->bytes);
}

void ftpool__file_cache_fini(ftpool *pool) {
  for (size_t i = 0; i < FILE_CACHE_BUCKETS; i++) {
    /* Relaxed: ftpool_destroy comes after every other call (its contract). */
    struct cache_entry *e = ptr_load_relaxed(&pool->files.buckets[i]);
    while (e) {
      struct cache_entry *next = e->next;
      ftpool_blob *b = ptr_load_relaxed(&e->blob);
      if (b)
        ftpool__blob_drop(b);
      ftpool__memory_free(pool->memory, e);
      e = next;
    }
  }
}
