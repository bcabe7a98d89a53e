/* SPDX-License-Identifier: MIT */
/*
 * glyph_reclaim_harness.c's scenario (a hit during an eviction; the
 * unpin, its reclaim or request; the evictor's walk of the pins and its
 * frees) with the shared-mutex backend's readers: fonts (struct sm_font,
 * lib/shared_mutex_font.c), whose pins ftpool__sm_fonts_oldest_pin walks
 * under the pool's mutex, a lock the readers do not take (a font's own
 * lock, held by its holder from acquire to give-back, orders nothing with
 * an evictor, and is left out). Asserted: as glyph_reclaim_harness.c.
 *
 * Checks: shared_mutex_font.c
 * GenMC options: --disable-estimation
 */
#define GLYPH_SM_READERS 1
#include "test/genmc/glyph_reclaim_harness.c"
