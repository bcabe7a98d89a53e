/* SPDX-License-Identifier: MIT */
#include "blob.h"

#include <string.h>

#include "errors.h"
#include "file_cache.h"
#include "memory.h"
#include "no_cancel.h"
#include "pool.h"

void ftpool__blob_store_init(struct blob_store *store) {
  ftpool__chunked_init(&store->headers);
  counter_init(&store->made);
  u64_init(&store->free[false], 0);
  u64_init(&store->free[true], 0);
  counter_init(&store->live_bytes);
  u64_init(&store->serials, 0);
}

static void init_header(void *element, size_t index) {
  ftpool_blob *b = element;
  refcount_init(&b->refs);
  b->index = (uint32_t)index;
  word_init(&b->free_next, 0);
}

static ftpool_blob *header_at(struct blob_store *store, size_t index) {
  return ftpool__chunked_find(&store->headers, sizeof(ftpool_blob), index);
}

/* A header never used before, for blobs that are (or are not) `owned`. The
 * index is taken only once its chunk exists, so running out of memory uses
 * none up. */
static ftpool_blob *new_header(ftpool *pool, bool owned) {
  struct blob_store *store = &pool->blobs;
  size_t index = counter_load_relaxed(&store->made);
  for (;;) {
    if (index >= UINT32_MAX)
      return NULL;
    ftpool_blob *b = ftpool__chunked_get(
        &store->headers, pool->memory, sizeof(ftpool_blob), index, init_header);
    if (!b)
      return NULL;
    /* Relaxed: the CAS only hands each index to one thread; the header's
     * initial state comes with its chunk (chunked_get's acquire). */
    if (counter_cas_relaxed(&store->made, &index, index + 1)) {
      b->owned = owned;
      return b;
    }
  }
}

static ftpool_blob *pop_free(struct blob_store *store, bool owned) {
  atomic_u64 *free = &store->free[owned];
  uint64_t head = u64_load_acquire(free);
  for (;;) {
    uint32_t top = (uint32_t)head;
    if (top == 0)
      return NULL;
    ftpool_blob *b = header_at(store, top - 1);
    uint64_t next = word_load_relaxed(&b->free_next);
    /* The count in the high half changes with every pop, so the CAS fails if
     * the top was popped (and maybe pushed back) since we read its next.
     * Acquire pairs with push_free's release: the header's last use happens
     * before its reuse. */
    if (u64_cas_acquire(free, &head, ((head >> 32) + 1) << 32 | next))
      return b;
  }
}

static void push_free(struct blob_store *store, ftpool_blob *b) {
  atomic_u64 *free = &store->free[b->owned];
  uint64_t head = u64_load_relaxed(free);
  do
    word_store_relaxed(&b->free_next, (uint32_t)head);
  while (!u64_cas_release(free, &head,
                          (head & ~(uint64_t)UINT32_MAX) | (b->index + 1u)));
}

/* A free header of the right list, or a new one when none is free. */
static ftpool_blob *take_header(ftpool *pool, bool owned) {
  ftpool_blob *b = pop_free(&pool->blobs, owned);
  return b ? b : new_header(pool, owned);
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
  ftpool_blob *b = take_header(pool, src->owned);
  if (!b)
    return NULL;
  b->pool = pool;
  b->bytes = src->bytes;
  b->size = src->size;
  b->release = src->release;
  b->release_arg = src->release_arg;
  b->identity = src->identity;
  b->serial = u64_add_relaxed(&pool->blobs.serials, 1);
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
    int cancel = ftpool__cancel_off();
    b->release(b->release_arg);
    ftpool__cancel_restore(cancel);
  }
}

ftpool_status ftpool__file_identity(const char *path,
                                    struct file_identity *identity) {
  if (!ftpool__platform_file_identity(path, identity))
    return ftpool__fail(FTPOOL_ERR_CANNOT_OPEN);
  return FTPOOL_OK;
}

ftpool_status ftpool__blob_load_file(ftpool *pool, const char *path,
                                     ftpool_blob **out) {
  struct platform_file file;
  struct file_identity identity;
  int cancel = ftpool__cancel_off();
  if (!ftpool__platform_open(path, &file, &identity)) {
    ftpool__cancel_restore(cancel);
    return ftpool__fail(FTPOOL_ERR_CANNOT_OPEN);
  }
  ftpool_status status = FTPOOL_OK;
  unsigned char *bytes = NULL;
  if (identity.size == 0)
    status = FTPOOL_ERR_UNKNOWN_FORMAT;
  else if (!(bytes = ftpool__memory_alloc_raw(pool->memory, identity.size)))
    status = FTPOOL_ERR_OUT_OF_MEMORY;
  else if (!ftpool__platform_read(&file, bytes, identity.size))
    status = FTPOOL_ERR_CANNOT_OPEN;
  ftpool__platform_close(&file);
  ftpool__cancel_restore(cancel);
  if (status == FTPOOL_OK) {
    struct blob_source src = {bytes, identity.size, true, NULL, NULL, identity};
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
  if (!b || refcount_sub_acq_rel(&b->refs) != 0)
    return;
  free_bytes(b);
  push_free(&b->pool->blobs, b);
}

bool ftpool__same_identity(const struct file_identity *a,
                           const struct file_identity *b) {
  return a->device == b->device && a->inode == b->inode && a->size == b->size &&
         a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
         a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec;
}

static void free_if_live(void *element, void *arg) {
  (void)arg;
  ftpool_blob *b = element;
  if (refcount_load_relaxed(&b->refs) != 0)
    free_bytes(b);
}

void ftpool__blob_store_fini(ftpool *pool) {
  ftpool__chunked_fini(&pool->blobs.headers, pool->memory, sizeof(ftpool_blob),
                       free_if_live, NULL);
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

void ftpool_blob_release(ftpool_blob *blob) { ftpool__blob_drop(blob); }

const void *ftpool_blob_data(const ftpool_blob *blob, size_t *size) {
  if (size)
    *size = blob ? blob->size : 0;
  return blob ? blob->bytes : NULL;
}
