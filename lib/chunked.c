/* SPDX-License-Identifier: MIT */
#include "chunked.h"

void ftpool__chunked_init(struct chunked *a) {
  for (size_t k = 0; k < CHUNKED_CHUNKS; k++)
    ptr_init(&a->chunks[k], NULL);
}

static size_t chunk_length(size_t k) { return (size_t)CHUNKED_FIRST << k; }

/* The chunk that holds element `index`, and the element's place in it. */
static size_t chunk_of(size_t index, size_t *offset) {
  size_t k = 0, first = 0;
  while (k < CHUNKED_CHUNKS && index >= first + chunk_length(k)) {
    first += chunk_length(k);
    k++;
  }
  *offset = index - first;
  return k;
}

void *ftpool__chunked_find_slow(struct chunked *a, size_t size, size_t index) {
  size_t offset, k = chunk_of(index, &offset);
  if (k >= CHUNKED_CHUNKS)
    return NULL;
  /* Acquire pairs with the publishing CAS below: the chunk's elements are
   * initialised. */
  char *chunk = ptr_load_acquire(&a->chunks[k]);
  return chunk ? chunk + offset * size : NULL;
}

void *ftpool__chunked_get(struct chunked *a, FT_Memory memory, size_t size,
                          size_t index,
                          void (*init)(void *element, size_t index)) {
  size_t offset, k = chunk_of(index, &offset);
  if (k >= CHUNKED_CHUNKS)
    return NULL;
  char *chunk = ptr_load_acquire(&a->chunks[k]);
  if (!chunk) {
    size_t length = chunk_length(k);
    char *mine = ftpool__memory_alloc(memory, length * size);
    if (!mine)
      return NULL;
    if (init)
      for (size_t i = 0; i < length; i++)
        init(mine + i * size, index - offset + i);
    void *expected = NULL;
    /* Release publishes the initialised elements; a loser frees its own and
     * acquires the winner's. */
    if (ptr_cas_acq_rel(&a->chunks[k], &expected, mine)) {
      chunk = mine;
    } else {
      ftpool__memory_free(memory, mine);
      chunk = expected;
    }
  }
  return chunk + offset * size;
}

void ftpool__chunked_each(struct chunked *a, size_t size,
                          void (*each)(void *element, void *arg), void *arg) {
  for (size_t k = 0; k < CHUNKED_CHUNKS; k++) {
    /* Relaxed: each caller comes after every chunked_get on a, by its own
     * ordering: the destroy (after every other call) or a font's last
     * release (acq_rel, after each holder's; instance.c). */
    char *chunk = ptr_load_relaxed(&a->chunks[k]);
    if (chunk)
      for (size_t i = 0; i < chunk_length(k); i++)
        each(chunk + i * size, arg);
  }
}

void ftpool__chunked_fini(struct chunked *a, FT_Memory memory, size_t size,
                          void (*each)(void *element, void *arg), void *arg) {
  if (each)
    ftpool__chunked_each(a, size, each, arg);
  for (size_t k = 0; k < CHUNKED_CHUNKS; k++)
    ftpool__memory_free(memory, ptr_load_relaxed(&a->chunks[k])); /* as above */
}
