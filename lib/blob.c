#include "blob.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errors.h"
#include "file_cache.h"
#include "memory.h"
#include "pool.h"

void ftpool__blob_store_init(struct blob_store *store) {
  ptr_init(&store->all, NULL);
  ptr_init(&store->free, NULL);
  counter_init(&store->live_bytes);
}

static void push_free(struct blob_store *store, ftpool_blob *first,
                      ftpool_blob *last) {
  void *head = ptr_load_relaxed(&store->free);
  do {
    last->free_next = head;
    /* Release pairs with take_header's acquire exchange: the last use of
     * each header happens before its reuse. */
  } while (!ptr_cas_release(&store->free, &head, first));
}

/* A header from the free list, or a new one. The whole list is taken with
 * one exchange and the rest pushed back, so there is no ABA. */
static ftpool_blob *take_header(ftpool *pool) {
  struct blob_store *store = &pool->blobs;
  ftpool_blob *b = ptr_exchange_acquire(&store->free, NULL);
  if (b) {
    ftpool_blob *rest = b->free_next;
    if (rest) {
      ftpool_blob *last = rest;
      while (last->free_next)
        last = last->free_next;
      push_free(store, rest, last);
    }
    return b;
  }
  b = ftpool__memory_alloc(pool->memory, sizeof *b);
  if (!b)
    return NULL;
  refcount_init(&b->refs);
  void *head = ptr_load_relaxed(&store->all);
  do
    b->all_next = head;
  while (!ptr_cas_release(&store->all, &head, b));
  return b;
}

struct blob_source {
  const void *bytes;
  size_t size;
  bool owned;
  void (*release)(void *arg);
  void *release_arg;
  struct file_identity identity;
};

/* A blob with one reference, or NULL. Every field is written before the
 * counter leaves zero. */
static ftpool_blob *publish(ftpool *pool, const struct blob_source *src) {
  ftpool_blob *b = take_header(pool);
  if (!b)
    return NULL;
  b->pool = pool;
  b->bytes = src->bytes;
  b->size = src->size;
  b->owned = src->owned;
  b->release = src->release;
  b->release_arg = src->release_arg;
  b->identity = src->identity;
  if (src->owned)
    counter_add_relaxed(&pool->blobs.live_bytes, src->size);
  /* Release pairs with ftpool__blob_try_acquire's acquire CAS: a reader that
   * gets a reference to a reused header sees these fields, not the old. */
  refcount_store_release(&b->refs, 1);
  return b;
}

static void free_bytes(ftpool_blob *b) {
  if (b->owned) {
    counter_sub_relaxed(&b->pool->blobs.live_bytes, b->size);
    ftpool__memory_free(b->pool->memory, (void *)b->bytes);
  } else if (b->release) {
    b->release(b->release_arg);
  }
}

static struct file_identity identity_of(const struct stat *st) {
  return (struct file_identity){st->st_dev, st->st_ino, st->st_size,
                                st->st_mtim.tv_sec, st->st_mtim.tv_nsec};
}

ftpool_status ftpool__file_identity(const char *path,
                                    struct file_identity *identity) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
    return ftpool__fail(FTPOOL_ERR_CANNOT_OPEN);
  *identity = identity_of(&st);
  return FTPOOL_OK;
}

static bool read_all(int fd, unsigned char *bytes, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t got = pread(fd, bytes + done, size - done, (off_t)done);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    done += (size_t)got;
  }
  return true;
}

