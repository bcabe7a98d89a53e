/* SPDX-License-Identifier: MIT */
/*
 * The file cache's eviction (lib/file_cache.c; docs/design.md, "Blobs and
 * the file cache", step 4), on the unmodified blobs (lib/blob.c,
 * lib/chunked.c), with a budget of one file (each is one byte). The pool
 * first made 16 blobs, 15 over the caller's bytes, dropped, and a copy
 * that thread 1 holds, so the headers' first chunk is full. Thread 0 opens
 * file ds (bucket 0), whose blob's header is in a second chunk that it
 * makes, and closes it. Thread 1, after it (a relaxed flag: later in time,
 * with nothing ordering thread 0's writes before its reads), drops its
 * copy and opens file lp (bucket 1) on the header that frees (so it never
 * touches the second chunk): caching lp puts the cache over budget, so it
 * evicts ds, from an entry it never looked up, of a blob whose header and
 * chunk it has never seen; then closes lp.
 * The entries' fields, the headers and the blobs' fields and bytes are
 * plain: a thread that reaches one without the order that published it
 * races with its initialisation (or reads memory not allocated for it).
 * Asserted: each open returns the file's bytes; at the end there are two
 * entries, the byte counts are what the cache holds, every blob not cached
 * is freed, and an eviction was counted for each file cached and gone.
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
static const char *const paths[2] = {"ds", "lp"};
static ftpool_blob *copy; /* made by main, dropped by thread 1 */
static _Atomic(int) done; /* thread 0 is done: relaxed, orders nothing */

static void open_close(const char *path) {
  ftpool_blob *b;
  assert(ftpool_blob_from_file(&pool, path, &b) == FTPOOL_OK);
  assert(b->pool == &pool && b->size == 1 && b->owned);
  assert(b->bytes[0] == path[0] && b->identity.inode == (uint64_t)path[0]);
  ftpool__blob_drop(b);
}

static void *thread(void *arg) {
  if (arg == 0) {
    open_close("ds");
    atomic_store_explicit(&done, 1, memory_order_relaxed);
  } else {
    __VERIFIER_assume(atomic_load_explicit(&done, memory_order_relaxed));
    ftpool__blob_drop(copy);
    open_close("lp");
  }
  return NULL;
}

static void prepare(void) {
  static const unsigned char byte = 'x';
  ftpool_blob *b[15];
  for (int i = 0; i < 15; i++)
    assert(ftpool_blob_from_memory(&pool, &byte, 1, NULL, NULL, &b[i]) ==
           FTPOOL_OK);
  assert(ftpool_blob_copy(&pool, &byte, 1, &copy) == FTPOOL_OK);
  for (int i = 0; i < 15; i++)
    ftpool_blob_release(b[i]);
}

int main(void) {
  pool.memory = NULL;
  ftpool__blob_store_init(&pool.blobs);
  /* ftpool__file_cache_init(&pool.files, 1), but for its 256 stores of
   * NULL, which every execution would repeat: the pool is static, so its
   * buckets and counts are zero already. */
  pool.files.budget = 1;
  prepare();
  harness_run(2, thread);

  struct file_cache *cache = &pool.files;
  size_t held = 0;
  for (int i = 0; i < 2; i++) {
    struct cache_entry *e = ptr_load_relaxed(&cache->buckets[i]);
    assert(e && !e->next && strcmp(e->path, paths[i]) == 0);
    ftpool_blob *b = ptr_load_relaxed(&e->blob);
    if (b) {
      held++;
      assert(refcount_load_relaxed(&b->refs) == 1 && b->bytes[0] == e->path[0]);
      ftpool__blob_drop(b); /* ftpool__file_cache_fini, but for its walk */
    }
    ftpool__memory_free(NULL, e);
  }
  /* Over budget only if thread 1 did not see ds cached yet. */
  assert(held >= 1 && counter_load_relaxed(&cache->bytes) == held);
  ftpool_stats stats;
  ftpool__file_cache_stats(cache, &stats);
  assert(stats.blob_misses == 2 && stats.blob_loads == 2);
  assert(stats.blob_evictions + held == 2);
  assert(counter_load_relaxed(&pool.blobs.live_bytes) == 0);
  ftpool__blob_store_fini(&pool);
  return 0;
}
