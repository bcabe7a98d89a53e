/* SPDX-License-Identifier: MIT */
/* Compiles only if @ftpool//:ftpool was built against this workspace's
 * @system_freetype: its `defines` reach every target that depends on it. */
#ifndef OWN_FREETYPE
#error "ftpool_deps() replaced the workspace's own system_freetype"
#endif

#include "ftpool.h"

int main(void) {
  ftpool *pool;
  if (ftpool_create(NULL, &pool) != FTPOOL_OK)
    return 1;
  ftpool_destroy(pool);
  return 0;
}