ftpool_status ftpool__blob_load_file(ftpool *pool, const char *path,
                                     ftpool_blob **out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ftpool__fail(FTPOOL_ERR_CANNOT_OPEN);
  struct stat st;
  ftpool_status status = FTPOOL_OK;
  unsigned char *bytes = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    status = FTPOOL_ERR_CANNOT_OPEN;
  else if (st.st_size == 0)
    status = FTPOOL_ERR_UNKNOWN_FORMAT;
  else if (!(bytes = ftpool__memory_alloc_raw(pool->memory, st.st_size)))
    status = FTPOOL_ERR_OUT_OF_MEMORY;
  else if (!read_all(fd, bytes, (size_t)st.st_size))
    status = FTPOOL_ERR_CANNOT_OPEN;
  close(fd);
  if (status == FTPOOL_OK) {
    struct blob_source src = {bytes, (size_t)st.st_size, true, NULL,
                              NULL,  identity_of(&st)};
    if (!(*out = publish(pool, &src)))
      status = FTPOOL_ERR_OUT_OF_MEMORY;
  }
  if (status != FTPOOL_OK) {
    ftpool__memory_free(pool->memory, bytes);
    return ftpool__fail(status);
  }
  return FTPOOL_OK;
}

void ftpool__blob_retain(ftpool_blob *b) { refcount_add_relaxed(&b->refs); }

bool ftpool__blob_try_acquire(ftpool_blob *b) {
  size_t refs = refcount_load_relaxed(&b->refs);
  while (refs != 0) {
    /* Acquire pairs with publish's release store (and the release sequence
     * of every later increment and decrement): the fields are the new
     * blob's. */
    if (refcount_cas_acquire(&b->refs, &refs, refs + 1))
      return true;
  }
  return false;
}

void ftpool__blob_drop(ftpool_blob *b) {
  /* acq_rel: every holder's reads of the bytes happen before they are
   * freed by the one that drops the last reference. */
  if (refcount_sub_acq_rel(&b->refs) != 0)
    return;
  free_bytes(b);
  push_free(&b->pool->blobs, b, b);
}

bool ftpool__same_identity(const struct file_identity *a,
                           const struct file_identity *b) {
  return a->device == b->device && a->inode == b->inode && a->size == b->size &&
         a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

void ftpool__blob_store_fini(ftpool *pool) {
  ftpool_blob *b = ptr_load_acquire(&pool->blobs.all);
  while (b) {
    ftpool_blob *next = b->all_next;
    if (refcount_load_relaxed(&b->refs) != 0)
      free_bytes(b);
    ftpool__memory_free(pool->memory, b);
    b = next;
  }
}

ftpool_status ftpool_blob_from_file(ftpool *pool, const char *path,
                                    ftpool_blob **blob) {
  if (!pool || !path || !blob)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *blob = NULL;
  if (pool->files.budget == 0)
    return ftpool__blob_load_file(pool, path, blob);
  return ftpool__file_cache_get(pool, path, blob);
}

ftpool_status ftpool_blob_from_memory(ftpool *pool, const void *data,
                                      size_t size, void (*release)(void *arg),
                                      void *release_arg, ftpool_blob **blob) {
  if (!pool || !data || size == 0 || size > (size_t)FT_LONG_MAX || !blob)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  struct blob_source src = {data, size, false, release, release_arg, {0}};
  *blob = publish(pool, &src);
  return *blob ? FTPOOL_OK : ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
}

ftpool_status ftpool_blob_copy(ftpool *pool, const void *data, size_t size,
                               ftpool_blob **blob) {
  if (!pool || !data || size == 0 || size > (size_t)FT_LONG_MAX || !blob)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *blob = NULL;
  unsigned char *copy = ftpool__memory_alloc_raw(pool->memory, size);
  if (!copy)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  memcpy(copy, data, size);
  struct blob_source src = {copy, size, true, NULL, NULL, {0}};
  if (!(*blob = publish(pool, &src))) {
    ftpool__memory_free(pool->memory, copy);
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  }
  return FTPOOL_OK;
}

ftpool_status ftpool_blob_retain(ftpool_blob *blob) {
  if (!blob)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  ftpool__blob_retain(blob);
  return FTPOOL_OK;
}

void ftpool_blob_release(ftpool_blob *blob) {
  if (blob)
    ftpool__blob_drop(blob);
}

const void *ftpool_blob_data(const ftpool_blob *blob, size_t *size) {
  if (size)
    *size = blob ? blob->size : 0;
  return blob ? blob->bytes : NULL;
}
