/*
 * ftpool: FreeType from many threads, with no lock on the face paths.
 *
 * FreeType's FT_Library is not thread-safe: FT_New_Face and FT_Done_Face on
 * one library from two threads corrupt its driver lists. A pool hands every
 * thread its own FT_Library, created on the thread's first call, so faces are
 * opened and closed without a mutex. A face may be closed from any thread and
 * may outlive the thread that opened it.
 *
 * Thread-safety contract (see docs/design.md for the protocol):
 *   - Every function may be called from any thread at any time, except
 *     ftpool_destroy, which must not overlap any other call on the same pool
 *     nor the exit of a thread that used it (join those threads first).
 *   - An FT_Face may be used (sizes, glyph loading, rendering) by one thread
 *     at a time; that is FreeType's rule. Hand a face between threads with the
 *     usual happens-before (a mutex, a queue, a thread join).
 *   - The FT_Library returned by ftpool_library belongs to the calling thread
 *     (per-thread backend): use it from that thread only.
 *   - fork(): the child may go on using its pools. With the per-thread
 *     backend, the contexts of the threads that did not survive the fork are
 *     abandoned there, as if those threads had exited: their faces can be
 *     closed and their libraries reused. One whose thread was inside
 *     FreeType at that instant may be half-edited: it is quarantined, never
 *     used in the child, and its library leaked there (see the stats). With
 *     the shared-mutex backend, fork() waits for the thread inside the
 *     pool's mutex, if any, to leave it.
 *
 * Undefined behaviour (not detected):
 *   - closing a face twice, or using it after ftpool_close;
 *   - using one face from two threads at the same time;
 *   - calling FT_Done_Face on a face from a pool (close it with ftpool_close;
 *     an extra FT_Reference_Face is balanced by FT_Done_Face as usual, but the
 *     last reference must be dropped by ftpool_close);
 *   - overwriting face->generic, which the pool uses to find a face's owner
 *     (so do not use HarfBuzz's hb_ft_face_create_cached on pool faces; use
 *     hb_ft_font_create_referenced);
 *   - FT_Reference_Library or FT_Done_Library on a pool's library;
 *   - leaving the configure callback other than by returning (pthread_exit,
 *     longjmp, cancellation);
 *   - fork() while another thread uses its ftpool_library library directly
 *     (not through the pool): the pool cannot see that, and the child may
 *     reuse that library;
 *   - releasing a blob more often than it was given or retained;
 *   - any call on a pool after ftpool_destroy, or with its blobs.
 *
 * Every function that can fail returns an ftpool_status; ftpool_strerror
 * gives a message for each. When FreeType itself failed, ftpool_last_ft_error
 * gives FreeType's error code on the calling thread.
 */
#ifndef FTPOOL_H
#define FTPOOL_H

#include <stddef.h>

#include <ft2build.h>
#include FT_FREETYPE_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this header, in the one place it is written (CMakeLists.txt
 * reads it from here). ftpool_version gives the version of the library
 * actually linked, which can differ from the header's when a program runs
 * against another build of the shared library. The shared library's soname
 * carries MAJOR (libftpool.so.0): a new MAJOR breaks the ABI, a new MINOR
 * only adds to it.
 */
#define FTPOOL_VERSION_MAJOR 0
#define FTPOOL_VERSION_MINOR 1
#define FTPOOL_VERSION_PATCH 0
#define FTPOOL_VERSION_STRING                                                  \
  FTPOOL__STR(FTPOOL_VERSION_MAJOR)                                            \
  "." FTPOOL__STR(FTPOOL_VERSION_MINOR) "." FTPOOL__STR(FTPOOL_VERSION_PATCH)
#define FTPOOL__STR(x) FTPOOL__STR2(x)
#define FTPOOL__STR2(x) #x

typedef enum ftpool_status {
  FTPOOL_OK = 0,
  FTPOOL_ERR_INVALID_ARGUMENT, /* NULL pointer, bad size, bad config value */
  FTPOOL_ERR_OUT_OF_MEMORY,    /* an allocation failed */
  FTPOOL_ERR_CANNOT_OPEN,      /* the file is missing or unreadable */
  FTPOOL_ERR_UNKNOWN_FORMAT,   /* the data is not a font FreeType knows */
  FTPOOL_ERR_BROKEN_FONT,      /* a known format, but truncated or corrupt */
  FTPOOL_ERR_FACE_INDEX,       /* no face with that index in the file */
  FTPOOL_ERR_CONFIGURE,        /* the configure callback returned an error */
  FTPOOL_ERR_FOREIGN_FACE,     /* the face was not opened by this pool */
  FTPOOL_ERR_THREAD,           /* no thread-specific key or slot available */
  FTPOOL_ERR_REENTRANT,        /* called from the configure callback on the
                                  library it is configuring */
  FTPOOL_ERR_FOREIGN_BLOB,     /* the blob belongs to another pool */
  FTPOOL_ERR_FREETYPE          /* any other FreeType error */
} ftpool_status;

