/* SPDX-License-Identifier: MIT */
/* The glyph cache's public entry points: the checks every backend shares,
 * then the backend's lookup. */
#include "errors.h"
#include "pool.h"

/* Flags whose load leaves no bitmap to cache: outlines in font units, a
 * composite's parts, metrics alone. */
#define UNCACHEABLE                                                            \
  (FT_LOAD_NO_SCALE | FT_LOAD_NO_RECURSE | FT_LOAD_BITMAP_METRICS_ONLY)

static ftpool_status lookup(ftpool_font *font, FT_Face face,
                            struct glyph_request *req,
                            struct glyph_entry **out) {
  req->key = font->glyph_key;
  ftpool__glyph_request_hash(req);
  return font->pool->backend->font_glyph(font, face, req, out);
}

/* The checks of a rendered glyph's lookup, made before it: the status the
 * caller fails with (ftpool__fail in its tail, so that a hit keeps no
 * argument live across a call). */
static ftpool_status check_rendered(ftpool_font *font, FT_Face face,
                                    FT_Int32 load_flags,
                                    const ftpool_glyph **glyph) {
  if (!glyph)
    return FTPOOL_ERR_INVALID_ARGUMENT;
  *glyph = NULL;
  if (!font || !face)
    return FTPOOL_ERR_INVALID_ARGUMENT;
  if (load_flags & UNCACHEABLE)
    return FTPOOL_ERR_LOAD_FLAGS;
  return FTPOOL_OK;
}

static ftpool_status lookup_rendered(ftpool_font *font, FT_Face face,
                                     struct glyph_request *req,
                                     const ftpool_glyph **glyph) {
  struct glyph_entry *e;
  ftpool_status status = lookup(font, face, req, &e);
  if (status == FTPOOL_OK)
    *glyph = &e->value.glyph;
  return status;
}

ftpool_status ftpool_font_glyph(ftpool_font *font, FT_Face face,
                                FT_UInt glyph_index, FT_Int32 load_flags,
                                const ftpool_glyph **glyph) {
  ftpool_status status = check_rendered(font, face, load_flags, glyph);
  if (status != FTPOOL_OK)
    return ftpool__fail(status);
  /* The face's transform is the user's, never applied. */
  struct glyph_request req = {.glyph_index = glyph_index,
                              .load_flags = load_flags | FT_LOAD_RENDER |
                                            FT_LOAD_IGNORE_TRANSFORM,
                              .kind = GLYPH_RENDERED};
  return lookup_rendered(font, face, &req, glyph);
}

ftpool_status ftpool_font_glyph_transformed(ftpool_font *font, FT_Face face,
                                            FT_UInt glyph_index,
                                            FT_Int32 load_flags,
                                            const FT_Matrix *matrix,
                                            const FT_Vector *delta,
                                            const ftpool_glyph **glyph) {
  static const struct glyph_transform identity = {{0x10000, 0, 0, 0x10000},
                                                  {0, 0}};
  struct glyph_transform t = identity;
  if (matrix)
    t.matrix = *matrix;
  if (delta)
    t.delta = *delta;
  /* The identity is no transform, and so is one the flags ignore: both are
   * ftpool_font_glyph's lookup. */
  if ((load_flags & FT_LOAD_IGNORE_TRANSFORM) ||
      ftpool__glyph_same_transform(&t, &identity))
    return ftpool_font_glyph(font, face, glyph_index, load_flags, glyph);
  ftpool_status status = check_rendered(font, face, load_flags, glyph);
  if (status != FTPOOL_OK)
    return ftpool__fail(status);
  /* The face's own transform is never applied: the load sets this one. */
  struct glyph_request req = {.glyph_index = glyph_index,
                              .load_flags = load_flags | FT_LOAD_RENDER,
                              .kind = GLYPH_RENDERED,
                              .transform = &t,
                              .transform_hash =
                                  ftpool__glyph_transform_hash(&t)};
  return lookup_rendered(font, face, &req, glyph);
}

ftpool_status ftpool_font_advance(ftpool_font *font, FT_Face face,
                                  FT_UInt glyph_index, FT_Int32 load_flags,
                                  FT_Fixed *advance) {
  if (!advance)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *advance = 0;
  if (!font || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  /* FT_Get_Advance loads the glyph for hinted advances, and the load
   * applies the face's transform unless told not to. */
  struct glyph_request req = {.glyph_index = glyph_index,
                              .load_flags =
                                  load_flags | FT_LOAD_IGNORE_TRANSFORM,
                              .kind = GLYPH_ADVANCE};
  struct glyph_entry *e;
  ftpool_status status = lookup(font, face, &req, &e);
  if (status == FTPOOL_OK)
    *advance = e->value.advance;
  return status;
}

ftpool_status ftpool_quiescent(ftpool *pool) {
  if (!pool)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  if (pool->destroying) /* a destructor's: the destroy frees every glyph */
    return FTPOOL_OK;
  pool->backend->quiescent(pool);
  return FTPOOL_OK;
}
