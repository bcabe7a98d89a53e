/* SPDX-License-Identifier: MIT */
/*
 * Shared fonts: the description every backend instantiates (ftpool.h,
 * "Shared fonts"). A font is immutable after ftpool_font_create except for
 * its reference count and, with the per-thread backend, its table of
 * instances, whose slot i only the holder of context i writes.
 */
#ifndef FTPOOL_FONT_H
#define FTPOOL_FONT_H

#include <stdbool.h>

#include "atomics.h"
#include "chunked.h"
#include "ftpool.h"

/* What a user attached to an instance (ftpool_font_set_instance_data). */
struct instance_data {
  void *data;
  void (*destroy)(void *data);
};

struct ftpool_font {
  ftpool *pool;
  atomic_refcount refs;
  ftpool_blob *blob; /* one reference */
  FT_Long face_index;
  FT_Fixed *coords; /* a copy, or NULL */
  FT_UInt num_coords;
  FT_F26Dot6 char_width, char_height;
  FT_UInt horz_resolution, vert_resolution;
  FT_UInt pixel_width, pixel_height;
  FT_Encoding encoding;
  uint64_t colour;             /* see ftpool__colour_set */
  struct glyph_key *glyph_key; /* one reference */
  /* Per-thread backend: element i is the instance record of context i, or
   * NULL (struct instance *). */
  struct chunked instances;
  /* Shared-mutex backend: its one instance. */
  struct sm_font *sm;
  /* For ftpool_destroy, which frees the fonts still referenced. */
  struct ftpool_font *dead_next;
  bool dying;
};

/* Whether faces opened for a and b can be shared: same bytes, face index
 * and coordinates (they may differ in size and charmap). */
bool ftpool__font_same_face(const ftpool_font *a, const FT_Fixed *coords,
                            FT_UInt num_coords, ftpool_blob *blob,
                            FT_Long face_index);

/* Opens the font's face on library, with its coordinates set, its charmap
 * selected; the caller may edit library. */
ftpool_status ftpool__font_open_face(ftpool_font *font, FT_Library library,
                                     FT_Face *face);

/* Sets the font's size on the face's active FT_Size. */
ftpool_status ftpool__font_set_size(ftpool_font *font, FT_Face face);

/* Selects a font's colours on face: its `colour`, the description's
 * palette_index and foreground_color in one word, so that one compare tells
 * whether a face has them (bits 32-47 the palette; bit 48 set when there
 * is a foreground colour, its BGRA in bits 0-31; 0 is FreeType's defaults,
 * which a face opens with). FTPOOL_ERR_INVALID_ARGUMENT for a palette the
 * face does not have. */
ftpool_status ftpool__colour_set(FT_Face face, uint64_t colour);

/* Whether a user changed the size since `as_set` was taken (they may set
 * any size on an acquired face; the next acquire puts the font's back). */
static inline bool ftpool__size_changed(FT_Size size,
                                        const FT_Size_Metrics *as_set) {
  const FT_Size_Metrics *now = &size->metrics;
  return now->x_ppem != as_set->x_ppem || now->y_ppem != as_set->y_ppem ||
         now->x_scale != as_set->x_scale || now->y_scale != as_set->y_scale;
}

/* Calls data->destroy (if any) after clearing the slot, so that a fork in
 * the middle of it can never make it run twice; acquire and create on pool
 * from the destructor fail with FTPOOL_ERR_REENTRANT (on the calling
 * thread, while it runs). */
void ftpool__instance_data_destroy_in(ftpool *pool, struct instance_data *data);

/* Frees the font; for backends, after font_gone or at destroy. */
void ftpool__font_free(ftpool_font *font);

#endif /* FTPOOL_FONT_H */
