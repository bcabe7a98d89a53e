/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: hostile font bytes through both of ftpool's backends.
 *
 * For every input, on a per-thread pool and on a shared-mutex pool (each
 * created on first use and kept for the life of the process), it opens face
 * 0 and, in a collection, the last face, from memory (ftpool_open_memory)
 * and, on the per-thread pool, also from a blob (ftpool_blob_copy +
 * ftpool_open_blob); sets a 24 px size, loads and renders a few glyphs and
 * closes the face with ftpool_close.
 *
 * FreeType errors are expected. What aborts (so that libFuzzer reports it):
 *   - a status that is not an ftpool_status, or one the header rules out for
 *     the call (FOREIGN_*, CONFIGURE, REENTRANT, INVALID_ARGUMENT on valid
 *     arguments, CANNOT_OPEN for bytes that are no file);
 *   - ftpool_close failing on a face the pool opened;
 *   - a pool whose faces_open, or whose live blob bytes, do not return to
 *     their value before the input.
 * The sanitizers catch the rest (memory errors, leaks, undefined behaviour).
 * The pools allocate through a malloc that refuses blocks over 8 MiB (see
 * capped_alloc), so FreeType's out-of-memory paths are fuzzed too.
 *
 * Single-threaded: the stats check assumes no other thread uses the pools.
 * The same file is the body of //test/fuzz:fuzz_regression_test, which calls
 * LLVMFuzzerTestOneInput without libFuzzer.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftpool.h"

#include FT_FONT_FORMATS_H

/* Upper bounds of the work per face, so a hostile font cannot make one
 * input slow by claiming millions of glyphs. */
enum { GLYPHS_PER_FACE = 8, PIXEL_SIZE = 24 };

/*
 * Coarse feedback about what FreeType did. The system FreeType is not
 * instrumented, so libFuzzer's coverage sees only ftpool and this file; a
 * build with -DFTPOOL_FUZZ_EXTRA_COUNTERS (scripts/fuzz.sh) also gives it
 * one counter per (event, bucket) here: error codes, font formats, glyph
 * counts, bitmap shapes. libFuzzer clears the section before every input.
 */
enum {
  EV_OPEN,   /* FT error of an open, per backend and face role */
  EV_SIZE,   /* FT error of FT_Set_Pixel_Sizes */
  EV_GLYPH,  /* FT error of FT_Load_Glyph */
  EV_FORMAT, /* the driver's format name */
  EV_FACES,  /* log2 of num_faces */
  EV_GLYPHS, /* log2 of num_glyphs */
  EV_FLAGS,  /* each face flag that is set */
  EV_BITMAP, /* pixel mode and log2 of width, rows */
  EV_FONT,   /* status of a font's creation and acquire */
  EV_CACHE,  /* status of a glyph cache lookup, glyph and advance */
  EV_COUNT
};
#define BUCKETS 64

#ifdef FTPOOL_FUZZ_EXTRA_COUNTERS
__attribute__((section(
    "__libfuzzer_extra_counters"))) static uint8_t counters[EV_COUNT * BUCKETS];
#define NOTE(event, bucket)                                                    \
  do {                                                                         \
    uint8_t *c_ = &counters[(event)*BUCKETS + (size_t)(bucket) % BUCKETS];     \
    if (*c_ < 255)                                                             \
      ++*c_;                                                                   \
  } while (0)
#else
#define NOTE(event, bucket) ((void)(event), (void)(bucket))
#endif

static unsigned log2_bucket(unsigned long v) {
  unsigned b = 0;
  while (v) {
    b++;
    v >>= 1;
  }
  return b;
}

static unsigned string_bucket(const char *s) {
  unsigned h = 5381;
  while (s && *s)
    h = h * 33 + (unsigned char)*s++;
  return h;
}

static void fail(const char *what, const char *detail) {
  fprintf(stderr, "open_face_fuzzer: invariant broken: %s (%s)\n", what,
          detail);
  abort();
}

