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

static const struct glyph_transform identity = {{0x10000, 0, 0, 0x10000},
                                                {0, 0}};

ftpool_status ftpool_font_glyph(ftpool_font *font, FT_Face face,
                                FT_UInt glyph_index, FT_Int32 load_flags,
                                const ftpool_glyph **glyph) {
  return ftpool_font_glyph_transformed(font, face, glyph_index, load_flags,
                                       NULL, NULL, glyph);
}

ftpool_status ftpool_font_glyph_transformed(ftpool_font *font, FT_Face face,
                                            FT_UInt glyph_index,
                                            FT_Int32 load_flags,
                                            const FT_Matrix *matrix,
                                            const FT_Vector *delta,
                                            const ftpool_glyph **glyph) {
  if (!glyph)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *glyph = NULL;
  if (!font || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  if (load_flags & UNCACHEABLE)
    return ftpool__fail(FTPOOL_ERR_LOAD_FLAGS);
  /* The face's own transform is the user's, never applied: a lookup loads
   * with the one it names, or with none. */
  struct glyph_request req = {.glyph_index = glyph_index,
                              .load_flags = load_flags | FT_LOAD_RENDER,
                              .kind = GLYPH_RENDERED,
                              .transform = identity};
  if (matrix)
    req.transform.matrix = *matrix;
  if (delta)
    req.transform.delta = *delta;
  /* The identity is no transform, and so is one the flags ignore: both
   * share the entries of lookups without one. */
  if ((load_flags & FT_LOAD_IGNORE_TRANSFORM) ||
      ftpool__glyph_same_transform(&req.transform, &identity)) {
    req.transform = identity;
    req.load_flags |= FT_LOAD_IGNORE_TRANSFORM;
  } else {
    req.transform_hash = ftpool__glyph_transform_hash(&req.transform);
  }
  struct glyph_entry *e;
  ftpool_status status = lookup(font, face, &req, &e);
  if (status == FTPOOL_OK)
    *glyph = &e->value.glyph;
  return status;
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
                              .kind = GLYPH_ADVANCE,
                              .transform = identity};
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
