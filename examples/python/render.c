/* SPDX-License-Identifier: MIT */
/* ftpool_text's line renderer (render.h). */
#include "render.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>

#include FT_ADVANCES_H

/* Draws a glyph's bitmap with its origin at (x, baseline), clipped. */
static void draw(struct canvas *canvas, const FT_Bitmap *bitmap, int x, int y) {
  for (unsigned row = 0; row < bitmap->rows; row++) {
    int cy = y + (int)row;
    if (cy < 0 || cy >= canvas->height)
      continue;
    const unsigned char *src = bitmap->buffer + (ptrdiff_t)row * bitmap->pitch;
    unsigned char *dst = canvas->pixels + (size_t)cy * canvas->width;
    for (unsigned col = 0; col < bitmap->width; col++) {
      int cx = x + (int)col;
      if (cx >= 0 && cx < canvas->width && src[col] > dst[cx])
        dst[cx] = src[col];
    }
  }
}

/* Adds a 16.16 advance, rounded up to whole pixels, to the line's width. */
static FT_Error add_advance(int64_t *width, FT_Fixed advance) {
  *width += (advance + 0xffff) >> 16;
  return *width > INT_MAX ? FT_Err_Invalid_Argument : 0;
}

/* Allocates the canvas: the width, and the face's ascender to descender. */
static FT_Error make_canvas(struct canvas *canvas, FT_Face face,
                            int64_t width) {
  int ascender = (int)(face->size->metrics.ascender >> 6);
  int descender = (int)(face->size->metrics.descender >> 6);
  canvas->width = (int)width;
  canvas->height = ascender > descender ? ascender - descender : 0;
  if (canvas->height && canvas->width > PY_SSIZE_T_MAX / canvas->height)
    return FT_Err_Out_Of_Memory;
  canvas->pixels = calloc((size_t)canvas->width * canvas->height + 1, 1);
  return canvas->pixels ? 0 : FT_Err_Out_Of_Memory;
}

static int baseline(FT_Face face) {
  return (int)(face->size->metrics.ascender >> 6);
}

FT_Error render_line(FT_Face face, const Py_UCS4 *text, Py_ssize_t n,
                     struct canvas *canvas) {
  /* First the advances, which need no rendering, to size the canvas. */
  int64_t width = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    FT_Fixed advance;
    FT_Error error = FT_Get_Advance(face, FT_Get_Char_Index(face, text[i]),
                                    FT_LOAD_DEFAULT, &advance);
    if (error || (error = add_advance(&width, advance)))
      return error;
  }
  FT_Error error = make_canvas(canvas, face, width);
  if (error)
    return error;
  int pen = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    if ((error = FT_Load_Char(face, text[i], FT_LOAD_RENDER)))
      return error;
    FT_GlyphSlot g = face->glyph;
    draw(canvas, &g->bitmap, pen + g->bitmap_left,
         baseline(face) - g->bitmap_top);
    pen += (int)((g->advance.x + 63) >> 6);
  }
  return 0;
}

/* A failed ftpool call's status, with FreeType's error if it had one. */
static ftpool_status failed(ftpool_status status, FT_Error *ft_error) {
  *ft_error = ftpool_last_ft_error();
  return status;
}

ftpool_status render_line_cached(ftpool_font *font, FT_Face face,
                                 const Py_UCS4 *text, Py_ssize_t n,
                                 struct canvas *canvas, FT_Error *ft_error) {
  *ft_error = 0;
  int64_t width = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    FT_Fixed advance;
    ftpool_status status =
        ftpool_font_advance(font, face, FT_Get_Char_Index(face, text[i]),
                            FT_LOAD_DEFAULT, &advance);
    if (status != FTPOOL_OK)
      return failed(status, ft_error);
    if ((*ft_error = add_advance(&width, advance)))
      return FTPOOL_ERR_FREETYPE;
  }
  if ((*ft_error = make_canvas(canvas, face, width)))
    return FTPOOL_ERR_FREETYPE;
  int pen = 0;
  for (Py_ssize_t i = 0; i < n; i++) {
    const ftpool_glyph *g;
    ftpool_status status = ftpool_font_glyph(
        font, face, FT_Get_Char_Index(face, text[i]), FT_LOAD_DEFAULT, &g);
    if (status != FTPOOL_OK)
      return failed(status, ft_error);
    draw(canvas, &g->bitmap, pen + g->left, baseline(face) - g->top);
    pen += (int)((g->advance.x + 63) >> 6);
  }
  return FTPOOL_OK;
}
