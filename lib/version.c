/* SPDX-License-Identifier: MIT */
#include "ftpool.h"

/* Compiled into the library, so it reports the build actually linked, not the
 * header the caller was compiled against. */
const char *ftpool_version(void) { return FTPOOL_VERSION_STRING; }
