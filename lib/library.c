/* SPDX-License-Identifier: MIT */
/* Creating a configured FT_Library, the same way for every backend. */
#include "errors.h"
#include "memory.h"
#include "no_cancel.h"
#include "pool.h"

#include FT_MODULE_H

ftpool_status ftpool__library_new(ftpool *pool, struct library_memory *memory,
                                  FT_Library *library) {
  FT_Library created;
  ftpool__library_memory_init(memory, pool->memory);
  FT_Error error = FT_New_Library(&memory->rec, &created);
  if (error)
    return ftpool__fail_freetype(error, 0);
  FT_Add_Default_Modules(created);
  FT_Set_Default_Properties(created);
  if (ftpool__library_memory_failures(memory) != 0) {
    FT_Done_Library(created);
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  }
  if (pool->configure) {
    int cancel = ftpool__cancel_off();
    error = pool->configure(created, pool->configure_arg);
    ftpool__cancel_restore(cancel);
    if (error) {
      FT_Done_Library(created);
      ftpool__fail_freetype(error, 0);
      return FTPOOL_ERR_CONFIGURE;
    }
  }
  *library = created;
  return FTPOOL_OK;
}
