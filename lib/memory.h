/* Allocation through the pool's FT_Memory, so a test allocator sees all. */
#ifndef FTPOOL_MEMORY_H
#define FTPOOL_MEMORY_H

#include <stddef.h>

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
 * The FT_Memory a library allocates through: a copy of the pool's record,
 * kept beside the library for the library's whole life. While the library
 * is being built it also counts failed allocations, because
 * FT_Add_Default_Modules skips a module it could not allocate without
 * saying so, which would leave a library that can never open that module's
 * fonts.
 */
struct library_memory {
  struct FT_MemoryRec_ rec; /* what FT_New_Library is given */
  FT_Memory pool_memory;
  unsigned failures;
};

/* Makes m forward to pool_memory, counting failures. */
void ftpool__library_memory_watch(struct library_memory *m,
                                  FT_Memory pool_memory);

/* Makes m a plain copy of the pool's record again (same user and
 * functions); returns the failures seen while watching. */
unsigned ftpool__library_memory_settle(struct library_memory *m);

#endif /* FTPOOL_MEMORY_H */
