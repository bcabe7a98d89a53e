/* SPDX-License-Identifier: MIT */
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
 *   - fork() (POSIX; Windows has none): the child may go on using its
 *     pools. With the per-thread backend, the contexts of the threads that
 *     did not survive the fork are abandoned there, as if those threads had
 *     exited: their faces can be closed and their libraries reused, and
 *     every close posted to them, or that had returned, is carried out. One
 *     whose thread was inside FreeType at that instant may be half-edited:
 *     it is quarantined, never used in the child, and its library leaked
 *     there (see the stats). A call that a gone thread was in the middle of
 *     is lost with it (a face it was closing stays open until
 *     ftpool_destroy). With the shared-mutex backend, fork() waits for the
 *     thread inside the pool's mutex, if any, to leave it.
 *   - Callbacks (configure, the allocator, a blob's release): the pool never
 *     holds a lock of its own while it runs one, except that the
 *     shared-mutex backend calls FreeType's open and close, and so the
 *     allocator, under its mutex. Each callback's comment says on which
 *     thread it runs and what it may call.
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
#include FT_COLOR_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The version of this header, in the one place it is written (CMakeLists.txt
 * reads it from here). ftpool_version gives the version of the library
 * actually linked, which can differ from the header's when a program runs
 * against another build of the shared library. The shared library's soname
 * carries MAJOR (libftpool.so.0): a new MAJOR breaks the ABI; from 1.0 a
 * new MINOR only adds to it. Before 1.0 a MINOR may break it too (0.2 grew
 * ftpool_config and ftpool_stats): rebuild against each 0.x. README.md,
 * "Versions and the ABI", has the whole promise.
 */
#define FTPOOL_VERSION_MAJOR 0
#define FTPOOL_VERSION_MINOR 3
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
                                  library it is configuring, or a font
                                  acquired from an instance destructor */
  FTPOOL_ERR_FOREIGN_BLOB,     /* the blob belongs to another pool */
  FTPOOL_ERR_FREETYPE,         /* any other FreeType error */
  FTPOOL_ERR_NOT_ACQUIRED,     /* the face is not one this thread acquired
                                  from that font, or was given back already */
  FTPOOL_ERR_NOT_VARIABLE,     /* variation coordinates for a font with no
                                  variation axes, or more than its axes */
  FTPOOL_ERR_INVALID_SIZE,     /* FreeType refused the font's size */
  FTPOOL_ERR_GLYPH_INDEX,      /* a glyph index past the face's last glyph */
  FTPOOL_ERR_LOAD_FLAGS,       /* load flags the glyph cache cannot honour */
  FTPOOL_ERR_SIZE_CHANGED      /* the cache renders the font's size, and
                                  the acquired face's was changed */
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
 * own it (per-thread backend: the thread's first call, twice, for the
 * library of its plain faces and the library of its font faces;
 * shared-mutex backend: inside ftpool_create), before the library is used. Set
 * properties here (FT_Property_Set, FT_Library_SetLcdFilter, ...). Return 0 on
 * success; any other value fails the call that needed the library with
 * FTPOOL_ERR_CONFIGURE and is kept as ftpool_last_ft_error. The pool never
 * waits on another thread while this runs and never holds a lock across it,
 * so it may take the caller's own locks (a GIL, say). It may use FreeType on
 * the library and call into other pools. A call into the same pool from the
 * callback, on the thread being configured, fails with FTPOOL_ERR_REENTRANT
 * instead of recursing. It must return; thread cancellation is kept off
 * while it runs.
 */
typedef FT_Error (*ftpool_configure_fn)(FT_Library library, void *arg);

/* The file cache's default budget: 64 MiB of font bytes. */
#define FTPOOL_DEFAULT_FILE_CACHE_BYTES ((size_t)64 << 20)

/* Shared fonts: what each context (each thread) keeps of instances it is
 * not using, by default: 32 instances and 4 MiB (docs/guide.md says why). */
