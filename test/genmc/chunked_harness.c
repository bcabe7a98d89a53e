/* SPDX-License-Identifier: MIT */
/*
 * Chunked arrays (lib/chunked.c, lib/chunked.h; docs/design.md, "The header
 * free list": chunks made once, on first use, and never moved): a maker
 * asks for elements 0 and 16 (the first two chunks) of an empty array,
 * while another thread looks them up (chunked_find, which reads the first
 * chunk inline and the others through chunked_find_slow) and then asks for
 * them too, so that both make a chunk and one loses the publishing CAS, or
 * one finds the chunk the other made. Each element's fields are plain,
 * written by the init callback before the chunk is published: a reader
 * that reaches an element its thread did not initialise without the
 * publication's order races with that init. Asserted, on every element a
 * thread reaches: it is initialised, with its own index; at the end, every
 * element of every chunk made is (chunked_fini's walk), and both threads
 * got the same element.
 *
 * Checks: chunked.c chunked.h
 * GenMC options: --disable-estimation
 */
#include "test/genmc/harness.h"

#include "lib/chunked.c"

/* Shims: the pool's allocator (lib/memory.c), malloc itself here. */
void *ftpool__memory_alloc_raw(FT_Memory memory, size_t size) {
  (void)memory;
  return malloc(size);
}
void *ftpool__memory_alloc(FT_Memory memory, size_t size) {
  unsigned char *block = ftpool__memory_alloc_raw(memory, size);
  if (block)
    for (size_t i = 0; i < size; i++)
      block[i] = 0;
  return block;
}
void ftpool__memory_free(FT_Memory memory, void *block) {
  (void)memory;
  free(block);
}

struct element {
  size_t index; /* plain: written by init before the chunk is published */
  int ready;
};

static void init_element(void *element, size_t index) {
  struct element *e = element;
  e->index = index;
  e->ready = 1;
}

static void check(struct element *e, size_t index) {
  assert(e->ready == 1);
  assert(e->index == index);
}

static struct chunked array;
static struct element *got[2][2]; /* [thread][element 0, element 16] */

static void *thread(void *arg) {
  int t = (int)(intptr_t)arg;
  if (t == 1) { /* looks up first: chunks the other thread may be making */
    struct element *e = ftpool__chunked_find(&array, sizeof *e, 0);
    if (e)
      check(e, 0);
    e = ftpool__chunked_find(&array, sizeof *e, 16);
    if (e)
      check(e, 16);
  }
  for (int k = 0; k < 2; k++) {
    size_t index = k ? 16 : 0;
    struct element *e =
        ftpool__chunked_get(&array, NULL, sizeof *e, index, init_element);
    assert(e);
    check(e, index);
    got[t][k] = e;
  }
  return NULL;
}

static void check_each(void *element, void *arg) {
  (void)arg;
  assert(((struct element *)element)->ready == 1);
}

int main(void) {
  ftpool__chunked_init(&array);
  harness_run(2, thread);
  assert(got[0][0] == got[1][0] && got[0][1] == got[1][1]);
  ftpool__chunked_fini(&array, NULL, sizeof(struct element), check_each, NULL);
  return 0;
}
