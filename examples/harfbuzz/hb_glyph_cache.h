/* SPDX-License-Identifier: MIT */
/*
 * HarfBuzz font functions that read ftpool's glyph cache: shaping on a
 * shared font's acquired face takes advances and glyph extents from the
 * pool-wide cache (ftpool_font_advance, ftpool_font_glyph), with no lock,
 * instead of from FT_Get_Advance and FT_Load_Glyph under hb-ft's per-font
 * mutex.
 *
 * ftpool_hb_font_create(font, face, load_flags) makes an hb_font_t for a
 * face the calling thread acquired from font. It is a sub-font
 * (hb_font_create_sub_font) of hb_ft_font_create_referenced(face), set to
 * the same load flags, so it has hb-ft's scale (taken from the face's size
 * when it is made) and hb-ft's face (its tables), and overrides:
 *   - h_advances: ftpool_font_advance(font, face, glyph, load_flags), the
 *     16.16 advance of FT_Get_Advance, rounded to 26.6 as hb-ft does;
 *   - glyph_extents: ftpool_font_glyph(font, face, glyph, load_flags)'s
 *     metrics, those of FT_Load_Glyph(load_flags | FT_LOAD_RENDER), which
 *     are FT_Load_Glyph(load_flags)'s: hb-ft's bearings and size;
 *   - nominal_glyph: FT_Get_Char_Index on the face, and variation_glyph:
 *     FT_Face_GetCharVariantIndex, with no lock either (the face is the
 *     calling thread's). A character missing from a symbol cmap goes to
 *     hb-ft (its U+F000 and Arabic PUA remapping), as does everything not
 *     listed here (vertical metrics, contour points, glyph names, drawing):
 *     those take hb-ft's mutex, uncontended, on the same face.
 * Results equal hb-ft's on the same face with the same load flags (the
 * formulas are hb-ft 6.0's; later versions compute the same for a positive
 * scale); harfbuzz_cache_test checks glyph ids, advances, offsets and
 * extents. Load flags the cache refuses for rendered glyphs
 * (FT_LOAD_NO_SCALE, FT_LOAD_NO_RECURSE, FT_LOAD_BITMAP_METRICS_ONLY) make
 * glyph_extents ask hb-ft instead.
 *
 * Rules: use the hb_font only on the thread that acquired the face, while
 * it holds it, as for any hb-ft font on a pool face (docs/cpp_and_harfbuzz.md).
 * So keep one per instance, as its instance data (ftpool_font_set_instance
 * _data with ftpool_hb_font_destroy), made on the instance's first acquire:
 * the data goes with the instance, on the thread that holds it, and never
 * outlives the font. Do not change the face's size or transform while the
 * hb_font is in use.
 */
#ifndef FTPOOL_HB_GLYPH_CACHE_H
#define FTPOOL_HB_GLYPH_CACHE_H

#include <hb.h>

#include "ftpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* hb-ft's load flags unless told otherwise: unhinted, in hb-ft's words
 * "no rounding etc". */
#define FTPOOL_HB_LOAD_FLAGS (FT_LOAD_DEFAULT | FT_LOAD_NO_HINTING)

/* An hb_font for face, acquired by the calling thread from font; never
 * NULL (HarfBuzz gives its empty font when out of memory). */
hb_font_t *ftpool_hb_font_create(ftpool_font *font, FT_Face face,
                                 FT_Int32 load_flags);

/* hb_font_destroy, as an instance-data destructor (void *). */
void ftpool_hb_font_destroy(void *hb_font);

#ifdef __cplusplus
}
#endif

#endif /* FTPOOL_HB_GLYPH_CACHE_H */