typedef enum ftpool_backend {
  /* One FT_Library per thread, kept in a lock-free registry (the default). */
  FTPOOL_BACKEND_PER_THREAD = 0,
  /* One FT_Library and one mutex around open and close: the design Pillow
   * shipped, kept for comparison. */
  FTPOOL_BACKEND_SHARED_MUTEX = 1
} ftpool_backend;

/*
 * Called once for every FT_Library the pool creates, on the thread that will
 * own it (per-thread backend: the thread's first call; shared-mutex backend:
 * inside ftpool_create), before the library is used. Set properties here
 * (FT_Property_Set, FT_Library_SetLcdFilter, ...). Return 0 on success; any
 * other value fails the call that needed the library with
 * FTPOOL_ERR_CONFIGURE and is kept as ftpool_last_ft_error. The pool never
 * waits on another thread while this runs and never holds a lock across it,
 * so it may take the caller's own locks (a GIL, say). A call into the same
 * pool from the callback, on the thread being configured, fails with
 * FTPOOL_ERR_REENTRANT instead of recursing.
 */
typedef FT_Error (*ftpool_configure_fn)(FT_Library library, void *arg);

/* The file cache's default budget: 64 MiB of font bytes. */
#define FTPOOL_DEFAULT_FILE_CACHE_BYTES ((size_t)64 << 20)

typedef struct ftpool_config {
  ftpool_backend backend;
  /* Allocator for every library and for the pool's own structures; NULL for
   * malloc. It must be thread-safe, return memory aligned as malloc's, and
   * outlive the pool. Libraries call it through a copy of the record (same
   * user and functions), so it must find its state through memory->user,
   * not the record's address. When it fails, the call that needed the
   * memory fails with FTPOOL_ERR_OUT_OF_MEMORY and the pool stays usable. */
  FT_Memory memory;
  ftpool_configure_fn configure; /* may be NULL */
  void *configure_arg;
  /* Bytes of font files the pool keeps in memory for ftpool_open_file, so
   * that opening a face by path reads the file once, not once per open.
   * 0 turns the cache off: every open by path is FreeType's own (it maps
   * the file at each open and unmaps it at each close). */
  size_t file_cache_bytes;
} ftpool_config;

/* The immutable bytes of a font, shared by threads and faces. */
typedef struct ftpool_blob ftpool_blob;

typedef struct ftpool ftpool;

/* A snapshot; under concurrent use the fields are each exact but need not
 * be from the same instant. */
typedef struct ftpool_stats {
  size_t contexts;          /* contexts (libraries) the pool holds */
  size_t contexts_owned;    /* of those, owned by a thread right now */
  size_t contexts_recycled; /* a new thread took over an exited one's */
  size_t contexts_adopted;  /* a closer borrowed an exited one's to close */
  /* In a fork() child: contexts of threads that did not survive the fork,
   * given back for reuse, and those whose thread was inside FreeType at the
   * fork, never used again (their library is leaked in the child). */
  size_t contexts_abandoned_at_fork;
  size_t contexts_quarantined;
  size_t faces_open;        /* opened and not yet closed */
  size_t faces_opened;      /* since the pool was created */
  size_t faces_closed;      /* FT_Done_Face calls made by the pool */
  size_t closes_deferred;   /* closes handed to another thread's context */
  size_t closes_drained;    /* deferred closes carried out by the owner */
  size_t blob_hits;         /* opens by path served from the file cache */
  size_t blob_misses;       /* opens by path that had to read the file */
  size_t blob_loads;        /* files read into blobs */
  size_t blob_evictions;    /* blobs the cache dropped to fit its budget */
  size_t blob_bytes_cached; /* bytes of the blobs the cache holds */
  size_t blob_bytes_live;   /* bytes of every live blob the pool allocated */
} ftpool_stats;

/* Fills *config with the defaults: per-thread backend, malloc, no callback,
 * a file cache of FTPOOL_DEFAULT_FILE_CACHE_BYTES. */
void ftpool_config_init(ftpool_config *config);

/* Creates a pool; config may be NULL for the defaults. */
ftpool_status ftpool_create(const ftpool_config *config, ftpool **pool);

/*
 * Closes every face still open (deferred ones included), frees every
 * library and the pool. Faces of the pool are invalid afterwards. Must not
 * overlap any other call on the pool; see the contract above. NULL is a
 * no-op.
 */