/* A status from an open of well-formed arguments (pool, non-NULL data,
 * size > 0, index >= 0): FreeType may reject the bytes in many ways, but
 * none of the statuses about arguments, callbacks, files or other pools can
 * come back. */
static void check_open_status(ftpool_status s, const char *call) {
  switch (s) {
  case FTPOOL_OK:
  case FTPOOL_ERR_OUT_OF_MEMORY:
  case FTPOOL_ERR_UNKNOWN_FORMAT:
  case FTPOOL_ERR_BROKEN_FONT:
  case FTPOOL_ERR_FACE_INDEX:
  case FTPOOL_ERR_THREAD: /* the thread's key slot; resources only */
  case FTPOOL_ERR_FREETYPE:
    return;
  case FTPOOL_ERR_INVALID_ARGUMENT:
  case FTPOOL_ERR_CANNOT_OPEN:
  case FTPOOL_ERR_CONFIGURE:
  case FTPOOL_ERR_FOREIGN_FACE:
  case FTPOOL_ERR_REENTRANT:
  case FTPOOL_ERR_FOREIGN_BLOB:
  case FTPOOL_ERR_NOT_ACQUIRED:
  case FTPOOL_ERR_NOT_VARIABLE:
  case FTPOOL_ERR_INVALID_SIZE:
  case FTPOOL_ERR_GLYPH_INDEX:
  case FTPOOL_ERR_LOAD_FLAGS:
  case FTPOOL_ERR_SIZE_CHANGED:
    fail(call, ftpool_strerror(s));
  }
  fail(call, "not an ftpool_status");
}

/* A status from the glyph cache, asked for an index in range with
 * cacheable flags on a face acquired from the font: FreeType may fail to
 * load or render it (its error, as an open would map it), nothing else. */
static void check_glyph_status(ftpool_status s, const char *call) {
  if (s == FTPOOL_OK || s == FTPOOL_ERR_OUT_OF_MEMORY ||
      s == FTPOOL_ERR_BROKEN_FONT || s == FTPOOL_ERR_UNKNOWN_FORMAT ||
      s == FTPOOL_ERR_FREETYPE)
    return;
  fail(call, ftpool_strerror(s));
}

/* A status from ftpool_font_create with a well-formed description: the
 * open's, or the font's own (coordinates, size). */
static void check_font_status(ftpool_status s) {
  if (s == FTPOOL_ERR_NOT_VARIABLE || s == FTPOOL_ERR_INVALID_SIZE)
    return;
  check_open_status(s, "ftpool_font_create");
}

static void check_ok(ftpool_status s, const char *call) {
  if (s != FTPOOL_OK)
    fail(call, ftpool_strerror(s));
}

/*
 * The pools' allocator: malloc, but a single block over 8 MiB fails. A
 * hostile glyph outline makes FreeType render a bitmap as large as its
 * bounding box (FreeType 2.12 allocated 157 MB for glyphs of an 11 KiB
 * font, and allows up to 64k x 64k pixels), which would make every such
 * input slow and a large one an out-of-memory "crash" of FreeType's, not
 * ftpool's. Failing it instead exercises the out-of-memory paths of
 * FreeType and of ftpool (FTPOOL_ERR_OUT_OF_MEMORY). The blob copies go
 * through it too: an input over 8 MiB (-max_len) only opens from memory.
 */
#define ALLOCATION_LIMIT ((long)8 << 20)

static void *capped_alloc(FT_Memory memory, long size) {
  (void)memory;
  return size > 0 && size <= ALLOCATION_LIMIT ? malloc((size_t)size) : NULL;
}

static void capped_free(FT_Memory memory, void *block) {
  (void)memory;
  free(block);
}

static void *capped_realloc(FT_Memory memory, long cur_size, long new_size,
                            void *block) {
  (void)memory;
  (void)cur_size;
  if (new_size <= 0 || new_size > ALLOCATION_LIMIT)
    return NULL;
  return realloc(block, (size_t)new_size);
}

static struct FT_MemoryRec_ capped_memory = {NULL, capped_alloc, capped_free,
                                             capped_realloc};

