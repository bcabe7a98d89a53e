/* SPDX-License-Identifier: MIT */
/*
 * ftpool_text's line renderer: lays out a line of text with plain pen
 * advances and draws it into an 8-bit gray image, either with FreeType on a
 * face (FT_Get_Advance, FT_Load_Char) or through the pool's glyph cache on a
 * shared font's acquired face (ftpool_font_advance, ftpool_font_glyph), to
 * the same pixels. Both run without the GIL, on the thread that holds the
 * face.
 */
#ifndef FTPOOL_TEXT_RENDER_H
#define FTPOOL_TEXT_RENDER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ftpool.h"

/* A rendered line: an 8-bit gray image, width * height bytes, row-major
 * (pixels from malloc; the caller frees them, also after a failure). */
struct canvas {
  int width, height;
  unsigned char *pixels;
};

/* With FreeType on face, at its current size. Returns a FreeType error. */
FT_Error render_line(FT_Face face, const Py_UCS4 *text, Py_ssize_t n,
                     struct canvas *canvas);

/* Through the glyph cache on face, which the calling thread acquired from
 * font: advances with ftpool_font_advance, bitmaps with ftpool_font_glyph,
 * both with FT_LOAD_DEFAULT, which FT_Load_Char(FT_LOAD_RENDER) renders
 * with. The glyphs are read before this returns, so before the give-back.
 * Returns ftpool's status; *ft_error is FreeType's error, or 0. */
ftpool_status render_line_cached(ftpool_font *font, FT_Face face,
                                 const Py_UCS4 *text, Py_ssize_t n,
                                 struct canvas *canvas, FT_Error *ft_error);

#endif /* FTPOOL_TEXT_RENDER_H */