void ftpool_destroy(ftpool *pool);

/*
 * The process-wide pool with the default configuration, created on first
 * use. Concurrent first calls never wait for each other: each may build a
 * pool, one is published and the others are discarded. It is never
 * destroyed.
 */
ftpool_status ftpool_default(ftpool **pool);

/*
 * The calling thread's FT_Library (per-thread backend), created on the
 * thread's first call; with the shared-mutex backend, the one shared library,
 * which is only safe to use for calls that do not create or destroy faces.
 * Fails with FTPOOL_ERR_THREAD when called from a thread-specific data
 * destructor after the pool's own has run (the thread is exiting and could
 * not keep the library); opening and closing faces still work there.
 */
ftpool_status ftpool_library(ftpool *pool, FT_Library *library);

/*
 * Opens a face. face_index is FreeType's: the face in a collection in the
 * low 16 bits, a named instance in the high bits; it must not be negative.
 * The returned face is a plain FT_Face; close it with ftpool_close.
 *
 * With the file cache on, the path's bytes come from a shared blob: a stat()
 * per open checks the file is unchanged (device, inode, size, modification
 * time); a changed or replaced file is read again, and faces open on the old
 * version keep it. A file changed in place, keeping all four, is not seen.
 */
ftpool_status ftpool_open_file(ftpool *pool, const char *path,
                               FT_Long face_index, FT_Face *face);

/* As ftpool_open_file, from bytes the caller keeps alive and unchanged until
 * the face is closed. */
ftpool_status ftpool_open_memory(ftpool *pool, const void *data, size_t size,
                                 FT_Long face_index, FT_Face *face);

/* Opens a face on a blob; the face holds its own reference to the blob. */
ftpool_status ftpool_open_blob(ftpool *pool, ftpool_blob *blob,
                               FT_Long face_index, FT_Face *face);

/*
 * Blobs: font bytes read once and shared. Each function that gives a blob
 * gives one reference, which the caller gives back with ftpool_blob_release;
 * faces opened on a blob hold references of their own, so a blob may be
 * released while faces use it. A blob may be used from any thread, only
 * with the pool that made it, and not after that pool is destroyed.
 */

/* The blob of a file's current version, through the file cache. */
ftpool_status ftpool_blob_from_file(ftpool *pool, const char *path,
                                    ftpool_blob **blob);

/* A blob over bytes the caller owns: they must stay unchanged until
 * release(release_arg) is called, after the last reference is gone (at the
 * latest in ftpool_destroy). release may be NULL: then the bytes must outlive
 * the pool. */
ftpool_status ftpool_blob_from_memory(ftpool *pool, const void *data,
                                      size_t size, void (*release)(void *arg),
                                      void *release_arg, ftpool_blob **blob);

/* A blob holding a copy of the bytes, allocated through the pool. */
ftpool_status ftpool_blob_copy(ftpool *pool, const void *data, size_t size,
                               ftpool_blob **blob);

/* One more reference, to hand to another owner. */
ftpool_status ftpool_blob_retain(ftpool_blob *blob);

/* Gives back one reference; NULL is a no-op. */
void ftpool_blob_release(ftpool_blob *blob);

/* The blob's bytes and size. */
const void *ftpool_blob_data(const ftpool_blob *blob, size_t *size);

/*
 * Closes a face from any thread. If the caller does not own the face's
 * library, the close is handed to the owner, which carries it out on its
 * next call into the pool (or ftpool_collect, or its exit); if the owner has
 * exited, the caller carries it out itself. Either way the face must not be
 * used after this call. NULL is FTPOOL_ERR_INVALID_ARGUMENT.
 */
ftpool_status ftpool_close(ftpool *pool, FT_Face face);

/* Carries out the closes other threads handed to the calling thread. A
 * thread that holds faces and rarely calls into the pool may call this. */
ftpool_status ftpool_collect(ftpool *pool);

/* Fills *stats with the pool's counters (see ftpool_stats). */
ftpool_status ftpool_get_stats(ftpool *pool, ftpool_stats *stats);

/* A message for a status; never NULL. */
const char *ftpool_strerror(ftpool_status status);

/* FreeType's error code from the calling thread's last failed call (0 if the
 * last failure did not come from FreeType). */
FT_Error ftpool_last_ft_error(void);

/* The FTPOOL_VERSION_STRING the library was built with, "MAJOR.MINOR.PATCH";
 * compare it with the header's to detect a mismatched shared library. */
const char *ftpool_version(void);

#ifdef __cplusplus
}
#endif

#endif /* FTPOOL_H */
