/* SPDX-License-Identifier: MIT */
/* Shared fonts: the description, its checks, and the public entry points,
 * which dispatch to the pool's backend. */
#include <string.h>

#include "errors.h"
#include "memory.h"
#include "no_cancel.h"
#include "pool.h"

#include FT_COLOR_H
#include FT_MULTIPLE_MASTERS_H

/*
 * The pools whose instance data destructors this thread is running, the
 * innermost first. Such a destructor may not acquire or create a font of
 * its pool: the instance it belongs to may be in the middle of going, or
 * (a replacement) acquired by the caller. Kept per thread, not per
 * context: a destructor runs on the thread that holds the context, its
 * owner or one that adopted it, and a fork() child's other threads take
 * their frames with them. A list, not a flag: a destructor may release
 * another pool's font, whose destructor runs inside.
 */
struct destroying_frame {
  const ftpool *pool;
  const struct destroying_frame *outer;
};
static _Thread_local const struct destroying_frame *destroying_data;

static bool in_data_destructor(const ftpool *pool) {
  for (const struct destroying_frame *f = destroying_data; f; f = f->outer)
    if (f->pool == pool)
      return true;
  return false;
}

void ftpool__instance_data_destroy_in(ftpool *pool,
                                      struct instance_data *data) {
  struct instance_data taken = *data;
  *data = (struct instance_data){NULL, NULL};
  if (!taken.destroy)
    return;
  struct destroying_frame frame = {pool, destroying_data};
  destroying_data = &frame;
  int cancel = ftpool__cancel_off();
  taken.destroy(taken.data);
  ftpool__cancel_restore(cancel);
  destroying_data = frame.outer;
}

void ftpool_font_desc_init(ftpool_font_desc *desc) {
  if (desc)
    memset(desc, 0, sizeof *desc);
}

static bool desc_is_valid(const ftpool_font_desc *d) {
  return !d->path != !d->blob && d->face_index >= 0 &&
         (d->num_coords == 0 || d->coords) && d->char_width >= 0 &&
         d->char_height >= 0 && (d->char_height > 0 || d->pixel_height > 0);
}

/* The description's colours as ftpool__colour_set takes them. */
static uint64_t colour_word(const ftpool_font_desc *d) {
  uint64_t word = (uint64_t)d->palette_index << 32;
  const FT_Color *c = d->foreground_color;
  if (c)
    word |= (uint64_t)1 << 48 | (uint64_t)c->alpha << 24 |
            (uint64_t)c->red << 16 | (uint64_t)c->green << 8 | c->blue;
  return word;
}

/* The font with its description copied in and the blob's reference taken,
 * or a status. */
static ftpool_status new_font(ftpool *pool, const ftpool_font_desc *d,
                              ftpool_font **out) {
  ftpool_blob *blob = d->blob;
  ftpool_status status;
  if (blob) {
    if (blob->pool != pool)
      return ftpool__fail(FTPOOL_ERR_FOREIGN_BLOB);
    ftpool__blob_retain(blob);
  } else if ((status = ftpool_blob_from_file(pool, d->path, &blob)) !=
             FTPOOL_OK) {
    return status;
  }
  FT_Fixed *coords = NULL;
  ftpool_font *font = ftpool__memory_alloc(pool->memory, sizeof *font);
  if (!font)
    goto out_of_memory;
  if (d->num_coords) {
    coords = ftpool__memory_alloc(pool->memory, d->num_coords * sizeof *coords);
    if (!coords)
      goto out_of_memory;
    memcpy(coords, d->coords, d->num_coords * sizeof *coords);
  }
  font->pool = pool;
  refcount_init(&font->refs);
  refcount_add_relaxed(&font->refs);
  font->blob = blob;
  font->face_index = d->face_index;
  font->coords = coords;
  font->num_coords = d->num_coords;
  font->char_width = d->char_width;
  font->char_height = d->char_height;
  font->horz_resolution = d->horz_resolution;
  font->vert_resolution = d->vert_resolution;
  font->pixel_width = d->pixel_width;
  font->pixel_height = d->pixel_height;
  font->encoding = d->encoding;
  font->colour = colour_word(d);
  if (!(font->glyph_key = ftpool__glyph_key_new(font)))
    goto out_of_memory;
  ftpool__chunked_init(&font->instances);
  *out = font;
  return FTPOOL_OK;

out_of_memory:
  ftpool__memory_free(pool->memory, coords);
  ftpool__memory_free(pool->memory, font);
  ftpool__blob_drop(blob);
  return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
}

