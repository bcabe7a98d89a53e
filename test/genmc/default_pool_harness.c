/* SPDX-License-Identifier: MIT */
/*
 * The default pool (lib/default_pool.c; docs/design.md, "One-time
 * initialisation that cannot deadlock"): three threads call ftpool_default
 * at once, with no lock. Each that finds none builds a pool, one CAS
 * publishes the winner's, and each loser destroys its own; the third
 * thread's build fails (out of memory), so it takes whatever was published
 * meanwhile, or fails. The pool's fields are plain, written by its builder
 * before the CAS: a caller that uses the winner's pool without the order
 * that publishes it is a data race. Asserted: every caller that succeeds
 * gets the same pool, built (its fields as written), never a destroyed one;
 * exactly one pool is left, and no loser's pool was ever seen by another.
 *
 * GenMC options: --disable-estimation
 *
 * Checks: default_pool.c
 */
#include "test/genmc/harness.h"

#include "lib/default_pool.c"

/* Shims: ftpool_create and ftpool_destroy (pool.c, and a backend's create
 * and destroy) allocate a pool-sized object and write its plain fields, as
 * ftpool__pool_init_header does; the third thread's create fails. The
 * error record (errors.c) is left out. */
static _Thread_local int thread_index;
static atomic_counter created, destroyed;

ftpool_status ftpool__fail(ftpool_status status) { return status; }

ftpool_status ftpool_create(const ftpool_config *config, ftpool **pool) {
  assert(!config);
  if (thread_index == 2)
    return FTPOOL_ERR_OUT_OF_MEMORY;
  ftpool *p = malloc(sizeof *p);
  if (!p)
    return FTPOOL_ERR_OUT_OF_MEMORY;
  p->font_idle_instances = 32;
  p->font_idle_bytes = 4u << 20;
  p->destroying = false;
  counter_add_relaxed(&created, 1);
  *pool = p;
  return FTPOOL_OK;
}

void ftpool_destroy(ftpool *pool) {
  /* Nobody else read it: freeing it is a race with any reader. */
  assert(pool->font_idle_instances == 32 && !pool->destroying);
  pool->destroying = true;
  counter_add_relaxed(&destroyed, 1);
  free(pool);
}

static ftpool *got[3];
static ftpool_status status[3];

static void *thread(void *arg) {
  thread_index = (int)(intptr_t)arg;
  ftpool *pool = NULL;
  status[thread_index] = ftpool_default(&pool);
  if (status[thread_index] == FTPOOL_OK) {
    /* Uses the pool: its builder's writes must be visible. */
    assert(pool->font_idle_instances == 32 &&
           pool->font_idle_bytes == 4u << 20 && !pool->destroying);
    got[thread_index] = pool;
  }
  return NULL;
}

int main(void) {
  harness_run(3, thread);
  ftpool *pool = ptr_load_relaxed(&default_pool);
  assert(pool);
  assert(counter_load_relaxed(&created) ==
         counter_load_relaxed(&destroyed) + 1);
  for (int i = 0; i < 3; i++)
    assert(status[i] == FTPOOL_OK ? got[i] == pool : i == 2);
  assert(status[0] == FTPOOL_OK && status[1] == FTPOOL_OK);
  return 0;
}
