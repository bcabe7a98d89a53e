/* Creating a configured FT_Library, the same way for every backend. */
#include "errors.h"
#include "pool.h"

#include FT_MODULE_H

ftpool_status ftpool__library_new(ftpool *pool, FT_Library *library) {
  FT_Library created;
  FT_Error error = FT_New_Library(pool->memory, &created);
  if (error)
    return ftpool__fail_freetype(error, 0);
  FT_Add_Default_Modules(created);
  FT_Set_Default_Properties(created);
  if (pool->configure) {
    error = pool->configure(created, pool->configure_arg);
    if (error) {
      FT_Done_Library(created);
      ftpool__fail_freetype(error, 0);
      return FTPOOL_ERR_CONFIGURE;
    }
  }
  *library = created;
  return FTPOOL_OK;
}