static ftpool *pools[2];

static ftpool *pool_for(ftpool_backend backend) {
  if (!pools[backend]) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = backend;
    config.memory = &capped_memory;
    config.file_cache_bytes = (size_t)1 << 20;
    check_ok(ftpool_create(&config, &pools[backend]), "ftpool_create");
  }
  return pools[backend];
}

static ftpool_stats stats_of(ftpool *pool) {
  ftpool_stats stats;
  check_ok(ftpool_get_stats(pool, &stats), "ftpool_get_stats");
  return stats;
}

static void render(FT_Face face, FT_UInt glyph) {
  FT_Error error = FT_Load_Glyph(face, glyph, FT_LOAD_RENDER);
  NOTE(EV_GLYPH, error);
  if (error)
    return;
  const FT_Bitmap *bitmap = &face->glyph->bitmap;
  NOTE(EV_BITMAP, bitmap->pixel_mode);
  NOTE(EV_BITMAP, 8 + log2_bucket(bitmap->width));
  NOTE(EV_BITMAP, 32 + log2_bucket(bitmap->rows));
  /* Read the whole bitmap, so ASan sees a buffer shorter than it claims. */
  if (bitmap->buffer && bitmap->rows && bitmap->pitch) {
    size_t pitch = (size_t)(bitmap->pitch < 0 ? -bitmap->pitch : bitmap->pitch);
    const unsigned char *row = bitmap->buffer;
    volatile unsigned char sum = 0;
    for (unsigned y = 0; y < bitmap->rows; y++)
      sum ^= row[y * pitch] ^ row[y * pitch + pitch - 1];
    (void)sum;
  }
}

/* The glyph and its advance through the pool's glyph cache; the whole
 * bitmap read, so ASan sees an entry shorter than its glyph claims. The
 * bitmap is not compared with render()'s: a hostile font's glyph programs
 * may change what the next rendering of a glyph gives. */
static void cached(ftpool_font *font, FT_Face face, FT_UInt glyph) {
  const ftpool_glyph *g;
  ftpool_status s = ftpool_font_glyph(font, face, glyph, FT_LOAD_DEFAULT, &g);
  check_glyph_status(s, "ftpool_font_glyph");
  NOTE(EV_CACHE, s);
  if (s == FTPOOL_OK && g->bitmap.buffer && g->bitmap.rows) {
    size_t pitch =
        (size_t)(g->bitmap.pitch < 0 ? -g->bitmap.pitch : g->bitmap.pitch);
    volatile unsigned char sum = 0;
    for (size_t i = 0; i < g->bitmap.rows * pitch; i++)
      sum ^= g->bitmap.buffer[i];
    (void)sum;
  }
  FT_Fixed advance;
  s = ftpool_font_advance(font, face, glyph, FT_LOAD_DEFAULT, &advance);
  check_glyph_status(s, "ftpool_font_advance");
  NOTE(EV_CACHE, 32 + s);
}

static void exercise(FT_Face face) {
  NOTE(EV_FORMAT, string_bucket(FT_Get_Font_Format(face)));
  NOTE(EV_GLYPHS, log2_bucket((unsigned long)face->num_glyphs));
  for (unsigned bit = 0; bit < 16; bit++)
    if (face->face_flags & (1L << bit))
      NOTE(EV_FLAGS, bit);

  FT_Error error = FT_Set_Pixel_Sizes(face, 0, PIXEL_SIZE);
  NOTE(EV_SIZE, error);
  if (error && FT_HAS_FIXED_SIZES(face) && face->num_fixed_sizes > 0)
    error = FT_Select_Size(face, 0); /* a bitmap-only font */
  NOTE(EV_SIZE, 32 + error);

  long glyphs =
      face->num_glyphs < GLYPHS_PER_FACE ? face->num_glyphs : GLYPHS_PER_FACE;
  for (long g = 0; g < glyphs; g++)
    render(face, (FT_UInt)g);
  static const FT_ULong chars[] = {'A', 0x00E9, 0x4E2D};
  for (size_t i = 0; i < sizeof chars / sizeof *chars; i++) {
    FT_UInt glyph = FT_Get_Char_Index(face, chars[i]);
    if (glyph)
      render(face, glyph);
  }
}

