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

#endif /* FTPOOL_MEMORY_H */
