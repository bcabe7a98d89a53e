/* What every backend shares: the pool header and the backend interface. */
#ifndef FTPOOL_POOL_H
#define FTPOOL_POOL_H

#include "blob.h"
#include "file_cache.h"
#include "ftpool.h"

/* What ftpool keeps per face, in face->generic.data. */
struct face_rec {
  FT_Face face;
  ftpool *pool;
  ftpool_blob *blob;     /* the bytes, when the face was opened on a blob */
  void *owner;           /* the backend's owner of the face's library */
  struct face_rec *next; /* link while the close waits in a mailbox */
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
};

/* The first member of each backend's pool structure. */
struct ftpool {
  const struct backend *backend;
  FT_Memory memory;
  ftpool_configure_fn configure;
  void *configure_arg;
  struct blob_store blobs;
  struct file_cache files;
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

/* FT_Done_Face, then the face's blob reference; the caller must be allowed
 * to edit the face's library. */
void ftpool__face_done(struct face_rec *rec);

/* Creates and configures a library on the calling thread; memory must
 * outlive the library. */
struct library_memory;
ftpool_status ftpool__library_new(ftpool *pool, struct library_memory *memory,
                                  FT_Library *library);

#endif /* FTPOOL_POOL_H */
