/* SPDX-License-Identifier: MIT */
/*
 * What the glyph cache's harnesses share (glyph_publish_harness.c,
 * glyph_evict_harness.c, glyph_reclaim_harness.c, glyph_sm_harness.c): the
 * unmodified sources of the cache (lib/glyph_cache.c, glyph_evict.c,
 * glyph_key.c, glyph_hold.c) and of the per-thread backend's readers
 * (lib/per_thread.c, whose oldest_pin walks the pins, and lib/registry.c),
 * the shims of what they call outside them, a key made by the real
 * ftpool__glyph_key_new, a face, requests, and a check of the table.
 * Include it after test/genmc/harness.h.
 *
 * The harnesses run with GenMC's spin-assume off: it blocks the executions
 * where a publishing CAS fails (it takes publish's loop for a CAS loop),
 * and so never ran the search again after it (control glyph_cache.c:258
 * ptr_cas_acq_rel release went unseen with it on); unlink_entry's loop
 * and give_token's are loops of the same shape.
 */
#ifndef FTPOOL_GENMC_GLYPH_COMMON_H
#define FTPOOL_GENMC_GLYPH_COMMON_H

#include <string.h>

/* Shims: the C library's memset, memcpy and memcmp, which GenMC calls
 * and does not interpret; a word at a time where both ends are aligned. */
void *memset(void *s, int c, size_t n) {
  if ((uintptr_t)s % sizeof(uintptr_t) == 0 && n % sizeof(uintptr_t) == 0 &&
      c == 0)
    for (size_t i = 0; i < n / sizeof(uintptr_t); i++)
      ((uintptr_t *)s)[i] = 0;
  else
    for (size_t i = 0; i < n; i++)
      ((unsigned char *)s)[i] = (unsigned char)c;
  return s;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n) {
  for (size_t i = 0; i < n; i++)
    ((unsigned char *)d)[i] = ((const unsigned char *)s)[i];
  return d;
}

int memcmp(const void *a, const void *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (((const unsigned char *)a)[i] != ((const unsigned char *)b)[i])
      return ((const unsigned char *)a)[i] < ((const unsigned char *)b)[i] ? -1
                                                                           : 1;
  return 0;
}

/* Shims: the thread-specific key, which GenMC's pthread.h leaves out.
 * per_thread.c and shared_mutex_font.c find the calling thread's context
 * or fonts through it; the harnesses' threads hold their readers from the
 * start, so none is used (shared_mutex_font.c's constructor makes one).
 * (Natively, for a quick run outside GenMC, the C library's serve.) */
#ifdef __GENMC_INTERNAL_H__
typedef int pthread_key_t;
int pthread_key_create(pthread_key_t *key, void (*destructor)(void *)) {
  (void)destructor;
  *key = 0;
  return 0;
}
int pthread_key_delete(pthread_key_t key) {
  (void)key;
  assert(0 && "no key here");
  return 0;
}
void *pthread_getspecific(pthread_key_t key) {
  (void)key;
  assert(0 && "no key here");
  return NULL;
}
int pthread_setspecific(pthread_key_t key, const void *value) {
  (void)key, (void)value;
  assert(0 && "no key here");
  return 0;
}
#endif

#include "lib/glyph_cache.c"
#include "lib/glyph_evict.c"
#include "lib/glyph_hold.c"
#include "lib/glyph_key.c"

/* GenMC cannot initialise a thread-local struct (per_thread.c's
 * last_used): per_thread.c's thread-locals, which only the key's paths
 * read, are globals here. */
#define _Thread_local
#include "lib/per_thread.c"
#undef _Thread_local
#include "lib/registry.c"

/* Shims: FreeType's glyph load and advance (each glyph's advance is known,
 * so a reader can check what it got), errors.c, memory.c (malloc and free,
 * which GenMC watches), blob.c's identity compare and font.c's colours,
 * which advances never select. Functions of the files included above that
 * no harness calls are left undefined: GenMC stops only at a call. */