void ftpool__font_free(ftpool_font *font) {
  FT_Memory memory = font->pool->memory;
  ftpool__chunked_fini(&font->instances, memory, sizeof(void *), NULL, NULL);
  ftpool__memory_free(memory, font->coords);
  ftpool__glyph_key_release(memory, font->glyph_key);
  ftpool__blob_drop(font->blob);
  ftpool__memory_free(memory, font);
}

ftpool_status ftpool_font_create(ftpool *pool, const ftpool_font_desc *desc,
                                 ftpool_font **font) {
  if (!pool || !desc || !font)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *font = NULL;
  if (!desc_is_valid(desc))
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  if (in_data_destructor(pool))
    return ftpool__fail(FTPOOL_ERR_REENTRANT);
  ftpool_font *made = NULL;
  ftpool_status status = new_font(pool, desc, &made);
  if (status != FTPOOL_OK)
    return status;
  if ((status = pool->backend->font_prepare(made)) != FTPOOL_OK) {
    ftpool__font_free(made);
    return status;
  }
  counter_add_relaxed(&pool->fonts, 1);
  *font = made;
  return FTPOOL_OK;
}

ftpool_status ftpool_font_retain(ftpool_font *font) {
  if (!font)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  refcount_add_relaxed(&font->refs);
  return FTPOOL_OK;
}

void ftpool_font_release(ftpool_font *font) {
  /* acq_rel: every holder's use of the font happens before it goes. */
  if (!font || font->pool->destroying || refcount_sub_acq_rel(&font->refs) != 0)
    return;
  ftpool *pool = font->pool;
  pool->backend->font_gone(font);
  counter_sub_relaxed(&pool->fonts, 1);
  ftpool__font_free(font);
}