#define FTPOOL_DEFAULT_FONT_IDLE_INSTANCES ((size_t)32)
#define FTPOOL_DEFAULT_FONT_IDLE_BYTES ((size_t)4 << 20)

/* The glyph cache's default budget: 4 MiB, for the whole pool however many
 * threads use it (docs/guide.md, "Caching glyphs", says why). */
#define FTPOOL_DEFAULT_GLYPH_CACHE_BYTES ((size_t)4 << 20)

typedef struct ftpool_config {
  ftpool_backend backend;
  /* Allocator for every library and for the pool's own structures; NULL for
   * malloc. It must be thread-safe, return memory aligned as malloc's, and
   * outlive the pool. It is always called with this record; a library's
   * blocks come with a few bytes more in front (their size and the library
   * they are counted for). When it fails, the call that needed the memory fails
   * with FTPOOL_ERR_OUT_OF_MEMORY and the pool stays usable. It runs on any
   * thread that calls into the pool or uses a pool face with FreeType, in
   * ftpool_destroy, and at a thread's exit; with the shared-mutex backend,
   * FreeType's open and close call it under the pool's mutex. So it must not
   * call into any pool, nor wait for a thread that may; its own locks are fine,
   * as malloc's are. */
  FT_Memory memory;
  ftpool_configure_fn configure; /* may be NULL */
  void *configure_arg;
  /* Bytes of font files the pool keeps in memory for ftpool_open_file, so
   * that opening a face by path reads the file once, not once per open.
   * 0 turns the cache off: every open by path is FreeType's own (it maps
   * the file at each open and unmaps it at each close), and each font made
   * from a path reads the file into bytes of its own, kept while the font
   * or a face opened on them lives (its sizes still share faces: see
   * "Shared fonts"). */
  size_t file_cache_bytes;
  /* Shared fonts (ftpool_font_*), per-thread backend. Each context keeps at
   * most font_idle_instances instances idle (created, not acquired right
   * now), evicting the least recently given back beyond that; 0 keeps none
   * idle. Its font memory is what FreeType holds for its font faces (they
   * have a library of their own): the faces, their sizes and glyph slots,
   * and what a user makes from them (an FT_Glyph) until it is freed, as
   * FreeType asked `memory` for it (each block's few bytes in front, and
   * the pool's own records, come on top). After every give-back, and
   * every ftpool_font_create, a context's font memory is at most
   * font_idle_bytes, or else nothing of it is idle: idle instances are
   * evicted, least recently given back first, until one holds. Instances in
   * use are never evicted, so the pool's font memory stays within
   *   contexts x font_idle_bytes + the font memory of the faces in use.
   * The shared-mutex backend ignores both: it keeps one face per font,
   * until the font goes. */
  size_t font_idle_instances;
  size_t font_idle_bytes;
  /* The glyph cache's budget (ftpool_font_glyph): bytes of cached glyphs,
   * their bitmaps and records, for the whole pool. 0 turns the cache off:
   * every glyph renders once per acquire and lives until that acquire is
   * given back (see ftpool_font_glyph). */
  size_t glyph_cache_bytes;
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
  /* Blob headers the pool has made; kept for reuse until ftpool_destroy,
   * never more than the most blobs live at once plus one per thread in the
   * middle of making or freeing a blob. */
  size_t blob_headers;
  /* Shared fonts. Instances are per-context faces (or, with the
   * shared-mutex backend, each font's one face); "reused" counts an
   * instance acquired by another thread than the one that created it (its
   * context was recycled). font_instance_bytes is the font memory of
   * font_idle_bytes, summed over the contexts (shared-mutex backend: what
   * opening each font's face allocated). */
  size_t fonts;                  /* fonts created and not yet released */
  size_t font_instances;         /* instances that hold a face and size */
  size_t font_instances_created; /* since the pool was created */
  size_t font_instances_reused;
  size_t font_instances_evicted;
  size_t font_instance_bytes;
  size_t font_faces; /* faces open for instances (sizes share them) */
  /* The glyph cache. Lookups are ftpool_font_glyph and ftpool_font_advance
   * calls that succeeded: a hit found the glyph cached (or returned to the
   * same acquire before, uncached), a miss rendered it (or loaded its
   * advance). Misses not kept in the cache: it was off, or full with its
   * eviction busy or its evicted bytes still awaiting reclamation (see
   * ftpool_font_glyph for the bound); of those, "stalled" counts the ones
   * refused because a budget's worth awaited reclamation: a thread's pin
   * holds it (see "Holding fonts" in ftpool_font_glyph). Bytes cached count
   * what the cache holds now, the fonts' keys its entries keep included;
   * bytes awaiting reclamation, glyphs evicted that a thread may still
   * read, freed once every thread that could has passed a quiescent point.
   * Readers pinned: threads (with the shared-mutex backend, fonts) that may
   * still read glyphs they got; the oldest pin's age: how many eviction
   * passes retired glyphs since the oldest of those pins was taken (0 when
   * none is pinned), which grows while one thread stalls reclamation. */
  size_t glyph_hits;
  size_t glyph_misses;
  size_t glyph_uncached;
  size_t glyph_uncached_stalled;
  size_t glyph_evictions;
  size_t glyph_entries;
  size_t glyph_bytes_cached;
  size_t glyph_bytes_awaiting;
  size_t glyph_readers_pinned;
  size_t glyph_oldest_pin_age;
} ftpool_stats;

