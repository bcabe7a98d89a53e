/* SPDX-License-Identifier: MIT */
/* Status codes, their messages and the per-thread FreeType error. */
#ifndef FTPOOL_ERRORS_H
#define FTPOOL_ERRORS_H

#include "ftpool.h"

/* Records a failure that did not come from FreeType and returns it. */
ftpool_status ftpool__fail(ftpool_status status);

/* Records FreeType's error and returns the status it means; nonzero_index
 * says whether the failed call asked for a face index other than 0. */
ftpool_status ftpool__fail_freetype(FT_Error error, int nonzero_index);

#endif /* FTPOOL_ERRORS_H */
