/* SPDX-License-Identifier: MIT */
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

/* In front of each block: its size and the account it is counted in. A
 * block made through one library may be freed through another (FreeType
 * objects that refer to two libraries, a stroker's and a glyph's), and each
 * library's count must stay its own: the block says whose it is. */
struct block_header {
  size_t size;
  struct library_memory *owner;
};

/* The header's room, keeping malloc's alignment. */
#define ROUND_UP(n, a) (((n) + (a)-1) / (a) * (a))
#define HEADER ROUND_UP(sizeof(struct block_header), _Alignof(max_align_t))

static struct block_header *header_of(void *block) {
  return (struct block_header *)((char *)block - HEADER);
}

static void *counted_alloc(FT_Memory memory, long size) {
  struct library_memory *m = memory->user;
  if ((unsigned long)size > LONG_MAX - HEADER)
    return NULL;
  char *block = m->pool_memory->alloc(m->pool_memory, size + (long)HEADER);
  if (!block) {
    counter_add_relaxed(&m->failures, 1);
    return NULL;
  }
  memcpy(block, &(struct block_header){(size_t)size, m},
         sizeof(struct block_header));
  counter_add_relaxed(&m->bytes, (size_t)size);
  return block + HEADER;
}

static void counted_free(FT_Memory memory, void *block) {
  struct library_memory *m = memory->user;
  struct block_header h;
  memcpy(&h, header_of(block), sizeof h);
  counter_sub_relaxed(&h.owner->bytes, h.size);
  m->pool_memory->free(m->pool_memory, header_of(block));
}

static void *counted_realloc(FT_Memory memory, long cur_size, long new_size,
                             void *block) {
  struct library_memory *m = memory->user;
  if ((unsigned long)new_size > LONG_MAX - HEADER)
    return NULL;
  struct block_header h;
  memcpy(&h, header_of(block), sizeof h);
  char *moved =
      m->pool_memory->realloc(m->pool_memory, cur_size + (long)HEADER,
                              new_size + (long)HEADER, header_of(block));
  if (!moved) {
    counter_add_relaxed(&m->failures, 1);
    return NULL;
  }
  /* The block stays its first owner's, whichever library grows it. */
  memcpy(moved, &(struct block_header){(size_t)new_size, h.owner},
         sizeof(struct block_header));
  counter_add_relaxed(&h.owner->bytes, (size_t)new_size);
  counter_sub_relaxed(&h.owner->bytes, h.size);
  return moved + HEADER;
}

void ftpool__library_memory_init(struct library_memory *m,
                                 FT_Memory pool_memory) {
  m->rec =
      (struct FT_MemoryRec_){m, counted_alloc, counted_free, counted_realloc};
  m->pool_memory = pool_memory;
  counter_init(&m->bytes);
  counter_init(&m->failures);
}

size_t ftpool__library_memory_failures(struct library_memory *m) {
  return counter_load_relaxed(&m->failures);
}