/* Fills *config with the defaults: per-thread backend, malloc, no callback,
 * a file cache of FTPOOL_DEFAULT_FILE_CACHE_BYTES, font instances kept idle
 * up to FTPOOL_DEFAULT_FONT_IDLE_INSTANCES and _BYTES per context. */
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
 * thread's first call, the one its plain faces are opened on (faces
 * acquired from fonts are on another of the thread's libraries); with the
 * shared-mutex backend, the one shared library,
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
 * time and inode change time, ctime, which a write or a rename sets to now
 * and no tool sets back); a changed or replaced file is read again, and
 * faces open on the old version keep it. The ctime has the file system
 * clock's granularity (on Linux a kernel tick, a few milliseconds): two
 * versions with one inode, size and mtime, written within one tick, are not
 * told apart.
 *
 * On Windows, path is UTF-8 and ftpool reads the file itself, through the
 * wide API, with the cache off too; the identity there is the volume's
 * serial number, the file index, the size, the last-write time and the
 * change time (FILE_BASIC_INFO's ChangeTime).
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
 * the pool. release runs on the thread that drops the last reference:
 * ftpool_blob_release, the close of the blob's last face (in ftpool_close,
 * in any call of the face's owner that carries out a posted close, at a
 * thread's exit), the last release of a font made on the blob (for an
 * instance in another thread's context, in any call of that thread or at
 * its exit), the eviction of a font instance's face to fit the budget (in
 * ftpool_font_give_back, and in ftpool_font_acquire and ftpool_font_create,
 * which may evict another font's instance), or ftpool_destroy. (The file
 * cache's own evictions drop only blobs the pool read, which have none.)
 * No lock of the pool's is held then: it may take the
 * caller's own locks and call into the pool (open, close, release other
 * blobs), except from ftpool_destroy. It must return (no longjmp,
 * pthread_exit); thread cancellation is kept off while it runs. */
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

