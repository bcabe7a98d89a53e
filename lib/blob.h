/* SPDX-License-Identifier: MIT */
/*
 * Blobs: the immutable bytes of a font, shared by every thread and every
 * face opened on them, reference-counted.
 *
 * A blob's header is never freed while its pool lives: when the last
 * reference goes, its bytes are freed and the header goes to the pool's free
 * list for the next blob. That is what lets the file cache hand out
 * references without a lock or hazard pointers: a reader that loaded a
 * header pointer may always touch its counter, and takes a reference only if
 * the counter is not zero (blob_try_acquire); it then checks the blob is
 * still the one it wanted (its file identity), since the header may have been
 * reused meanwhile.
 *
 * Headers live in chunks, each allocated once and freed with the pool, so a
 * header has a fixed index; a free list is a stack of indices whose head
 * carries a count of pops, so a pop cannot suffer ABA and a thread never
 * makes a new header while a free one is on the list. There are two free
 * lists, and a header stays on one for its life: headers of blobs whose
 * bytes the pool owns (files, copies) and headers of blobs over the
 * caller's bytes. A file cache reader holding a stale header pointer can
 * then only ever take a reference to pool-owned bytes, and dropping it can
 * never run a caller's release callback on the reader's thread.
 */
#ifndef FTPOOL_BLOB_H
#define FTPOOL_BLOB_H

#include <stdbool.h>

#include "atomics.h"
#include "chunked.h"
#include "ftpool.h"
#include "platform.h"

struct ftpool_blob {
  atomic_refcount refs;
  /* Set before the blob is published (refs 0 -> 1, release) and fixed until
   * refs returns to 0. */
  ftpool *pool;
  const unsigned char *bytes;
  size_t size;
  void (*release)(void *arg); /* unless owned: when the last reference goes */
  void *release_arg;
  struct file_identity identity;
  /* Unique to this blob among the pool's, never reused with the header:
   * what the glyph cache keys bytes not from a file by. */
  uint64_t serial;
  /* Fixed for the header's life. */
  uint32_t index; /* in the store */
  bool owned;     /* bytes allocated by the pool; the free list it is on */
  atomic_word free_next; /* index + 1 of the next free header; 0 ends */
};

/* The pool's blob headers: all of them, and the free ones. */
struct blob_store {
  struct chunked headers;
  atomic_counter made; /* indices handed out */
  /* The free stacks, of headers with owned false and true: (pops << 32) |
   * (index + 1 of the top header), or a count of pops alone when empty. */
  atomic_u64 free[2];
  atomic_counter live_bytes; /* bytes of live blobs the pool owns */
  atomic_u64 serials;        /* the last blob's serial */
};

void ftpool__blob_store_init(struct blob_store *store);

/* Frees every header and the bytes of blobs still live. Single-threaded. */
void ftpool__blob_store_fini(ftpool *pool);

/* The identity of the regular file at path, or FTPOOL_ERR_CANNOT_OPEN. */
ftpool_status ftpool__file_identity(const char *path,
                                    struct file_identity *identity);

/* Reads a regular file into a new blob with one reference. */
ftpool_status ftpool__blob_load_file(ftpool *pool, const char *path,
                                     ftpool_blob **blob);

/* Another reference, for a caller that holds one. */
void ftpool__blob_retain(ftpool_blob *blob);

/* A reference to a blob the caller holds none of, unless it is dead. */
bool ftpool__blob_try_acquire(ftpool_blob *blob);

/* Gives back one reference; NULL is a no-op. */
void ftpool__blob_drop(ftpool_blob *blob);

bool ftpool__same_identity(const struct file_identity *a,
                           const struct file_identity *b);

#endif /* FTPOOL_BLOB_H */
