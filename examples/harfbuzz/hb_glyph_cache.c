/* SPDX-License-Identifier: MIT */
/* HarfBuzz font functions over ftpool's glyph cache (hb_glyph_cache.h). */
#include "hb_glyph_cache.h"

#include <stdatomic.h>
#include <stdlib.h>

#include <hb-ft.h>

/* The font data: what every lookup passes to the cache. */
struct cached_font {
  ftpool_font *font;
  FT_Face face;
  FT_Int32 load_flags;
};

static hb_bool_t nominal_glyph(hb_font_t *font, void *data,
                               hb_codepoint_t unicode, hb_codepoint_t *glyph,
                               void *user_data) {
  (void)user_data;
  const struct cached_font *f = data;
  FT_UInt index = FT_Get_Char_Index(f->face, unicode);
  if (index) {
    *glyph = index;
    return 1;
  }
  /* A symbol cmap's characters sit elsewhere, by hb-ft's own rules. */
  if (f->face->charmap && f->face->charmap->encoding == FT_ENCODING_MS_SYMBOL)
    return hb_font_get_nominal_glyph(hb_font_get_parent(font), unicode, glyph);
  return 0;
}

static hb_bool_t variation_glyph(hb_font_t *font, void *data,
                                 hb_codepoint_t unicode,
                                 hb_codepoint_t selector, hb_codepoint_t *glyph,
                                 void *user_data) {
  (void)font, (void)user_data;
  const struct cached_font *f = data;
  FT_UInt index = FT_Face_GetCharVariantIndex(f->face, unicode, selector);
  if (!index)
    return 0;
  *glyph = index;
  return 1;
}

/* Per axis, -1 for a negative scale (a mirrored font), else 1, as hb-ft's
 * mult. */
static void mults(hb_font_t *font, float *x, float *y) {
  int x_scale, y_scale;
  hb_font_get_scale(font, &x_scale, &y_scale);
  *x = x_scale < 0 ? -1.f : 1.f;
  *y = y_scale < 0 ? -1.f : 1.f;
}

static void h_advances(hb_font_t *font, void *data, unsigned count,
                       const hb_codepoint_t *first_glyph, unsigned glyph_stride,
                       hb_position_t *first_advance, unsigned advance_stride,
                       void *user_data) {
  (void)user_data;
  const struct cached_font *f = data;
  float mult, y_mult;
  mults(font, &mult, &y_mult);
  const char *glyph = (const char *)first_glyph;
  char *advance = (char *)first_advance;
  for (unsigned i = 0; i < count; i++) {
    /* 0 on failure (ftpool_font_advance sets it), as hb-ft leaves it when
     * FT_Get_Advance fails. */
    FT_Fixed v = 0;
    ftpool_font_advance(f->font, f->face, *(const hb_codepoint_t *)glyph,
                        f->load_flags, &v);
    /* 16.16 to 26.6, rounded, with hb-ft's float arithmetic. */
    *(hb_position_t *)advance = (hb_position_t)(v * mult + (1 << 9)) >> 10;
    glyph += glyph_stride;
    advance += advance_stride;
  }
}

static hb_bool_t glyph_extents(hb_font_t *font, void *data,
                               hb_codepoint_t glyph,
                               hb_glyph_extents_t *extents, void *user_data) {
  (void)user_data;
  const struct cached_font *f = data;
  const ftpool_glyph *g;
  ftpool_status status =
      ftpool_font_glyph(f->font, f->face, glyph, f->load_flags, &g);
  if (status == FTPOOL_ERR_LOAD_FLAGS) /* no bitmap: hb-ft's own load */
    return hb_font_get_glyph_extents(hb_font_get_parent(font), glyph, extents);
  if (status != FTPOOL_OK)
    return 0;
  float xm, ym;
  mults(font, &xm, &ym);
  extents->x_bearing = (hb_position_t)(xm * g->metrics.horiBearingX);
  extents->y_bearing = (hb_position_t)(ym * g->metrics.horiBearingY);
  extents->width = (hb_position_t)(xm * g->metrics.width);
  extents->height = (hb_position_t)(ym * -g->metrics.height);
  return 1;
}

/* The functions, made once and published by CAS (the loser destroys its
 * own), as hb-ft keeps its own; never freed. */
static _Atomic(hb_font_funcs_t *) shared_funcs;

static hb_font_funcs_t *font_funcs(void) {
  hb_font_funcs_t *funcs = atomic_load(&shared_funcs);
  if (funcs)
    return funcs;
  hb_font_funcs_t *made = hb_font_funcs_create();
  hb_font_funcs_set_nominal_glyph_func(made, nominal_glyph, NULL, NULL);
  hb_font_funcs_set_variation_glyph_func(made, variation_glyph, NULL, NULL);
  hb_font_funcs_set_glyph_h_advances_func(made, h_advances, NULL, NULL);
  hb_font_funcs_set_glyph_extents_func(made, glyph_extents, NULL, NULL);
  hb_font_funcs_make_immutable(made);
  if (atomic_compare_exchange_strong(&shared_funcs, &funcs, made))
    return made;
  hb_font_funcs_destroy(made); /* another thread's won: funcs is that */
  return funcs;
}

hb_font_t *ftpool_hb_font_create(ftpool_font *font, FT_Face face,
                                 FT_Int32 load_flags) {
  hb_font_t *parent = hb_ft_font_create_referenced(face);
  hb_ft_font_set_load_flags(parent, load_flags);
  hb_font_t *sub = hb_font_create_sub_font(parent);
  hb_font_destroy(parent); /* the sub-font holds it */
  struct cached_font *f = malloc(sizeof *f);
  if (!f)
    return sub; /* hb-ft's functions, through the parent */
  f->font = font;
  f->face = face;
  f->load_flags = load_flags;
  hb_font_set_funcs(sub, font_funcs(), f, free);
  return sub;
}

void ftpool_hb_font_destroy(void *hb_font) { hb_font_destroy(hb_font); }