/*
 * Shared fonts: one font object used by any number of threads, each
 * rendering on its own face, with no lock.
 *
 * A font is an immutable, reference-counted description: the bytes (a file
 * through the file cache, or a blob), the face index, optional variation
 * coordinates, a size, a charmap and colours. A thread acquires the font to
 * get an FT_Face set to that description, uses it with plain FreeType (and
 * HarfBuzz) on that thread, and gives it back. With the per-thread backend
 * each thread's context keeps an *instance* of the font (a face and an
 * FT_Size) created on first use and reused on every later acquire: finding
 * it takes no lock and no read-modify-write atomic. Fonts that differ only
 * in size, charmap and colours share one face per context, with one FT_Size
 * each: fonts on the same blob, or made from paths naming the same version of
 * one file (device, inode, size, modification time and ctime, as the file
 * cache checks; with the cache on or off), with the same face index and
 * coordinates. A face has one active size, so a font acquired while
 * another font's instance on its face is acquired gets a face of its own.
 * Instances belong to contexts, not threads: a thread that exits leaves
 * them warm for the next thread that recycles its context. With the
 * shared-mutex backend each font has one face and a lock, held from acquire to
 * give back (the design Pillow 11 uses): a thread that holds several fonts at
 * once must then acquire them in one order, as with any set of locks, and a
 * fork() while another thread holds a font leaves that font locked in the
 * child.
 *
 * What a user may change on an acquired face: the face comes back, on every
 * acquire, with the font's size active and set, its charmap selected and no
 * transform, so FT_Set_Transform, FT_Set_Charmap and even
 * FT_Set_Pixel_Sizes on it are undone at the next acquire, by whichever
 * thread. Nothing else is reset: a user who sets FT_Face_Properties (LCD
 * filter weights, stem darkening, the random seed) must set them back before
 * giving the face back, and the glyph slot holds whatever the last user
 * loaded. Variation coordinates, the face index and the colours are part
 * of the description: do not change them on the face
 * (FT_Set_Var_Design_Coordinates and the like, FT_Palette_Select,
 * FT_Palette_Set_Foreground_Color), make another font instead. An acquire
 * does not undo a colour set on the face: it selects the font's colours
 * only when the face had another font's (with the per-thread backend,
 * fonts that differ only in colours share faces), so a user's colour would
 * outlive the give-back, in later users' own loads; the glyph cache, which
 * renders in the font's colours (see "Caching glyphs"), never keeps it.
 *
 * Rules: acquire and give back on the same thread, with a reference to the
 * font held throughout; a thread may hold several fonts acquired at once,
 * and may acquire the same font again before giving it back (it gets the
 * same face; give back as often). A thread that exits gives back whatever
 * it still holds. Do not close an acquired face (ftpool_close refuses it)
 * nor use it after giving it back.
 */
typedef struct ftpool_font ftpool_font;

typedef struct ftpool_font_desc {
  /* The bytes: a file, read through the pool's file cache, or a blob of the
   * pool (the font takes its own reference). Exactly one. */
  const char *path;
  ftpool_blob *blob;
  /* FreeType's face index: the face in a collection in the low 16 bits, a
   * named instance (1-based) in the high bits; not negative. */
  FT_Long face_index;
  /* Variation design coordinates (16.16, as FT_Set_Var_Design_Coordinates
   * takes them), copied; NULL and 0 for the font's defaults. */
  const FT_Fixed *coords;
  FT_UInt num_coords;
  /* The size: as FT_Set_Char_Size takes it (26.6 points; a width of 0 means
   * the height; resolutions of 0 mean 72 dpi), or, when char_height is 0,
   * as FT_Set_Pixel_Sizes does. One of char_height and pixel_height must
   * be set. */
  FT_F26Dot6 char_width;
  FT_F26Dot6 char_height;
  FT_UInt horz_resolution;
  FT_UInt vert_resolution;
  FT_UInt pixel_width;
  FT_UInt pixel_height;
  /* The charmap selected on each acquire; FT_ENCODING_NONE (0) keeps the
   * one FreeType selects when it opens the face (Unicode if there is one). */
  FT_Encoding encoding;
  /* Colour glyphs (COLR layers, drawn with FT_LOAD_COLOR): the CPAL
   * palette selected, as FT_Palette_Select takes it, and the colour of the
   * layers drawn in the foreground, as FT_Palette_Set_Foreground_Color
   * takes it, copied; NULL for FreeType's default (opaque black, or white
   * when the palette is marked for a dark background). Any palette but 0
   * needs a font that has it: ftpool_font_create fails with
   * FTPOOL_ERR_INVALID_ARGUMENT otherwise (a font without CPAL has none).
   * A foreground colour is accepted on any font. */
  FT_UShort palette_index;
  const FT_Color *foreground_color;
} ftpool_font_desc;

