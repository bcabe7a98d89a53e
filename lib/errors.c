/* SPDX-License-Identifier: MIT */
#include "errors.h"

#include FT_ERRORS_H

static _Thread_local FT_Error last_ft_error;

ftpool_status ftpool__fail(ftpool_status status) {
  last_ft_error = 0;
  return status;
}

static ftpool_status status_of(FT_Error error, int nonzero_index) {
  int base = FT_ERROR_BASE(error);
  switch (base) {
  case FT_Err_Out_Of_Memory:
    return FTPOOL_ERR_OUT_OF_MEMORY;
  case FT_Err_Cannot_Open_Resource:
  case FT_Err_Cannot_Open_Stream:
    return FTPOOL_ERR_CANNOT_OPEN;
  case FT_Err_Unknown_File_Format:
    return FTPOOL_ERR_UNKNOWN_FORMAT;
  case FT_Err_Invalid_Argument:
    /* FreeType's answer to an index past the last face of a file. */
    return nonzero_index ? FTPOOL_ERR_FACE_INDEX : FTPOOL_ERR_FREETYPE;
  case FT_Err_Invalid_File_Format:
  case FT_Err_Invalid_Version:
  case FT_Err_Invalid_Table:
  case FT_Err_Invalid_Offset:
  case FT_Err_Array_Too_Large:
    return FTPOOL_ERR_BROKEN_FONT;
  }
  /* Stream errors (a read past the end of truncated data) and the format
   * drivers' table errors (TrueType, CFF, BDF, ...): all mean bad bytes. */
  if ((base >= FT_Err_Invalid_Stream_Seek && base <= 0x5F) ||
      (base >= 0x80 && base <= 0xBF))
    return FTPOOL_ERR_BROKEN_FONT;
  return FTPOOL_ERR_FREETYPE;
}

ftpool_status ftpool__fail_freetype(FT_Error error, int nonzero_index) {
  last_ft_error = error;
  return status_of(error, nonzero_index);
}

FT_Error ftpool_last_ft_error(void) { return last_ft_error; }

const char *ftpool_strerror(ftpool_status status) {
  switch (status) {
  case FTPOOL_OK:
    return "success";
  case FTPOOL_ERR_INVALID_ARGUMENT:
    return "invalid argument (a NULL pointer, a negative face index or an "
           "unknown configuration value)";
  case FTPOOL_ERR_OUT_OF_MEMORY:
    return "out of memory";
  case FTPOOL_ERR_CANNOT_OPEN:
    return "cannot open the font file (missing, unreadable or not a regular "
           "file)";
  case FTPOOL_ERR_UNKNOWN_FORMAT:
    return "not a font format FreeType knows";
  case FTPOOL_ERR_BROKEN_FONT:
    return "the font data is truncated or corrupt";
  case FTPOOL_ERR_FACE_INDEX:
    return "the font has no face with that index";
  case FTPOOL_ERR_CONFIGURE:
    return "the configure callback failed";
  case FTPOOL_ERR_FOREIGN_FACE:
    return "the face was not opened by this pool (or its generic field was "
           "overwritten)";
  case FTPOOL_ERR_THREAD:
    return "no thread-specific data key or slot available";
  case FTPOOL_ERR_REENTRANT:
    return "called from the configure callback on the thread it is "
           "configuring (the thread's library is not ready yet), or a font "
           "acquired from an instance data destructor";
  case FTPOOL_ERR_FOREIGN_BLOB:
    return "the blob was made by another pool";
  case FTPOOL_ERR_FREETYPE:
    return "FreeType failed (see ftpool_last_ft_error)";
  case FTPOOL_ERR_NOT_ACQUIRED:
    return "the face is not one this thread acquired from that font (or it "
           "was given back already)";
  case FTPOOL_ERR_NOT_VARIABLE:
    return "variation coordinates for a font without variation axes, or "
           "more coordinates than it has axes";
  case FTPOOL_ERR_INVALID_SIZE:
    return "FreeType refused the font's size";
  case FTPOOL_ERR_GLYPH_INDEX:
    return "glyph index out of range (not below the face's num_glyphs)";
  case FTPOOL_ERR_LOAD_FLAGS:
    return "load flags the glyph cache cannot honour (FT_LOAD_NO_SCALE, "
           "FT_LOAD_NO_RECURSE or FT_LOAD_BITMAP_METRICS_ONLY)";
  case FTPOOL_ERR_SIZE_CHANGED:
    return "the glyph cache renders the font's size, and the acquired "
           "face's size was changed";
  }
  return "unknown ftpool status";
}
