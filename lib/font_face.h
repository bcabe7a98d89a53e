/* SPDX-License-Identifier: MIT */
/*
 * Font faces: the faces a context opens on its font library for its font
 * instances (instance.h). Fonts with the same bytes (the same blob, or the
 * same version of one file), face index and coordinates share one, each
 * instance with its own FT_Size, but only one instance at a time may be
 * acquired on it (a face has one active size). The holder's alone, like
 * the rest of its font state; every function here runs inside its busy
 * bracket.
 */
#ifndef FTPOOL_FONT_FACE_H
#define FTPOOL_FONT_FACE_H

#include "instance.h"

struct font_face {
  struct font_face *next; /* the context's faces */
  FT_Face face;
  ftpool_blob *blob; /* its own reference: it may outlive the font */
  FT_Long face_index;
  FT_Fixed *coords;
  FT_UInt num_coords;
  FT_CharMap default_charmap; /* FreeType's choice at open */
  uint64_t colour;            /* the font colours selected last (font.h) */
  size_t instances;           /* instances with a size on it */
  struct instance *acquired;  /* the instance acquired on it, or NULL */
};

/* A face of s for font that no instance has acquired: one it shares, or a
 * new one. */
ftpool_status ftpool__font_face_get(struct font_state *s, ftpool_font *font,
                                    struct font_face **out);

/* A new size on ff, active, set to the font's, and the charmap and colours
 * the font asks for there, selected. */
ftpool_status ftpool__font_face_new_size(struct font_face *ff,
                                         ftpool_font *font, FT_Size *size,
                                         FT_CharMap *charmap);

ftpool_status ftpool__font_face_select_colour(struct font_face *ff,
                                              const ftpool_font *font);

/* The font's colours on ff, selected only if another font's were last:
 * fonts differing only in colours share faces, and most have FreeType's
 * defaults, so an acquire pays one compare. */
static inline ftpool_status ftpool__font_face_colour(struct font_face *ff,
                                                     const ftpool_font *font) {
  if (ff->colour == font->colour)
    return FTPOOL_OK;
  return ftpool__font_face_select_colour(ff, font);
}

/* Closes ff if no instance has a size on it; returns its blob reference,
 * to drop after the bracket, or NULL. */
ftpool_blob *ftpool__font_face_close_if_unused(struct font_state *s,
                                               struct font_face *ff);

/* ftpool_destroy, after FT_Done_Library closed the faces: their records. */
void ftpool__font_faces_free(struct font_state *s);

#endif /* FTPOOL_FONT_FACE_H */
