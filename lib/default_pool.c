/* SPDX-License-Identifier: MIT */
/*
 * The process-wide default pool, initialised by racing to publish: no caller
 * ever waits for another, so a caller holding any lock (a GIL) cannot form a
 * cycle with whoever is initialising.
 */
#include "atomics.h"
#include "errors.h"
#include "pool.h"

static atomic_ptr default_pool;

ftpool_status ftpool_default(ftpool **pool) {
  if (!pool)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  /* Acquire pairs with the winner's CAS: the pool is fully built. */
  ftpool *published = ptr_load_acquire(&default_pool);
  if (!published) {
    ftpool *mine;
    ftpool_status status = ftpool_create(NULL, &mine);
    void *expected = NULL;
    if (status != FTPOOL_OK) {
      /* Another caller may have published one meanwhile. */
      published = ptr_load_acquire(&default_pool);
      if (!published)
        return status;
    } else if (ptr_cas_acq_rel(&default_pool, &expected, mine)) {
      published = mine;
    } else {
      /* Lost the race; nobody can have used ours yet. */
      ftpool_destroy(mine);
      published = expected;
    }
  }
  *pool = published;
  return FTPOOL_OK;
}
