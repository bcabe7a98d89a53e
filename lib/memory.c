#include "memory.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

static void *malloc_alloc(FT_Memory memory, long size) {
  (void)memory;
  return malloc((size_t)size);
}

static void malloc_free(FT_Memory memory, void *block) {
  (void)memory;
  free(block);
}

static void *malloc_realloc(FT_Memory memory, long cur_size, long new_size,
                            void *block) {
  (void)memory;
  (void)cur_size;
  return realloc(block, (size_t)new_size);
}

static struct FT_MemoryRec_ malloc_memory = {NULL, malloc_alloc, malloc_free,
                                             malloc_realloc};

FT_Memory ftpool__memory_default(void) { return &malloc_memory; }

void *ftpool__memory_alloc_raw(FT_Memory memory, size_t size) {
  if (size > (size_t)LONG_MAX)
    return NULL;
  return memory->alloc(memory, (long)size);
}

void *ftpool__memory_alloc(FT_Memory memory, size_t size) {
  void *block = ftpool__memory_alloc_raw(memory, size);
  if (block)
    memset(block, 0, size);
  return block;
}

void ftpool__memory_free(FT_Memory memory, void *block) {
  if (block)
    memory->free(memory, block);
}

static void *watched_alloc(FT_Memory memory, long size) {
  struct library_memory *m = memory->user;
  void *block = m->pool_memory->alloc(m->pool_memory, size);
  m->failures += !block;
  return block;
}

static void watched_free(FT_Memory memory, void *block) {
  struct library_memory *m = memory->user;
  m->pool_memory->free(m->pool_memory, block);
}

static void *watched_realloc(FT_Memory memory, long cur_size, long new_size,
                             void *block) {
  struct library_memory *m = memory->user;
  void *moved =
      m->pool_memory->realloc(m->pool_memory, cur_size, new_size, block);
  m->failures += !moved;
  return moved;
}

void ftpool__library_memory_watch(struct library_memory *m,
                                  FT_Memory pool_memory) {
  m->rec =
      (struct FT_MemoryRec_){m, watched_alloc, watched_free, watched_realloc};
  m->pool_memory = pool_memory;
  m->failures = 0;
}

unsigned ftpool__library_memory_settle(struct library_memory *m) {
  /* From here the library calls the pool's allocator with no detour; the
   * allocator sees this record's address, with the pool's `user`. */
  m->rec = *m->pool_memory;
  return m->failures;
}