/* How the bytes reach the pool. */
enum source { FROM_MEMORY, FROM_BLOB };

/* Opens face_index, exercises and closes it. Returns the face's num_faces,
 * or 0 if it did not open. */
static FT_Long open_one(ftpool *pool, enum source source, ftpool_blob *blob,
                        const uint8_t *data, size_t size, FT_Long face_index,
                        unsigned role) {
  FT_Face face = NULL;
  ftpool_status s;
  const char *call;
  if (source == FROM_BLOB) {
    call = "ftpool_open_blob";
    s = ftpool_open_blob(pool, blob, face_index, &face);
  } else {
    call = "ftpool_open_memory";
    s = ftpool_open_memory(pool, data, size, face_index, &face);
  }
  check_open_status(s, call);
  /* "When FreeType itself failed, ftpool_last_ft_error gives FreeType's
   * error code": these four only come from FreeType's answer. */
  if ((s == FTPOOL_ERR_UNKNOWN_FORMAT || s == FTPOOL_ERR_BROKEN_FONT ||
       s == FTPOOL_ERR_FACE_INDEX || s == FTPOOL_ERR_FREETYPE) &&
      ftpool_last_ft_error() == 0)
    fail(call, "a FreeType failure without ftpool_last_ft_error");
  NOTE(EV_OPEN, role * 16 + (s == FTPOOL_OK ? 0 : 1 + s));
  if (s != FTPOOL_OK) {
    NOTE(EV_OPEN, 48 + (ftpool_last_ft_error() & 0xF));
    return 0;
  }
  if (!face)
    fail(call, "FTPOOL_OK without a face");
  FT_Long num_faces = face->num_faces;
  exercise(face);
  check_ok(ftpool_close(pool, face), "ftpool_close");
  return num_faces;
}

/* A shared font on the bytes: created (its description's coordinates taken
 * from the input, maybe more than the font has axes), acquired, rendered as
 * it comes, given back, released. */
static void try_font(ftpool *pool, ftpool_blob *blob, const uint8_t *data,
                     size_t size) {
  FT_Fixed coords[2];
  ftpool_font_desc desc;
  ftpool_font_desc_init(&desc);
  desc.blob = blob;
  desc.pixel_height = PIXEL_SIZE;
  desc.num_coords = data[0] % 3;
  for (FT_UInt i = 0; i < desc.num_coords; i++)
    coords[i] = (FT_Fixed)(size > i + 1 ? data[i + 1] : 0) << 18;
  desc.coords = desc.num_coords ? coords : NULL;
  ftpool_font *font = NULL;
  ftpool_status s = ftpool_font_create(pool, &desc, &font);
  check_font_status(s);
  NOTE(EV_FONT, s);
  if (s != FTPOOL_OK)
    return;
  FT_Face face;
  s = ftpool_font_acquire(font, &face);
  NOTE(EV_FONT, 32 + s);
  if (s != FTPOOL_OK && s != FTPOOL_ERR_OUT_OF_MEMORY &&
      s != FTPOOL_ERR_INVALID_SIZE)
    fail("ftpool_font_acquire", ftpool_strerror(s));
  if (s == FTPOOL_OK) {
    long glyphs =
        face->num_glyphs < GLYPHS_PER_FACE ? face->num_glyphs : GLYPHS_PER_FACE;
    for (long g = 0; g < glyphs; g++) {
      render(face, (FT_UInt)g);
      cached(font, face, (FT_UInt)g);
      /* A quiescent point now and then, with the font held: the glyphs
       * got before are dropped, and the next lookup pins again. */
      if (g % 4 == 3)
        check_ok(ftpool_quiescent(pool), "ftpool_quiescent");
    }
    check_ok(ftpool_font_give_back(font, face), "ftpool_font_give_back");
  }
  ftpool_font_release(font);
}

