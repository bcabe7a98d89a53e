/* SPDX-License-Identifier: MIT */
/* What every backend shares: the pool header and the backend interface. */
#ifndef FTPOOL_POOL_H
#define FTPOOL_POOL_H

#include "blob.h"
#include "file_cache.h"
#include "font.h"
#include "ftpool.h"
#include "glyph_cache.h"

/* What a context's mailbox (context.h) carries: the first member of a face
 * to close or of a font instance to drop because its font is gone. Its
 * address is pointer-aligned, so bit 0 is free for the mailbox's state.
 * Each kind says how it is carried out, so the mailbox knows neither faces
 * nor fonts. */
struct mail {
  struct mail *next; /* link while it waits in a mailbox */
  const struct mail_kind *kind;
};

/* A user callback that carrying out a mail leaves for after the busy
 * bracket (an instance's data destructor). */
struct mail_callback {
  void *data;
  void (*run)(void *data);
};

struct context;

/* Carrying out a mail, in three parts around the holder's busy bracket. */
struct mail_kind {
  /* Before the bracket: takes from m what runs after it; NULL for none. */
  struct mail_callback (*before)(struct mail *m);
  /* Inside: the library's edit, which may free m; returns a blob
   * reference to drop after the bracket, or NULL. */
  ftpool_blob *(*inside)(struct context *c, struct mail *m);
  /* After the bracket and the blob's drop; NULL for none. */
  void (*after)(struct context *c, struct mail_callback *callback);
  bool is_close; /* counted in the context's closes */
};

/* Closing a face posted by a thread that does not hold its context. */
extern const struct mail_kind ftpool__close_mail;

/* What ftpool keeps per face, in face->generic.data. */
struct face_rec {
  struct mail mail;
  FT_Face face;
  ftpool *pool;
  ftpool_blob *blob; /* the bytes, when the face was opened on a blob */
  void *owner;       /* the backend's owner of the face's library */
};

struct backend {
  ftpool_status (*library)(ftpool *pool, FT_Library *library);
  /* Opens args/face_index on a library the caller may use and fills
   * rec->face and rec->owner. */
  ftpool_status (*open)(ftpool *pool, const FT_Open_Args *args,
                        FT_Long face_index, struct face_rec *rec);
  /* Closes rec->face now or hands it to whoever may; cannot fail. */
  void (*close)(ftpool *pool, struct face_rec *rec);
  void (*collect)(ftpool *pool);
  void (*stats)(ftpool *pool, ftpool_stats *stats);
  void (*destroy)(ftpool *pool);
  /* Shared fonts (font.h). prepare makes the caller's instance of a new
   * font, so that a bad description fails ftpool_font_create; gone closes
   * every instance of a font whose last reference went (or hands each to
   * whoever may close it); the font is freed right after it returns. */
  ftpool_status (*font_prepare)(ftpool_font *font);
  ftpool_status (*font_acquire)(ftpool_font *font, FT_Face *face);
  ftpool_status (*font_give_back)(ftpool_font *font, FT_Face face);
  /* The data slot of the instance behind a face the caller acquired from
   * the font, or NULL. */
  struct instance_data *(*font_data)(ftpool_font *font, FT_Face face);
  void (*font_gone)(ftpool_font *font);
  /* The glyph cache's lookup of req (glyph_cache.h) on a face the caller
   * acquired from font, its hash filled in. */
  ftpool_status (*font_glyph)(ftpool_font *font, FT_Face face,
                              const struct glyph_request *req,
                              struct glyph_entry **out);
  /* ftpool_quiescent: the caller reads no glyph it got before. */
  void (*quiescent)(ftpool *pool);
};

/* The first member of each backend's pool structure. */
struct ftpool {
  const struct backend *backend;
  FT_Memory memory;
  ftpool_configure_fn configure;
  void *configure_arg;
  struct blob_store blobs;
  struct file_cache files;
  size_t font_idle_instances; /* per context */
  size_t font_idle_bytes;
  atomic_counter fonts;      /* live */
  struct glyph_cache glyphs; /* the backend's to initialise and free */
  /* Set by ftpool_destroy, which no other call may overlap: the releases
   * and closes that data destructors make from it are no-ops, since the
   * destroy frees everything, fonts and faces included, in its own order. */
  bool destroying;
};

/* Each returns a pool with its header filled in from config. */
ftpool_status ftpool__per_thread_create(const ftpool_config *config,
                                        ftpool **pool);
ftpool_status ftpool__shared_mutex_create(const ftpool_config *config,
                                          ftpool **pool);

void ftpool__pool_init_header(ftpool *pool, const struct backend *backend,
                              const ftpool_config *config);

/* Frees the blobs and the file cache; for a backend's destroy, after its
 * libraries (and so every face) are gone. */
void ftpool__pool_fini_header(ftpool *pool);

/* FT_Done_Face; the caller must be allowed to edit the face's library.
 * Returns the face's blob reference (or NULL), for the caller to drop after
 * FreeType is done with the bytes and once it holds no lock: dropping the
 * last reference runs the blob's release callback. */
ftpool_blob *ftpool__face_done(struct face_rec *rec);

/* FreeType answers "unknown format" for a font truncated inside its table
 * directory as for bytes that are no font at all; a known signature in the
 * first bytes tells the two apart. */
int ftpool__has_font_signature(const unsigned char *head, size_t size);

/* The status of a failed open of bytes in memory (a blob, the caller's),
 * given whether they start with a font's signature. There, FreeType's
 * "cannot open resource" is its Mac resource-fork probe taking the bytes
 * for a fork's header and finding no font in it: bytes of no format it
 * knows, not a file that cannot be opened; and an unknown format with a
 * font's signature is a font truncated inside its table directory. */
ftpool_status ftpool__bytes_open_status(ftpool_status status, int signature);

/* Creates and configures a library on the calling thread; memory must
 * outlive the library. */
struct library_memory;
ftpool_status ftpool__library_new(ftpool *pool, struct library_memory *memory,
                                  FT_Library *library);

#endif /* FTPOOL_POOL_H */
