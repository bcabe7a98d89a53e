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