/* Face 0 and, in a collection, the last face. */
static void open_faces(ftpool *pool, enum source source, ftpool_blob *blob,
                       const uint8_t *data, size_t size, unsigned role) {
  FT_Long num_faces = open_one(pool, source, blob, data, size, 0, role);
  NOTE(EV_FACES, log2_bucket((unsigned long)(num_faces > 0 ? num_faces : 0)));
  if (num_faces > 1) {
    /* The low 16 bits are the face; the high bits a named instance. */
    FT_Long last = num_faces - 1 > 0xFFFF ? 0xFFFF : num_faces - 1;
    open_one(pool, source, blob, data, size, last, role);
  }
}

static void run_backend(ftpool_backend backend, const uint8_t *data,
                        size_t size) {
  ftpool *pool = pool_for(backend);
  ftpool_stats before = stats_of(pool);

  if (size == 0) {
    /* The one input that is a bad argument, not a bad font. */
    FT_Face face = NULL;
    static const uint8_t byte = 0;
    if (ftpool_open_memory(pool, &byte, 0, 0, &face) !=
        FTPOOL_ERR_INVALID_ARGUMENT)
      fail("ftpool_open_memory", "size 0 accepted");
    ftpool_blob *blob = NULL;
    if (ftpool_blob_copy(pool, &byte, 0, &blob) != FTPOOL_ERR_INVALID_ARGUMENT)
      fail("ftpool_blob_copy", "size 0 accepted");
  } else {
    open_faces(pool, FROM_MEMORY, NULL, data, size, backend);
    ftpool_blob *blob = NULL;
    ftpool_status s = ftpool_blob_copy(pool, data, size, &blob);
    if (s != FTPOOL_OK && s != FTPOOL_ERR_OUT_OF_MEMORY)
      fail("ftpool_blob_copy", ftpool_strerror(s));
    if (s == FTPOOL_OK) {
      /* Each face and font takes a reference of its own; ours goes last. */
      size_t blob_size = 0;
      if (ftpool_blob_data(blob, &blob_size) == NULL || blob_size != size)
        fail("ftpool_blob_data", "not the bytes copied");
      if (backend == FTPOOL_BACKEND_PER_THREAD)
        open_faces(pool, FROM_BLOB, blob, data, size, 2);
      try_font(pool, blob, data, size);
      ftpool_blob_release(blob);
    }
  }

  ftpool_stats after = stats_of(pool);
  if (after.faces_open != before.faces_open)
    fail("faces_open did not return to its value before the input",
         backend == FTPOOL_BACKEND_PER_THREAD ? "per-thread" : "shared-mutex");
  if (after.blob_bytes_live != before.blob_bytes_live)
    fail("blob_bytes_live did not return to its value before the input",
         backend == FTPOOL_BACKEND_PER_THREAD ? "per-thread" : "shared-mutex");
  if (after.faces_opened - before.faces_opened !=
      after.faces_closed - before.faces_closed)
    fail("faces opened and closed during the input differ",
         backend == FTPOOL_BACKEND_PER_THREAD ? "per-thread" : "shared-mutex");
  if (after.fonts != before.fonts ||
      after.font_instances != before.font_instances ||
      after.font_faces != before.font_faces)
    fail("a font, instance or font face outlived the input",
         backend == FTPOOL_BACKEND_PER_THREAD ? "per-thread" : "shared-mutex");
}

/* For //test/fuzz:fuzz_regression_test: the faces the fuzzer's pools have
 * opened so far, both backends together, so the test can tell that a font
 * it expects to open did. */
size_t open_face_fuzzer_faces_opened(void);

size_t open_face_fuzzer_faces_opened(void) {
  size_t opened = 0;
  for (size_t i = 0; i < sizeof pools / sizeof *pools; i++)
    if (pools[i])
      opened += stats_of(pools[i]).faces_opened;
  return opened;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  run_backend(FTPOOL_BACKEND_PER_THREAD, data, size);
  run_backend(FTPOOL_BACKEND_SHARED_MUTEX, data, size);
  return 0;
}
