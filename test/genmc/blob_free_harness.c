/* SPDX-License-Identifier: MIT */
/*
 * The blob header free list (lib/blob.c; docs/design.md, "The header free
 * list": a Treiber stack of indices, its head tagged with a count of pops),
 * on an empty store, so that the headers' chunk is made by a thread:
 *   thread 0 makes blobs a and c over its own bytes, then drops c and a:
 *     two pushes, so the head can change between a pop's first look and
 *     its CAS;
 *   thread 1 makes blob b, popping a's or c's header (in a chunk only
 *     thread 0 has touched, with the fields thread 0 read while freeing
 *     it) or making a new one, and keeps it.
 * Blobs over the caller's bytes, whose release callback the last drop runs
 * (so no counter of owned bytes adds orderings to explore); the header
 * protocol is the same for both lists. The fields and bytes are plain: a
 * pop that does not see the push it pops is a race with the header's last
 * use (and may read a stale next, losing a header). Asserted: b is whole;
 * a and c were released once each, b not; at the end the free list holds
 * each header but b's exactly once, free.
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
static int released[2]; /* per maker: plain, run by thread 0 and main */

static void release(void *arg) {
  unsigned char *bytes = arg;
  released[bytes[1]]++;
  free(bytes);
}

static ftpool_blob *make(char name, int thread) {
  unsigned char *bytes = malloc(2);
  bytes[0] = (unsigned char)name;
  bytes[1] = (unsigned char)thread;
  ftpool_blob *b;
  assert(ftpool_blob_from_memory(&pool, bytes, 1, release, bytes, &b) ==
         FTPOOL_OK);
  assert(b->pool == &pool && !b->owned && b->size == 1);
  assert(b->bytes == bytes && b->release_arg == bytes && b->bytes[0] == name);
  return b;
}

static ftpool_blob *kept;

static void *thread(void *arg) {
  if (arg == 0) {
    ftpool_blob *a = make('a', 0);
    ftpool_blob *c = make('c', 0);
    ftpool__blob_drop(c);
    ftpool__blob_drop(a);
  } else {
    kept = make('b', 1);
  }
  return NULL;
}

int main(void) {
  pool.memory = NULL;
  pool.files.budget = 0; /* no file cache */
  ftpool__blob_store_init(&pool.blobs);
  harness_run(2, thread);
  assert(released[0] == 2 && released[1] == 0);
  struct blob_store *store = &pool.blobs;
  size_t made = counter_load_relaxed(&store->made), listed = 0;
  uint64_t seen = 1u << kept->index; /* a bit per header index */
  assert((uint32_t)u64_load_relaxed(&store->free[true]) == 0);
  for (uint32_t top = (uint32_t)u64_load_relaxed(&store->free[false]); top;
       listed++) {
    ftpool_blob *b = header_at(store, top - 1);
    assert(refcount_load_relaxed(&b->refs) == 0 && !b->owned);
    assert(b->index == top - 1 && !(seen & 1u << b->index));
    seen |= 1u << b->index;
    top = (uint32_t)word_load_relaxed(&b->free_next);
  }
  assert(listed + 1 == made && made <= 3);
  ftpool__blob_drop(kept);
  assert(released[1] == 1);
  ftpool__blob_store_fini(&pool);
  return 0;
}
