/* SPDX-License-Identifier: MIT */
/* Allocation through the pool's FT_Memory, so a test allocator sees all. */
#ifndef FTPOOL_MEMORY_H
#define FTPOOL_MEMORY_H

#include <stddef.h>

#include "atomics.h"

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_SYSTEM_H

/* The allocator used when the configuration names none: malloc. */
FT_Memory ftpool__memory_default(void);

/* Zero-filled, or NULL. */
void *ftpool__memory_alloc(FT_Memory memory, size_t size);

/* Not zero-filled (for bytes about to be overwritten), or NULL. */
void *ftpool__memory_alloc_raw(FT_Memory memory, size_t size);
void ftpool__memory_free(FT_Memory memory, void *block);

/*
 * The FT_Memory a library allocates through, kept beside the library for its
 * whole life. It forwards to the pool's allocator and counts the bytes the
 * library holds (each block carries its size and its account in a small
 * header), which is what shared fonts measure their budget by. While the
 * library is being built it also counts failed allocations, because
 * FT_Add_Default_Modules skips a module it could not allocate without saying
 * so, which would leave a library that can never open that module's fonts.
 */
struct library_memory {
  struct FT_MemoryRec_ rec; /* what FT_New_Library is given */
  FT_Memory pool_memory;
  /* Any thread using one of the library's faces allocates through it. */
  atomic_counter bytes;
  atomic_counter failures;
};

void ftpool__library_memory_init(struct library_memory *m,
                                 FT_Memory pool_memory);

/* The allocations that failed since init. */
size_t ftpool__library_memory_failures(struct library_memory *m);

/* The bytes the library holds. */
static inline size_t ftpool__library_memory_bytes(struct library_memory *m) {
  return counter_load_relaxed(&m->bytes);
}

#endif /* FTPOOL_MEMORY_H */