ftpool_status ftpool_font_acquire(ftpool_font *font, FT_Face *face) {
  if (!font || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *face = NULL;
  if (in_data_destructor(font->pool))
    return ftpool__fail(FTPOOL_ERR_REENTRANT);
  return font->pool->backend->font_acquire(font, face);
}

ftpool_status ftpool_font_give_back(ftpool_font *font, FT_Face face) {
  if (!font || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  /* A destructor's, from ftpool_destroy, which is freeing the instances
   * (the caller's too, maybe): it gives every face back. */
  if (font->pool->destroying)
    return FTPOOL_OK;
  return font->pool->backend->font_give_back(font, face);
}

ftpool_status ftpool_font_set_instance_data(ftpool_font *font, FT_Face face,
                                            void *data,
                                            void (*destroy)(void *data)) {
  if (!font || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  struct instance_data *slot = font->pool->backend->font_data(font, face);
  if (!slot)
    return ftpool__fail(FTPOOL_ERR_NOT_ACQUIRED);
  struct instance_data old = *slot;
  *slot = (struct instance_data){data, destroy};
  ftpool__instance_data_destroy_in(font->pool, &old);
  return FTPOOL_OK;
}

ftpool_status ftpool_font_instance_data(ftpool_font *font, FT_Face face,
                                        void **data) {
  if (!font || !face || !data)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  struct instance_data *slot = font->pool->backend->font_data(font, face);
  *data = slot ? slot->data : NULL;
  return slot ? FTPOOL_OK : ftpool__fail(FTPOOL_ERR_NOT_ACQUIRED);
}

/* Two blobs of one version of a file hold the same bytes: with the file
 * cache off each font made from a path reads its own, and its sizes must
 * still share a face. The face keeps a reference to the blob it was opened
 * on, so its bytes outlive the font that opened it. */
static bool same_bytes(const ftpool_blob *a, const ftpool_blob *b) {
  return a == b || (a->identity.size != 0 && /* both from files */
                    ftpool__same_identity(&a->identity, &b->identity));
}

bool ftpool__font_same_face(const ftpool_font *a, const FT_Fixed *coords,
                            FT_UInt num_coords, ftpool_blob *blob,
                            FT_Long face_index) {
  return same_bytes(a->blob, blob) && a->face_index == face_index &&
         a->num_coords == num_coords &&
         (num_coords == 0 ||
          memcmp(a->coords, coords, num_coords * sizeof *coords) == 0);
}

/* Checks the font's coordinates against the face's axes and sets them. */
static ftpool_status set_coords(ftpool_font *font, FT_Library library,
                                FT_Face face) {
  if (font->num_coords == 0)
    return FTPOOL_OK;
  if (!FT_HAS_MULTIPLE_MASTERS(face))
    return ftpool__fail(FTPOOL_ERR_NOT_VARIABLE);
  FT_MM_Var *mm;
  FT_Error error = FT_Get_MM_Var(face, &mm);
  if (error)
    return ftpool__fail_freetype(error, 0);
  FT_UInt axes = mm->num_axis;
  FT_Done_MM_Var(library, mm);
  if (font->num_coords > axes)
    return ftpool__fail(FTPOOL_ERR_NOT_VARIABLE);
  error = FT_Set_Var_Design_Coordinates(face, font->num_coords, font->coords);
  return error ? ftpool__fail_freetype(error, 0) : FTPOOL_OK;
}

ftpool_status ftpool__font_open_face(ftpool_font *font, FT_Library library,
                                     FT_Face *out) {
  const ftpool_blob *blob = font->blob;
  FT_Open_Args args = {.flags = FT_OPEN_MEMORY,
                       .memory_base = blob->bytes,
                       .memory_size = (FT_Long)blob->size};
  FT_Face face;
  FT_Error error = FT_Open_Face(library, &args, font->face_index, &face);
  if (error) {
    return ftpool__bytes_open_status(
        ftpool__fail_freetype(error, font->face_index != 0),
        ftpool__has_font_signature(blob->bytes, blob->size));
  }
  ftpool_status status = set_coords(font, library, face);
  if (status != FTPOOL_OK) {
    FT_Done_Face(face);
    return status;
  }
  *out = face;
  return FTPOOL_OK;
}

ftpool_status ftpool__colour_set(FT_Face face, uint64_t colour) {
  FT_Palette_Data palettes;
  /* A FreeType built without colour layers has no palettes to choose. */
  if (FT_Palette_Data_Get(face, &palettes))
    palettes = (FT_Palette_Data){0};
  const FT_UShort palette = (FT_UShort)(colour >> 32);
  if (palette != 0 && palette >= palettes.num_palettes)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  if (palettes.num_palettes) {
    FT_Error error = FT_Palette_Select(face, palette, NULL);
    if (error)
      return ftpool__fail_freetype(error, 0);
  }
  /* FreeType has no call that forgets a foreground colour: the one it
   * would use without (ftcolor.h) is set instead, to undo another font's. */
  const bool dark = palettes.palette_flags && (palettes.palette_flags[palette] &
                                               FT_PALETTE_FOR_DARK_BACKGROUND);
  FT_Color c = {dark ? 0xFF : 0, dark ? 0xFF : 0, dark ? 0xFF : 0, 0xFF};
  if (colour >> 48) {
    c.blue = (FT_Byte)colour;
    c.green = (FT_Byte)(colour >> 8);
    c.red = (FT_Byte)(colour >> 16);
    c.alpha = (FT_Byte)(colour >> 24);
  }
  /* It fails only where FreeType has no colour layers to draw with it. */
  FT_Palette_Set_Foreground_Color(face, c);
  return FTPOOL_OK;
}

ftpool_status ftpool__font_set_size(ftpool_font *font, FT_Face face) {
  FT_Error error =
      font->char_height
          ? FT_Set_Char_Size(face, font->char_width, font->char_height,
                             font->horz_resolution, font->vert_resolution)
          : FT_Set_Pixel_Sizes(face, font->pixel_width, font->pixel_height);
  if (!error)
    return FTPOOL_OK;
  ftpool_status status = ftpool__fail_freetype(error, 0);
  return status == FTPOOL_ERR_OUT_OF_MEMORY ? status : FTPOOL_ERR_INVALID_SIZE;
}
