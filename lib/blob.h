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
 */
#ifndef FTPOOL_BLOB_H
#define FTPOOL_BLOB_H

#include <stdbool.h>
#include <sys/types.h>

#include "atomics.h"
#include "ftpool.h"

/* Which version of which file a blob holds; all zero for bytes from memory. */
struct file_identity {
  dev_t device;
  ino_t inode;
  off_t size;
  long mtime_sec;
  long mtime_nsec;
};

struct ftpool_blob {
  atomic_refcount refs;
  /* Set before the blob is published (refs 0 -> 1, release) and fixed until
   * refs returns to 0. */
  ftpool *pool;
  const unsigned char *bytes;
  size_t size;
  bool owned;                 /* bytes allocated by the pool */
  void (*release)(void *arg); /* else called when the last reference goes */
  void *release_arg;
  struct file_identity identity;
  /* Fixed for the header's life. */
  struct ftpool_blob *all_next; /* every header of the pool */
  struct ftpool_blob *free_next;
};

/* The pool's blob headers: all of them, and the free ones. */
struct blob_store {
  atomic_ptr all;
  atomic_ptr free;
  atomic_counter live_bytes; /* bytes of live blobs the pool owns */
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

void ftpool__blob_drop(ftpool_blob *blob);

bool ftpool__same_identity(const struct file_identity *a,
                           const struct file_identity *b);

#endif /* FTPOOL_BLOB_H */