#define ADVANCE_OF(index) ((FT_Fixed)(index)*64 + 7)

FT_Error FT_Load_Glyph(FT_Face face, FT_UInt glyph_index, FT_Int32 flags) {
  (void)face, (void)glyph_index, (void)flags;
  return 0;
}

FT_Error FT_Get_Advance(FT_Face face, FT_UInt glyph_index, FT_Int32 flags,
                        FT_Fixed *advance) {
  (void)face, (void)flags;
  *advance = ADVANCE_OF(glyph_index);
  return 0;
}

ftpool_status ftpool__fail(ftpool_status status) { return status; }

ftpool_status ftpool__fail_freetype(FT_Error error, int nonzero_index) {
  (void)error, (void)nonzero_index;
  return FTPOOL_ERR_FREETYPE;
}

void *ftpool__memory_alloc_raw(FT_Memory memory, size_t size) {
  (void)memory;
  return malloc(size);
}

void *ftpool__memory_alloc(FT_Memory memory, size_t size) {
  void *p = ftpool__memory_alloc_raw(memory, size);
  return p ? memset(p, 0, size) : NULL;
}

void ftpool__memory_free(FT_Memory memory, void *block) {
  (void)memory;
  free(block);
}

bool ftpool__same_identity(const struct file_identity *a,
                           const struct file_identity *b) {
  return memcmp(a, b, sizeof *a) == 0;
}

ftpool_status ftpool__colour_set(FT_Face face, uint64_t colour) {
  (void)face, (void)colour;
  assert(0 && "an advance selects no colours");
  return FTPOOL_OK;
}

#ifdef GLYPH_SM_READERS
/* The shared-mutex backend's readers instead (glyph_sm_harness.c): fonts,
 * whose pins shared_mutex_font.c's ftpool__sm_fonts_oldest_pin walks
 * under the pool's mutex. */
/* Shims: what GenMC's pthread.h leaves out of recursive mutexes, for a
 * font's lock, which no harness makes. */
#ifdef __GENMC_INTERNAL_H__
#define PTHREAD_MUTEX_RECURSIVE 1
int pthread_mutexattr_init(pthread_mutexattr_t *attr);
int pthread_mutexattr_settype(pthread_mutexattr_t *attr, int type);
int pthread_mutexattr_destroy(pthread_mutexattr_t *attr);
#endif

#include "lib/shared_mutex_font.c"

static struct shared_mutex_pool glyph_sm_pool;
static struct sm_font glyph_sm_fonts[3];
static struct glyph_cache cache; /* the pool's own is not read */

static inline void glyph_setup(size_t budget, int n) {
  pthread_mutex_init(&glyph_sm_pool.mutex, NULL);
  ftpool__glyph_cache_init(&cache, NULL, budget, ftpool__sm_fonts_oldest_pin,
                           &glyph_sm_pool);
  for (int i = 0; i < n; i++) {
    struct sm_font *sm = &glyph_sm_fonts[i];
    ftpool__glyph_reader_init(&sm->glyphs);
    ftpool__glyph_hold_init(&sm->hold);
    ftpool__glyph_counts_init(&sm->counts);
    sm->next = glyph_sm_pool.fonts; /* as ftpool__sm_font_prepare links it */
    glyph_sm_pool.fonts = sm;
  }
}

static inline struct glyph_reader *glyph_reader(int i) {
  return &glyph_sm_fonts[i].glyphs;
}
static inline struct glyph_hold *glyph_hold_of(int i) {
  return &glyph_sm_fonts[i].hold;
}
static inline struct glyph_counts *glyph_counts_of(int i) {
  return &glyph_sm_fonts[i].counts;
}
#else
/* The readers: contexts in a registry, as the per-thread backend's, whose
 * pins per_thread.c's oldest_pin walks; each with an acquire's hold. */
static struct registry glyph_registry;
static struct context glyph_contexts[3];
static struct glyph_hold glyph_holds[3];
static struct glyph_cache cache;

