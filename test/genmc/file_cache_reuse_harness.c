/* SPDX-License-Identifier: MIT */
/*
 * A replacement of a file's blob whose header was reused under the thread
 * replacing it (lib/file_cache.c's offer, on the unmodified lib/blob.c and
 * lib/chunked.c; docs/design.md, "Blobs and the file cache": "Taking a
 * reference without a lock"), with a budget of one file (each is one
 * byte). The pool cached file ds at version 1, in header H, then the file
 * changed. Thread 1 opens ds twice, closing it each time, the file
 * changing again in between: the first open replaces H's blob with
 * version 2, and H is freed; the second replaces that with version 3,
 * loaded into H, popped from the free list. So ds's entry holds H again,
 * with another blob (ABA). Then (a relaxed flag: later in time, with
 * nothing ordering thread 1's writes before its reads) thread 0 opens ds:
 * it may still read H from the entry and find it dead (a stale count), so
 * load the file and offer its copy in place of H; its CAS then takes H's
 * new blob from the entry, whose size and reference it must see.
 * The blobs' fields and bytes are plain: reading the new blob's size
 * without the order of the CAS that took it from the entry races with
 * thread 1's publication of it. Asserted: each open returns the file's
 * bytes, of a version at least the one it saw; at the end the byte counts
 * are what the cache holds, and every blob not cached is freed.
 *
 * Checks: file_cache.c
 * GenMC options: --disable-estimation
 */
#include "test/genmc/harness.h"

/* What thread 0 opens, and the buckets that then hold a file:
 * file_cache_reuse_evict_harness.c opens another file, and evicts. */
#ifndef REUSE_SECOND_FILE
#define REUSE_SECOND_FILE "ds"
#define REUSE_BUCKETS 1
#endif

#include <genmc.h>

#include "test/genmc/blob_shims.h"

#include "lib/blob.c"
#include "lib/chunked.c"
#include "lib/file_cache.c"

static ftpool pool;
static _Atomic(int) done; /* thread 1 is done: relaxed, orders nothing */

static void open_close(const char *path, int version) {
  ftpool_blob *b;
  assert(ftpool_blob_from_file(&pool, path, &b) == FTPOOL_OK);
  assert(b->pool == &pool && b->size == 1 && b->owned);
  assert(b->bytes[0] == path[0] && b->identity.inode == (uint64_t)path[0]);
  assert(b->identity.mtime_sec >= version);
  ftpool__blob_drop(b);
}

static void *thread(void *arg) {
  if (arg) {
    open_close("ds", 2);
    atomic_store_explicit(&file_version, 3, memory_order_relaxed);
    open_close("ds", 3);
    atomic_store_explicit(&done, 1, memory_order_relaxed);
  } else {
    __VERIFIER_assume(atomic_load_explicit(&done, memory_order_relaxed));
    open_close(REUSE_SECOND_FILE, 2);
  }
  return NULL;
}

int main(void) {
  pool.memory = NULL;
  ftpool__blob_store_init(&pool.blobs);
  /* ftpool__file_cache_init(&pool.files, 1), but for its 256 stores of
   * NULL, which every execution would repeat: the pool is static, so its
   * buckets and counts are zero already. */
  pool.files.budget = 1;
  atomic_store_explicit(&file_version, 1, memory_order_relaxed);
  open_close("ds", 1);
  atomic_store_explicit(&file_version, 2, memory_order_relaxed);
  harness_run(2, thread);

  struct file_cache *cache = &pool.files;
  size_t held = 0;
  for (int i = 0; i < REUSE_BUCKETS; i++) { /* ds's bucket (then lp's) */
    struct cache_entry *e = ptr_load_relaxed(&cache->buckets[i]);
    assert(e && !e->next);
    ftpool_blob *b = ptr_load_relaxed(&e->blob);
    if (b) {
      held++;
      assert(refcount_load_relaxed(&b->refs) == 1 && b->bytes[0] == e->path[0]);
      ftpool__blob_drop(b); /* ftpool__file_cache_fini, but for its walk */
    }
    ftpool__memory_free(NULL, e);
  }
  assert(counter_load_relaxed(&cache->bytes) == held);
  assert(counter_load_relaxed(&pool.blobs.live_bytes) == 0);
  ftpool__blob_store_fini(&pool);
  return 0;
}
