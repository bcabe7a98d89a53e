/* SPDX-License-Identifier: MIT */
/*
 * An array that grows in chunks of 16, 32, 64, ... elements, each allocated
 * on first use and freed only with the array, so an element never moves
 * and a reader needs no lock to reach it. Concurrent first uses of a chunk
 * each allocate one; a CAS publishes the first, the others free theirs.
 */
#ifndef FTPOOL_CHUNKED_H
#define FTPOOL_CHUNKED_H

#include <stddef.h>

#include "atomics.h"
#include "memory.h"

#define CHUNKED_CHUNKS 26 /* 16 * (2^26 - 1) elements: over 10^9 */
#define CHUNKED_FIRST 16

struct chunked {
  atomic_ptr chunks[CHUNKED_CHUNKS];
};

void ftpool__chunked_init(struct chunked *a);

/* The address of element `index` (of `size` bytes), or NULL if its chunk
 * was never made. */
void *ftpool__chunked_find_slow(struct chunked *a, size_t size, size_t index);
static inline void *ftpool__chunked_find(struct chunked *a, size_t size,
                                         size_t index) {
  if (index < CHUNKED_FIRST) {
    /* Acquire pairs with chunked_get's publishing CAS: the chunk's
     * elements are initialised. */
    char *chunk = ptr_load_acquire(&a->chunks[0]);
    return chunk ? chunk + index * size : NULL;
  }
  return ftpool__chunked_find_slow(a, size, index);
}

/* The address of element `index`, making its chunk first if need be: every
 * element of a new chunk is zeroed, then passed to init (if not NULL) with
 * its index, before the chunk is published. NULL when out of memory or
 * past the end. */
void *ftpool__chunked_get(struct chunked *a, FT_Memory memory, size_t size,
                          size_t index,
                          void (*init)(void *element, size_t index));

/* Calls each on every element of every chunk made. The caller makes sure no
 * chunk is being made meanwhile, and that every chunked_get on a happened
 * before this call (its loads are relaxed). */
void ftpool__chunked_each(struct chunked *a, size_t size,
                          void (*each)(void *element, void *arg), void *arg);

/* Calls each (if not NULL) on every element of every chunk made, then frees
 * the chunks. Single-threaded, after every chunked_get, as chunked_each. */
void ftpool__chunked_fini(struct chunked *a, FT_Memory memory, size_t size,
                          void (*each)(void *element, void *arg), void *arg);

#endif /* FTPOOL_CHUNKED_H */
