/* SPDX-License-Identifier: MIT */
/* Opening and closing faces: argument checks and the per-face record. */
#include <stdio.h>
#include <string.h>

#include "errors.h"
#include "file_cache.h"
#include "memory.h"
#include "no_cancel.h"
#include "platform.h"
#include "pool.h"

/*
 * FreeType calls this from FT_Done_Face, whichever path closes the face
 * (ftpool_close, a drained mailbox, or FT_Done_Library in ftpool_destroy), so
 * the record is freed exactly once. Its address also marks the face as ours.
 */
static void face_rec_finalize(void *object) {
  FT_Face face = object;
  struct face_rec *rec = face->generic.data;
  ftpool__memory_free(rec->pool->memory, rec);
}

/*
 * FreeType answers "unknown format" for a font truncated inside its table
 * directory, as for bytes that are no font at all. A known signature in the
 * first bytes tells the two apart, so the user learns the file is damaged.
 */
int ftpool__has_font_signature(const unsigned char *head, size_t size) {
  static const char *const signatures[] = {
      "\x00\x01\x00\x00", "true", "typ1", "OTTO", "ttcf", "wOFF", "wOF2"};
  if (size < 4)
    return 0;
  for (size_t i = 0; i < sizeof signatures / sizeof *signatures; i++)
    if (memcmp(head, signatures[i], 4) == 0)
      return 1;
  return 0;
}

ftpool_status ftpool__bytes_open_status(ftpool_status status, int signature) {
  if (status == FTPOOL_ERR_CANNOT_OPEN)
    status = FTPOOL_ERR_UNKNOWN_FORMAT;
  if (status == FTPOOL_ERR_UNKNOWN_FORMAT && signature)
    status = FTPOOL_ERR_BROKEN_FONT;
  return status;
}

static int file_has_font_signature(const char *path) {
  unsigned char head[4];
  int cancel = ftpool__cancel_off();
  FILE *file = fopen(path, "rb");
  size_t got = 0;
  if (file) {
    got = fread(head, 1, sizeof head, file);
    fclose(file);
  }
  ftpool__cancel_restore(cancel);
  return ftpool__has_font_signature(head, got);
}

/* FreeType also calls a directory an unknown format. Only on failure. */
static ftpool_status refine_file_failure(const char *path,
                                         ftpool_status status) {
  if (status != FTPOOL_ERR_UNKNOWN_FORMAT)
    return status;
  struct file_identity identity;
  if (!ftpool__platform_file_identity(path, &identity))
    return FTPOOL_ERR_CANNOT_OPEN;
  return file_has_font_signature(path) ? FTPOOL_ERR_BROKEN_FONT : status;
}

/* Opens args; a blob, if given, passes its reference to the face (or is
 * dropped on failure). */
static ftpool_status open_face(ftpool *pool, const FT_Open_Args *args,
                               ftpool_blob *blob, FT_Long face_index,
                               FT_Face *face) {
  struct face_rec *rec = NULL;
  ftpool_status status;
  if (face_index < 0) {
    status = ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  } else if (!(rec = ftpool__memory_alloc(pool->memory, sizeof *rec))) {
    status = ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  } else {
    rec->mail.kind = &ftpool__close_mail;
    rec->pool = pool;
    rec->blob = blob;
    /* By path, FreeType opens and reads the file itself. */
    int cancel = blob ? 0 : ftpool__cancel_off();
    status = pool->backend->open(pool, args, face_index, rec);
    if (!blob)
      ftpool__cancel_restore(cancel);
  }
  if (status != FTPOOL_OK) {
    ftpool__memory_free(pool->memory, rec);
    if (blob)
      ftpool__blob_drop(blob);
    return status;
  }
  rec->face->generic.data = rec;
  rec->face->generic.finalizer = face_rec_finalize;
  *face = rec->face;
  return FTPOOL_OK;
}

static ftpool_status open_on_blob(ftpool *pool, ftpool_blob *blob,
                                  FT_Long face_index, FT_Face *face) {
  FT_Open_Args args = {.flags = FT_OPEN_MEMORY,
                       .memory_base = blob->bytes,
                       .memory_size = (FT_Long)blob->size};
  /* Before the open: a failed open drops the blob, maybe its last reference. */
  int signature = ftpool__has_font_signature(blob->bytes, blob->size);
  ftpool_status status = open_face(pool, &args, blob, face_index, face);
  return ftpool__bytes_open_status(status, signature);
}

ftpool_status ftpool_open_file(ftpool *pool, const char *path,
                               FT_Long face_index, FT_Face *face) {
  if (!pool || !path || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *face = NULL;
  if (pool->files.budget == 0 && FTPOOL_FREETYPE_OPENS_PATHS) {
    FT_Open_Args args = {.flags = FT_OPEN_PATHNAME, .pathname = (char *)path};
    return refine_file_failure(path,
                               open_face(pool, &args, NULL, face_index, face));
  }
  ftpool_blob *blob;
  ftpool_status status = ftpool_blob_from_file(pool, path, &blob);
  if (status != FTPOOL_OK)
    return status;
  return open_on_blob(pool, blob, face_index, face);
}

ftpool_status ftpool_open_memory(ftpool *pool, const void *data, size_t size,
                                 FT_Long face_index, FT_Face *face) {
  if (!pool || !data || !face || size == 0 || size > (size_t)FT_LONG_MAX)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *face = NULL;
  FT_Open_Args args = {.flags = FT_OPEN_MEMORY,
                       .memory_base = data,
                       .memory_size = (FT_Long)size};
  ftpool_status status = open_face(pool, &args, NULL, face_index, face);
  return status == FTPOOL_OK
             ? status
             : ftpool__bytes_open_status(
                   status, ftpool__has_font_signature(data, size));
}

ftpool_status ftpool_open_blob(ftpool *pool, ftpool_blob *blob,
                               FT_Long face_index, FT_Face *face) {
  if (!pool || !blob || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  *face = NULL;
  if (blob->pool != pool)
    return ftpool__fail(FTPOOL_ERR_FOREIGN_BLOB);
  ftpool__blob_retain(blob); /* the face's own reference */
  return open_on_blob(pool, blob, face_index, face);
}

ftpool_blob *ftpool__face_done(struct face_rec *rec) {
  ftpool_blob *blob = rec->blob;
  FT_Done_Face(rec->face); /* frees rec through its finalizer */
  return blob;
}

static ftpool_blob *close_posted(struct context *c, struct mail *m) {
  (void)c;
  return ftpool__face_done((struct face_rec *)m);
}

const struct mail_kind ftpool__close_mail = {NULL, close_posted, NULL, true};

ftpool_status ftpool_close(ftpool *pool, FT_Face face) {
  if (!pool || !face)
    return ftpool__fail(FTPOOL_ERR_INVALID_ARGUMENT);
  if (pool->destroying) /* a destructor's: the destroy closes every face */
    return FTPOOL_OK;
  if (face->generic.finalizer != face_rec_finalize)
    return ftpool__fail(FTPOOL_ERR_FOREIGN_FACE);
  struct face_rec *rec = face->generic.data;
  if (rec->pool != pool)
    return ftpool__fail(FTPOOL_ERR_FOREIGN_FACE);
  pool->backend->close(pool, rec);
  return FTPOOL_OK;
}
