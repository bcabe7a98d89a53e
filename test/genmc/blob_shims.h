/* SPDX-License-Identifier: MIT */
/*
 * The shims of the blob and file cache harnesses (blob_harness.c,
 * blob_free_harness.c, file_cache*_harness.c): what lib/blob.c and
 * lib/file_cache.c call outside the files they check, or what GenMC cannot
 * run. Included after harness.h and before the lib/ sources.
 *
 * A file's bytes and identity are made up from its path: one byte, the
 * path's first letter, which is also its inode; `file_version` (set by a
 * harness that rewrites a file) is its modification time.
 */
#ifndef FTPOOL_GENMC_BLOB_SHIMS_H
#define FTPOOL_GENMC_BLOB_SHIMS_H

#include <string.h>

#include "lib/errors.h"
#include "lib/memory.h"
#include "lib/platform.h"

/* Shim: lib/no_cancel.h (GenMC's pthread.h has no cancellation, and its
 * threads are never cancelled): its guard, and no-ops. */
#define FTPOOL_NO_CANCEL_H
static inline int ftpool__cancel_off(void) { return 0; }
static inline void ftpool__cancel_restore(int old) { (void)old; }

/* Shims: the string functions of lib/blob.c and lib/file_cache.c, which
 * GenMC does not run (it copies memory only a struct at a time). */
static size_t harness_strlen(const char *s) {
  size_t n = 0;
  while (s[n])
    n++;
  return n;
}
static int harness_strcmp(const char *a, const char *b) {
  while (*a && *a == *b)
    a++, b++;
  return (unsigned char)*a - (unsigned char)*b;
}
static void *harness_memcpy(void *to, const void *from, size_t n) {
  for (size_t i = 0; i < n; i++)
    ((unsigned char *)to)[i] = ((const unsigned char *)from)[i];
  return to;
}
#define strlen harness_strlen
#define strcmp harness_strcmp
#define memcpy harness_memcpy

/* Shims: the pool's allocator (lib/memory.c), malloc itself here. Not
 * zero-filled: GenMC would explore each byte's write, and it reports any
 * read of memory nothing wrote, so every field read here is written first
 * (a header's by init_header, or before its publication). */
void *ftpool__memory_alloc_raw(FT_Memory memory, size_t size) {
  (void)memory;
  return malloc(size);
}
void *ftpool__memory_alloc(FT_Memory memory, size_t size) {
  return ftpool__memory_alloc_raw(memory, size);
}
void ftpool__memory_free(FT_Memory memory, void *block) {
  (void)memory;
  free(block);
}

/* Shim: the error record (lib/errors.c, a per-thread variable). */
ftpool_status ftpool__fail(ftpool_status status) { return status; }

/* Shims: the file system (lib/platform_posix.c). */
static _Atomic(int) file_version;
static void identity_of(const char *path, struct file_identity *id) {
  /* Field by field: GenMC copies no whole struct through a pointer. */
  id->device = 1;
  id->inode = (uint64_t)path[0];
  id->size = 1;
  id->mtime_sec = atomic_load_explicit(&file_version, memory_order_relaxed);
  id->ctime_sec = id->mtime_sec;
  id->mtime_nsec = id->ctime_nsec = 0;
}
bool ftpool__platform_file_identity(const char *path,
                                    struct file_identity *identity) {
  identity_of(path, identity);
  return true;
}
bool ftpool__platform_open(const char *path, struct platform_file *file,
                           struct file_identity *identity) {
  file->handle = path[0];
  identity_of(path, identity);
  return true;
}
bool ftpool__platform_read(struct platform_file *file, void *bytes,
                           size_t size) {
  assert(size == 1);
  *(unsigned char *)bytes = (unsigned char)file->handle;
  return true;
}
void ftpool__platform_close(struct platform_file *file) { (void)file; }

#endif /* FTPOOL_GENMC_BLOB_SHIMS_H */