/* Zeroes *desc: no bytes, face 0, no coordinates, no size, the default
 * charmap, palette 0 and FreeType's foreground colour. */
void ftpool_font_desc_init(ftpool_font_desc *desc);

/*
 * Creates a font with one reference. The description is checked by making
 * the calling thread's instance, so a bad file, face index, size,
 * coordinates or palette fail here, with the status an open would give, or
 * FTPOOL_ERR_NOT_VARIABLE / FTPOOL_ERR_INVALID_SIZE /
 * FTPOOL_ERR_INVALID_ARGUMENT (a palette the font does not have).
 */
ftpool_status ftpool_font_create(ftpool *pool, const ftpool_font_desc *desc,
                                 ftpool_font **font);

/* One more reference, to hand to another owner or thread. */
ftpool_status ftpool_font_retain(ftpool_font *font);

/*
 * Gives back one reference; NULL is a no-op. The last one frees the font at
 * once, so every face acquired from it must be given back before (giving
 * one back after reads the freed font; a thread that exits still holding
 * one gives it back). The last one closes every instance of the font, each by
 * its context's holder (at its next call into the pool, or its exit) or, for a
 * context no thread holds, by the caller; the instances' data destructors run
 * there.
 */
void ftpool_font_release(ftpool_font *font);

/*
 * The calling thread's face for the font, set as the description says
 * (see "What a user may change" above), created on the thread's first
 * acquire of the font. Fails with FTPOOL_ERR_THREAD when called from a
 * thread-specific data destructor after the pool's own has run
 * (per-thread backend), or when no thread-specific slot is left to record
 * what the thread holds for its exit (shared-mutex backend).
 */
ftpool_status ftpool_font_acquire(ftpool_font *font, FT_Face *face);

/* Gives back a face acquired from the font on this thread. */
ftpool_status ftpool_font_give_back(ftpool_font *font, FT_Face face);

/*
 * Per-instance data: a pointer the user attaches to the instance behind an
 * acquired face (an hb_font_t, a glyph cache), found again by any later
 * acquire that gets the same instance. destroy(data), if not NULL, runs on
 * the thread that holds the instance's context when the instance goes
 * (evicted, its font released, its pool destroyed), or at once when other
 * data replaces it. No lock of the pool's is held then and the instance is
 * already gone: it may release fonts (its own font's last reference too),
 * blobs and faces; from ftpool_destroy, releasing fonts, giving faces
 * back, closing faces and quiescent points are no-ops, since the destroy
 * frees them all (and there it must not look glyphs up). It must not
 * acquire or
 * create a font of the pool: that fails with FTPOOL_ERR_REENTRANT (the
 * destructor of replaced data too). Nor may it call ftpool_destroy. It
 * must return; thread cancellation is kept off while it runs. With the
 * shared-mutex backend there is one instance per font.
 */
ftpool_status ftpool_font_set_instance_data(ftpool_font *font, FT_Face face,
                                            void *data,
                                            void (*destroy)(void *data));

/* The data attached to the acquired face's instance, or NULL. */
ftpool_status ftpool_font_instance_data(ftpool_font *font, FT_Face face,
                                        void **data);

