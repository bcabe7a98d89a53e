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

ftpool_status ftpool_font_glyph(ftpool_font *font, FT_Face face,
                                FT_UInt glyph_index, FT_Int32 load_flags,
                                const ftpool_glyph **glyph) {
  if (!glyph)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *glyph = NULL;
  if (!font || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  if (load_flags & UNCACHEABLE)
    return ftpool__fail(FTPOOL_ERR_LOAD_FLAGS);
  /* The face's transform is the user's, not part of the key. */
  struct glyph_request req = {.glyph_index = glyph_index,
                              .load_flags = load_flags | FT_LOAD_RENDER |
                                            FT_LOAD_IGNORE_TRANSFORM,
                              .kind = GLYPH_RENDERED};
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
