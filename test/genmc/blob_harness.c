/* SPDX-License-Identifier: MIT */
/*
 * Blob references (lib/blob.c; docs/design.md, "Blobs and the file cache":
 * "Taking a reference without a lock"), on an empty store:
 *   thread 0 loads file a, shows it (a release store of the harness's, as
 *     the file cache's entry would: file_cache_harness.c checks that), and
 *     drops it; then loads file b, in a's header when a is dead and its
 *     header free by then, and drops it;
 *   thread 1, a reader holding that stale header pointer, takes a reference
 *     if its count is not zero (ftpool__blob_try_acquire), reads the blob
 *     and drops it: it holds a (and may drop its last reference, freeing
 *     its bytes and pushing its header for thread 0 to pop), or b (the
 *     header reused meanwhile), or finds it dead.
 * The blobs' fields and bytes are plain: a reference that does not see its
 * blob's publication, a reuse of a header another thread still reads, and
 * a last drop's free of bytes another holder read are each a race (or a
 * use after free). Asserted: every blob a thread holds is whole (identity,
 * bytes, size and pool belong together); at the end no bytes are counted
 * live, and the free list holds each header made exactly once, free.
 *
 * Checks: blob.c
 * GenMC options: --disable-estimation
 */
#include "test/genmc/harness.h"

#include "test/genmc/blob_shims.h"

#include "lib/blob.c"
#include "lib/chunked.c"

/* Shim: the file cache (file_cache_harness.c checks it); the pool here has
 * none, so ftpool_blob_from_file never calls it. */
ftpool_status ftpool__file_cache_get(ftpool *pool, const char *path,
                                     ftpool_blob **blob) {
  (void)pool;
  (void)path;
  (void)blob;
  assert(0);
  return FTPOOL_ERR_CANNOT_OPEN;
}

static ftpool pool;
/* The stale pointer thread 1 reads. */
static _Atomic(ftpool_blob *) shown;

static void check(ftpool_blob *b) {
  assert(b->pool == &pool);
  assert(b->size == 1 && b->owned);
  assert(b->bytes[0] == b->identity.inode);
}

static ftpool_blob *load(const char *path) {
  ftpool_blob *b;
  assert(ftpool_blob_from_file(&pool, path, &b) == FTPOOL_OK);
  check(b);
  assert(b->bytes[0] == path[0]);
  return b;
}

static void *thread(void *arg) {
  if (arg == 0) {
    ftpool_blob *a = load("a");
    atomic_store_explicit(&shown, a, memory_order_release);
    ftpool__blob_drop(a);
    ftpool__blob_drop(load("b"));
  } else {
    ftpool_blob *b = atomic_load_explicit(&shown, memory_order_acquire);
    if (b && ftpool__blob_try_acquire(b)) {
      check(b);
      ftpool__blob_drop(b);
    }
  }
  return NULL;
}

/* Every header made is on the free list of blobs that are (or are not)
 * owned, once, with no reference; returns how many. */
static size_t check_free_list(bool owned) {
  struct blob_store *store = &pool.blobs;
  size_t listed = 0;
  uint64_t seen = 0; /* a bit per header index */
  for (uint32_t top = (uint32_t)u64_load_relaxed(&store->free[owned]); top;
       listed++) {
    ftpool_blob *b = header_at(store, top - 1);
    assert(refcount_load_relaxed(&b->refs) == 0 && b->owned == owned);
    assert(b->index == top - 1 && !(seen & 1u << b->index));
    seen |= 1u << b->index;
    top = (uint32_t)word_load_relaxed(&b->free_next);
  }
  return listed;
}

int main(void) {
  pool.memory = NULL;
  pool.files.budget = 0; /* no file cache */
  ftpool__blob_store_init(&pool.blobs);
  harness_run(2, thread);
  assert(counter_load_relaxed(&pool.blobs.live_bytes) == 0);
  size_t made = counter_load_relaxed(&pool.blobs.made);
  assert(check_free_list(false) == 0 && check_free_list(true) == made);
  assert(made >= 1 && made <= 2);
  ftpool__blob_store_fini(&pool);
  return 0;
}