/*
 * Caching glyphs: rendered glyphs shared by every thread of the pool, read
 * with no lock.
 *
 * ftpool_font_glyph gives the glyph `glyph_index` of an acquired face,
 * loaded with load_flags | FT_LOAD_RENDER (the render mode is
 * FT_LOAD_TARGET_MODE(load_flags), as FT_Load_Glyph takes it) at the
 * font's size with no transform: its bitmap, in whatever pixel mode
 * FreeType produced (gray, mono, LCD, BGRA colour with FT_LOAD_COLOR), and
 * its metrics. An empty glyph (a space) has a bitmap of 0 rows and a NULL
 * buffer. The glyph comes from the pool's cache when it is there (a hit:
 * no lock, no atomic read-modify-write, no write to memory other threads
 * read, unless the glyph was not marked used since its last eviction
 * pass); else the calling thread renders it on its own face, with no lock
 * held, and publishes it (a miss). Two threads that miss on one glyph at
 * once each render it and one copy is kept; no thread ever waits for
 * another's rendering. Both backends: with the shared-mutex backend a
 * lookup takes again the font's lock, which its caller holds already (so
 * it never waits), and renders a miss on the font's one face under it; a
 * miss that evicts may take the pool's mutex for a moment, to read the
 * fonts' pins.
 *
 * Entries are keyed by the bytes (the blob, or the version of the file, as
 * the file cache knows it), the face index, the variation coordinates,
 * the size, the load flags, the transform (ftpool_font_glyph_transformed)
 * and the glyph index, and with FT_LOAD_COLOR the palette and foreground
 * colour too: fonts made from the same file, face
 * and size share them, whatever their charmap, and whatever their colours
 * but for lookups with FT_LOAD_COLOR. A lookup with FT_LOAD_COLOR that
 * misses selects the font's palette and foreground colour on the face
 * before it renders, so a glyph is cached in its font's colours even if a
 * user changed them on the face, which is not allowed while the font uses
 * the cache (see "What a user may change" above). The cache renders with
 * the face's properties as the font's instance has them: a user who sets
 * FT_Face_Properties on an acquired face must not use the cache for that
 * font. Nor does the key hold the libraries' properties, which the
 * configure callback may set: the LCD filter, and the drivers' properties
 * (FT_Property_Set: TrueType's "interpreter-version", the CFF and Type 1
 * drivers' "no-stem-darkening", "darkening-parameters" and
 * "hinting-engine", the autohinter's), so a callback that sets them
 * differently on different libraries of the pool (per thread, with the
 * per-thread backend) gives other threads one thread's glyphs: set them
 * alike on every library, or do not use the cache.
 *
 * The glyph stays valid until the calling thread gives the face back (its
 * last give-back, if it acquired it several times) or passes a quiescent
 * point (ftpool_quiescent), whichever comes first; use it on that thread
 * or hand it to others that finish before. Do not write to it.
 *
 * Memory: the cache holds at most config.glyph_cache_bytes of glyphs
 * (their records, and the fonts' keys they keep after their fonts are
 * released, included). Glyphs it evicts are freed once no thread might
 * read them; until then they await reclamation, at most
 * config.glyph_cache_bytes of them too: while that much awaits, the cache
 * evicts nothing, and a miss that finds it full returns a glyph of its
 * own, kept for that acquire (a repeat of it renders nothing more) and
 * freed at its give-back or the thread's next quiescent point. So the
 * glyph memory of the pool is at most
 *   2 x glyph_cache_bytes + the glyphs returned uncached under acquires
 *   not yet given back (each glyph of a font once per acquire).
 *
 * Holding fonts: a thread pins what it may read from its first lookup
 * until it has given back every acquire it made a lookup under (an
 * acquire that looks nothing up pins nothing), or until its next
 * quiescent point. While one thread stays pinned, nothing evicted after
 * its pin is freed, and once a budget's worth awaits, every thread's
 * misses go uncached (glyph_uncached_stalled counts them, and
 * glyph_oldest_pin_age grows). A thread that keeps a font acquired for
 * long and looks glyphs up through it (a UI font, a fallback chain's
 * first font, an hb_font_t kept for a session) should call
 * ftpool_quiescent between text runs, or give its fonts back.
 *
 * Statuses: FTPOOL_ERR_NOT_ACQUIRED unless the calling thread acquired
 * face from font and has not given it back; FTPOOL_ERR_GLYPH_INDEX for an
 * index >= face->num_glyphs; FTPOOL_ERR_LOAD_FLAGS for FT_LOAD_NO_SCALE,
 * FT_LOAD_NO_RECURSE or FT_LOAD_BITMAP_METRICS_ONLY (no bitmap to cache);
 * FTPOOL_ERR_SIZE_CHANGED on a miss after the user set another size on the
 * acquired face; FreeType's errors from loading or rendering, as
 * ftpool_last_ft_error gives them. Nothing is cached on failure.
 */
