/* SPDX-License-Identifier: MIT */
/*
 * The file cache's lookup (lib/file_cache.c; docs/design.md, "Blobs and the
 * file cache", steps 2 to 4), on the unmodified blobs (lib/blob.c,
 * lib/chunked.c), with an empty store and cache. Thread 0 opens file ds
 * and closes it: it adds ds's entry, loads the file into a header of the
 * chunk it makes, and caches it. Thread 1 opens ds after it (a relaxed
 * flag: later in time, with nothing ordering thread 0's writes before its
 * reads) and closes it: it may find thread 0's entry, or miss it and then
 * lose its CAS on the bucket to it and find it among the entries pushed
 * since its look, and it may hit the blob thread 0 cached, whose header's
 * chunk it never touched, or miss it, load its own copy and lose or win
 * its offer.
 * The entries' fields, the headers and the blobs' fields and bytes are
 * plain: a thread that reaches one without the order that published it
 * races with its initialisation (or reads memory not allocated for it).
 * Asserted: each open returns the file's bytes, with a reference of its
 * own; at the end ds has one entry, holding the cached blob (its only
 * reference), the byte counts are what the cache holds, and the hits and
 * misses add up.
 *
 * Checks: file_cache.c
 * GenMC options: --disable-estimation
 */
#include "test/genmc/harness.h"

#include <genmc.h>

#include "test/genmc/blob_shims.h"

#include "lib/blob.c"
#include "lib/chunked.c"
#include "lib/file_cache.c"

static ftpool pool;
static _Atomic(int) done; /* thread 0 is done: relaxed, orders nothing */

static void *thread(void *arg) {
  if (arg)
    __VERIFIER_assume(atomic_load_explicit(&done, memory_order_relaxed));
  ftpool_blob *b;
  assert(ftpool_blob_from_file(&pool, "ds", &b) == FTPOOL_OK);
  assert(b->pool == &pool && b->size == 1 && b->owned);
  assert(b->bytes[0] == 'd' && b->identity.inode == 'd');
  ftpool__blob_drop(b);
  if (!arg)
    atomic_store_explicit(&done, 1, memory_order_relaxed);
  return NULL;
}

int main(void) {
  pool.memory = NULL;
  ftpool__blob_store_init(&pool.blobs);
  /* ftpool__file_cache_init(&pool.files, 2), but for its 256 stores of
   * NULL, which every execution would repeat: the pool is static, so its
   * buckets and counts are zero already. Two copies fit: no eviction. */
  pool.files.budget = 2;
  harness_run(2, thread);

  struct file_cache *cache = &pool.files;
  struct cache_entry *e = ptr_load_relaxed(&cache->buckets[0]);
  assert(e && !e->next && strcmp(e->path, "ds") == 0);
  ftpool_blob *b = ptr_load_relaxed(&e->blob);
  assert(b && refcount_load_relaxed(&b->refs) == 1 && b->bytes[0] == 'd');
  assert(counter_load_relaxed(&cache->bytes) == 1);
  assert(counter_load_relaxed(&pool.blobs.live_bytes) == 1);
  ftpool_stats stats;
  ftpool__file_cache_stats(cache, &stats);
  assert(stats.blob_hits + stats.blob_misses == 2 && stats.blob_misses >= 1);
  assert(stats.blob_loads == stats.blob_misses && stats.blob_evictions == 0);
  /* ftpool__file_cache_fini(&pool), but for its walk of every bucket. */
  ftpool__blob_drop(b);
  ftpool__memory_free(NULL, e);
  assert(counter_load_relaxed(&pool.blobs.live_bytes) == 0);
  ftpool__blob_store_fini(&pool);
  return 0;
}
