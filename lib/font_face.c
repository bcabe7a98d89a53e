/* SPDX-License-Identifier: MIT */
#include "font_face.h"

#include <string.h>

#include "errors.h"
#include "memory.h"

#include FT_SIZES_H

static struct font_face *find(struct font_state *s, ftpool_font *font) {
  for (struct font_face *ff = s->faces; ff; ff = ff->next)
    if (!ff->acquired &&
        ftpool__font_same_face(font, ff->coords, ff->num_coords, ff->blob,
                               ff->face_index))
      return ff;
  return NULL;
}

static ftpool_status open_new(struct font_state *s, ftpool_font *font,
                              struct font_face **out) {
  FT_Memory memory = font->pool->memory;
  struct font_face *ff = ftpool__memory_alloc(memory, sizeof *ff);
  FT_Fixed *coords = NULL;
  if (ff && font->num_coords) {
    coords = ftpool__memory_alloc(memory, font->num_coords * sizeof *coords);
    if (coords)
      memcpy(coords, font->coords, font->num_coords * sizeof *coords);
  }
  ftpool_status status = FTPOOL_OK;
  if (!ff || (font->num_coords && !coords))
    status = ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  else
    status = ftpool__font_open_face(font, s->library, &ff->face);
  if (status != FTPOOL_OK) {
    ftpool__memory_free(memory, coords);
    ftpool__memory_free(memory, ff);
    return status;
  }
  ff->blob = font->blob;
  ftpool__blob_retain(ff->blob);
  ff->face_index = font->face_index;
  ff->coords = coords;
  ff->num_coords = font->num_coords;
  ff->default_charmap = ff->face->charmap;
  ff->colour = 0;
  ff->next = s->faces;
  s->faces = ff;
  counter_bump_single_writer(&s->face_count);
  *out = ff;
  return FTPOOL_OK;
}

ftpool_status ftpool__font_face_get(struct font_state *s, ftpool_font *font,
                                    struct font_face **out) {
  *out = find(s, font);
  return *out ? FTPOOL_OK : open_new(s, font, out);
}

ftpool_blob *ftpool__font_face_close_if_unused(struct font_state *s,
                                               struct font_face *ff) {
  if (ff->instances != 0)
    return NULL;
  struct font_face **link = &s->faces;
  while (*link != ff)
    link = &(*link)->next;
  *link = ff->next;
  FT_Done_Face(ff->face);
  ftpool_blob *blob = ff->blob;
  FT_Memory memory = blob->pool->memory;
  ftpool__memory_free(memory, ff->coords);
  ftpool__memory_free(memory, ff);
  counter_sub_single_writer(&s->face_count, 1);
  return blob;
}

static ftpool_status select_charmap(ftpool_font *font, struct font_face *ff,
                                    FT_CharMap *out) {
  if (font->encoding == FT_ENCODING_NONE) {
    *out = ff->default_charmap;
    return FTPOOL_OK;
  }
  FT_Error error = FT_Select_Charmap(ff->face, font->encoding);
  if (error)
    return ftpool__fail_freetype(error, 0);
  *out = ff->face->charmap;
  return FTPOOL_OK;
}

/* The record is written after the face, so that one cut short (by a
 * fork) is selected again by the next acquire. */
ftpool_status ftpool__font_face_select_colour(struct font_face *ff,
                                              const ftpool_font *font) {
  ftpool_status status = ftpool__colour_set(ff->face, font->colour);
  if (status == FTPOOL_OK)
    ff->colour = font->colour;
  return status;
}

ftpool_status ftpool__font_face_new_size(struct font_face *ff,
                                         ftpool_font *font, FT_Size *size,
                                         FT_CharMap *charmap) {
  FT_Error error = FT_New_Size(ff->face, size);
  if (error)
    return ftpool__fail_freetype(error, 0);
  FT_Activate_Size(*size);
  ftpool_status status = ftpool__font_set_size(font, ff->face);
  if (status == FTPOOL_OK)
    status = select_charmap(font, ff, charmap);
  if (status == FTPOOL_OK) /* checks the palette, at the font's creation */
    status = ftpool__font_face_colour(ff, font);
  if (status != FTPOOL_OK)
    FT_Done_Size(*size);
  return status;
}

void ftpool__font_faces_free(struct font_state *s) {
  while (s->faces) {
    struct font_face *ff = s->faces;
    s->faces = ff->next;
    FT_Memory memory = ff->blob->pool->memory;
    ftpool__blob_drop(ff->blob);
    ftpool__memory_free(memory, ff->coords);
    ftpool__memory_free(memory, ff);
  }
}
