/* SPDX-License-Identifier: MIT */
/*
 * The pool's file cache: a path's current bytes as a shared blob, so opening
 * a face by path makes one stat() and no open/mmap/munmap on a hit.
 *
 * A fixed array of buckets, each a push-only list of entries, one per path,
 * never freed while the pool lives (readers need no hazard pointers; the
 * pool holds one entry per distinct path it was asked for). An entry's `blob`
 * is the cached version, holding one reference, or NULL; it is replaced with
 * a CAS when the file changed and cleared with a CAS on eviction.
 */
#ifndef FTPOOL_FILE_CACHE_H
#define FTPOOL_FILE_CACHE_H

#include "atomics.h"
#include "blob.h"

#define FILE_CACHE_BUCKETS 256

struct file_cache {
  size_t budget; /* bytes the cache may hold; 0 turns it off */
  atomic_counter bytes;
  atomic_counter hits;
  atomic_counter misses;
  atomic_counter loads;
  atomic_counter evictions;
  atomic_ptr buckets[FILE_CACHE_BUCKETS];
};

void ftpool__file_cache_init(struct file_cache *cache, size_t budget);

/* A reference to the blob of path's current version: cached, or loaded (and
 * cached if it fits the budget). Never waits for another thread: threads
 * that miss together each load, one publishes, the others keep their own. */
ftpool_status ftpool__file_cache_get(ftpool *pool, const char *path,
                                     ftpool_blob **blob);

void ftpool__file_cache_stats(struct file_cache *cache, ftpool_stats *stats);

/* Drops the cache's references and frees the entries. Single-threaded. */
void ftpool__file_cache_fini(ftpool *pool);

#endif /* FTPOOL_FILE_CACHE_H */