/* The cache with `budget`, its readers 0 .. n - 1. */
static inline void glyph_setup(size_t budget, int n) {
  ftpool__registry_init(&glyph_registry);
  ftpool__glyph_cache_init(&cache, NULL, budget, oldest_pin, &glyph_registry);
  for (int i = 0; i < n; i++) {
    ftpool__glyph_reader_init(&glyph_contexts[i].glyphs);
    ftpool__glyph_counts_init(&glyph_contexts[i].glyph_counts);
    ftpool__glyph_hold_init(&glyph_holds[i]);
    ftpool__registry_publish(&glyph_registry, &glyph_contexts[i]);
  }
}

static inline struct glyph_reader *glyph_reader(int i) {
  return &glyph_contexts[i].glyphs;
}
static inline struct glyph_hold *glyph_hold_of(int i) {
  return &glyph_holds[i];
}
static inline struct glyph_counts *glyph_counts_of(int i) {
  return &glyph_contexts[i].glyph_counts;
}
#endif

/* The font the key is made from: bytes from memory (a blob's serial). */
static struct ftpool glyph_pool;
static struct ftpool_blob glyph_blob = {.serial = 1};
static struct ftpool_font glyph_font = {.pool = &glyph_pool,
                                        .blob = &glyph_blob,
                                        .char_height = 16 * 64,
                                        .horz_resolution = 72,
                                        .vert_resolution = 72,
                                        .pixel_width = 16,
                                        .pixel_height = 16};

/* The face a miss loads on: only its glyph count is read. */
static FT_FaceRec glyph_face = {.num_glyphs = 64};

static inline bool glyph_size_as_set(const void *arg) {
  (void)arg;
  return true;
}

/* An advance request for glyph index on key. */
static inline struct glyph_request glyph_request_of(struct glyph_key *key,
                                                    FT_UInt index) {
  struct glyph_request req = {.key = key,
                              .glyph_index = index,
                              .load_flags = FT_LOAD_DEFAULT,
                              .kind = GLYPH_ADVANCE};
  ftpool__glyph_request_hash(&req);
  return req;
}

/* A lookup by reader i under its acquire (pin, hit, else miss: render,
 * reserve, publish); its status. */
static inline ftpool_status glyph_lookup(int i, const struct glyph_request *req,
                                         struct glyph_entry **out) {
  return ftpool__glyph_lookup(&cache, glyph_reader(i), glyph_hold_of(i),
                              glyph_counts_of(i), req, &glyph_face,
                              glyph_size_as_set, NULL, out);
}

/* The acquire's give-back: unpins reader i (and reclaims or asks). */
static inline void glyph_give_back(int i) {
  ftpool__glyph_hold_end(&cache, glyph_reader(i), glyph_hold_of(i));
}

/* Single-threaded, at the end: every chain holds only entries that are on
 * no retired list, each once, no two equal, each with its glyph's advance;
 * returns how many. */
static inline size_t glyph_check_table(struct glyph_cache *cache) {
  size_t n = 0;
  for (size_t b = 0; b <= cache->mask; b++)
    for (struct glyph_entry *e = ptr_load_relaxed(&cache->buckets[b]); e;
         e = ptr_load_relaxed(&e->next)) {
      assert(ftpool__glyph_bucket(cache, e->hash) == &cache->buckets[b]);
      assert(e->value.advance == ADVANCE_OF(e->glyph_index));
      for (struct glyph_entry *f = ptr_load_relaxed(&e->next); f;
           f = ptr_load_relaxed(&f->next))
        assert(f != e && f->glyph_index != e->glyph_index);
      for (struct glyph_entry *r = cache->retired_head; r; r = r->queue_next)
        assert(r != e);
      n++;
    }
  assert(n == counter_load_relaxed(&cache->entries));
  return n;
}

#endif /* FTPOOL_GENMC_GLYPH_COMMON_H */