typedef struct ftpool_glyph {
  FT_Bitmap bitmap;  /* buffer NULL when the glyph is empty */
  FT_Int left, top;  /* bitmap_left, bitmap_top */
  FT_Vector advance; /* the glyph slot's advance, 26.6 pixels */
  FT_Pos lsb_delta, rsb_delta;
  FT_Glyph_Metrics metrics;
} ftpool_glyph;

/* The rendered glyph, from the cache or rendered and cached (see above). */
ftpool_status ftpool_font_glyph(ftpool_font *font, FT_Face face,
                                FT_UInt glyph_index, FT_Int32 load_flags,
                                const ftpool_glyph **glyph);

/*
 * ftpool_font_glyph under a transform: the glyph as FT_Set_Transform(face,
 * matrix, delta) and FT_Load_Glyph would render it at the font's size (a
 * rotated, slanted or scaled glyph, or one shifted by a fraction of a
 * pixel, as PDF and other renderers that position glyphs at sub-pixel
 * offsets draw them). NULL matrix: the identity; NULL delta: no shift; as
 * FT_Set_Transform takes them. The transform is part of the key: each
 * distinct (matrix, delta) is its own entry, so a renderer should round
 * its offsets to the few positions it draws (MuPDF: 4 or fewer per pixel)
 * before looking up. The identity with no shift, or load_flags with
 * FT_LOAD_IGNORE_TRANSFORM, is ftpool_font_glyph's lookup and shares its
 * entries. The face's own transform is never applied, and a miss leaves
 * it as it was (with FreeType before 2.11, which cannot read it, a miss
 * leaves none, as the acquire set it). Everything else, lifetime and
 * statuses included, is ftpool_font_glyph's.
 */
ftpool_status ftpool_font_glyph_transformed(ftpool_font *font, FT_Face face,
                                            FT_UInt glyph_index,
                                            FT_Int32 load_flags,
                                            const FT_Matrix *matrix,
                                            const FT_Vector *delta,
                                            const ftpool_glyph **glyph);

/*
 * The advance of glyph_index (16.16 pixels; font units with
 * FT_LOAD_NO_SCALE; vertical with FT_LOAD_VERTICAL_LAYOUT), cached apart
 * from rendered glyphs, so layout never renders. It is what FT_Get_Advance
 * gives right after FT_Load_Glyph of the same glyph with the same flags (a
 * miss makes both on the calling thread's face), which is FreeType's value
 * on any face that has loaded a glyph: with FT_LOAD_NO_SCALE,
 * FT_LOAD_NO_HINTING or FT_LOAD_TARGET_LIGHT, where the driver reads
 * advances from tables (TrueType and CFF: hmtx or vmtx, with a variable
 * font's HVAR or VVAR), the table's advance, scaled without rounding as
 * the glyph slot's linearHoriAdvance is; otherwise the slot's advance after
 * a load with FT_LOAD_ADVANCE_ONLY (26.6 pixels, times 1024). On a face
 * that has loaded nothing, FreeType 2.12 gives a variable font's instance
 * the latter in every mode (it reads HVAR at the face's first load), so
 * plain FT_Get_Advance would make the cached advance depend on which
 * thread missed first. The statuses are ftpool_font_glyph's, but every
 * load flag is accepted, and a glyph FT_Load_Glyph fails on fails.
 */
ftpool_status ftpool_font_advance(ftpool_font *font, FT_Face face,
                                  FT_UInt glyph_index, FT_Int32 load_flags,
                                  FT_Fixed *advance);

/*
 * A quiescent point: the calling thread reads no glyph (and no advance) it
 * got from the pool's cache before this call, under any font it holds, so
 * the cache may free what it evicted since. Call it between text runs in a
 * thread that keeps fonts acquired for long (see "Holding fonts" above).
 * Glyphs returned uncached are freed here too. FTPOOL_ERR_INVALID_ARGUMENT
 * for a NULL pool; a thread that holds nothing does nothing.
 */
ftpool_status ftpool_quiescent(ftpool *pool);

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
