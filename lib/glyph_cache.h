/* SPDX-License-Identifier: MIT */
/*
 * The glyph cache: rendered glyphs and advances, shared by every thread of a
 * pool (ftpool.h, "Caching glyphs"; docs/design.md, "The glyph cache's
 * reclamation").
 *
 * A hash table of buckets, each a chain of entries linked by atomic
 * pointers. Readers walk chains with no lock and no read-modify-write.
 * Inserters push a new entry on its bucket's chain with a CAS (after
 * checking that no equal entry is there, so one of two racing copies
 * wins), after reserving its bytes against the budget with a CAS. One
 * thread at a time evicts, the holder of a token it takes by exchange
 * (others never wait for it: they return their glyph uncached instead): it
 * unlinks victims, chosen by SIEVE over the entries in publication order,
 * and retires them with an epoch.
 *
 * Reclamation is by quiescent states: each reader (a context, or with the
 * shared-mutex backend a font) pins the epoch at its first lookup and
 * unpins when every acquire it made a lookup under is given back, or at a
 * quiescent point (ftpool_quiescent). An entry retired with epoch R is
 * freed once no reader holds a pin older than R.
 *
 * The budget holds what entries keep alive too: each entry reserves its
 * font's key with its own bytes, and the evictor, taking it in, keeps one
 * such charge per key for as long as an entry holds it (published or
 * awaiting reclamation) and gives the others back.
 */
#ifndef FTPOOL_GLYPH_CACHE_H
#define FTPOOL_GLYPH_CACHE_H

#include <stdbool.h>

#include "atomics.h"
#include "errors.h"
#include "ftpool.h"
#include "platform.h"

/* What an entry holds. */
enum glyph_kind { GLYPH_RENDERED, GLYPH_ADVANCE };

/* A font's identity in the cache: what decides a rendered glyph besides its
 * index and flags. Fonts with equal keys share entries. Immutable,
 * reference-counted: the font and each entry hold one. */
struct glyph_key {
  atomic_refcount refs;
  uint64_t hash;
  size_t bytes;  /* its allocation, charged to the budget */
  size_t cached; /* the token holder's: entries taken in and not yet freed */
  uint64_t blob_serial;      /* 0 when the bytes are a file's */
  struct file_identity file; /* the file's version, else zeroes */
  FT_Long face_index;
  FT_F26Dot6 char_width, char_height;
  FT_UInt horz_resolution, vert_resolution;
  FT_UInt pixel_width, pixel_height;
  /* The font's colours (font.h). Not in the hash: lookups without
   * FT_LOAD_COLOR share entries across them, so only a colour lookup
   * compares them, and fonts differing only in colours put their colour
   * glyphs on one hash. */
  uint64_t colour;
  FT_UInt num_coords;
  FT_Fixed coords[];
};

/* The transform a glyph is loaded with, as FT_Set_Transform takes it. A
 * lookup without one loads with FT_LOAD_IGNORE_TRANSFORM, which is in its
 * flags and so in the key: its entry's transform is zeroes, never read. */
struct glyph_transform {
  FT_Matrix matrix;
  FT_Vector delta;
};

/* What a lookup asks for. */
struct glyph_request {
  struct glyph_key *key;
  FT_UInt glyph_index;
  FT_Int32 load_flags; /* normalised: what the load is made with */
  enum glyph_kind kind;
  const struct glyph_transform *transform; /* NULL: none */
  uint64_t transform_hash;                 /* 0 without a transform */
  uint64_t hash;
};

struct glyph_entry {
  atomic_ptr next; /* the bucket's chain */
  uint64_t hash;
  struct glyph_key *key; /* one reference */
  FT_UInt glyph_index;
  FT_Int32 load_flags;
  enum glyph_kind kind;
  struct glyph_transform transform;
  /* SIEVE's mark: set by a hit that finds it clear, cleared by the hand. */
  atomic_word visited;
  size_t bytes; /* charged to the budget */
  /* The evictor's: its queue (newest at the head), or while published and
   * not yet queued, the incoming stack; retired, the retired list. */
  struct glyph_entry *queue_prev, *queue_next;
  uint64_t retired_at;
  union {
    ftpool_glyph glyph; /* its buffer follows the entry */
    FT_Fixed advance;
  } value;
};

/* A reader's state: a context's (per-thread backend) or a font's
 * (shared-mutex). The reader's own but for `pin`, which evictors read. */
struct glyph_reader {
  atomic_u64 pin; /* 0, or the epoch when it pinned */
  bool pinned;
  size_t holds; /* acquires held that a lookup was made under */
};

/* An acquire's part (glyph_hold.c): whether a lookup was made under it
 * (then it holds the reader's pin), and the glyphs returned to it
 * uncached, freed at its give-back, with their index once they are many. */
struct glyph_hold {
  bool looked_up;
  struct glyph_entry *own;
  struct glyph_entry **own_index; /* NULL: search `own` in a line */
  size_t own_mask, own_count;
};

/* Lookups, counted by one writer at a time: a context's holder, or the
 * holder of a shared-mutex font. Stalled: uncached because what awaits
 * reclamation filled its budget (a reader's pin held it). */
struct glyph_counts {
  atomic_counter hits, misses, uncached, stalled;
};

/* The oldest epoch a reader has pinned, or UINT64_MAX if none is pinned,
 * and how many readers are pinned: the backend's walk over its readers. */
typedef uint64_t (*glyph_oldest_pin_fn)(void *arg, size_t *pinned);

struct glyph_cache {
  FT_Memory memory;
  size_t budget; /* 0: off */
  size_t mask;   /* buckets - 1 */
  atomic_ptr *buckets;
  /* Reserved and published entries, and the keys entries taken in hold,
   * each once, until the last such entry is freed. */
  atomic_counter bytes;
  atomic_counter awaiting; /* retired, not yet freed */
  atomic_counter entries;
  atomic_counter evictions;
  atomic_u64 epoch;
  atomic_ptr incoming; /* published since the evictor last ran */
  atomic_word evicting;
  atomic_word reclaim_wanted; /* asked for while the token was taken */
  glyph_oldest_pin_fn oldest_pin;
  void *oldest_pin_arg;
  /* The token holder's. */
  struct glyph_entry *queue_head, *queue_tail, *hand;
  struct glyph_entry *retired_head, *retired_tail; /* oldest first */
};

ftpool_status ftpool__glyph_cache_init(struct glyph_cache *cache,
                                       FT_Memory memory, size_t budget,
                                       glyph_oldest_pin_fn oldest_pin,
                                       void *arg);

/* Frees every entry; single-threaded, after every reader is gone. */
void ftpool__glyph_cache_fini(struct glyph_cache *cache);

/* Keys (glyph_key.c). NULL when out of memory. */
struct glyph_key *ftpool__glyph_key_new(const ftpool_font *font);
/* A transform's hash, mixed as a key's. */
uint64_t ftpool__glyph_transform_hash(const struct glyph_transform *t);
void ftpool__glyph_key_release(FT_Memory memory, struct glyph_key *key);

/* Fills in req->hash from the rest: one multiply, since the key's hash and
 * the transform's are mixed already; the bucket is taken from the middle
 * bits, which every input bit reaches. Bit 31 of load flags is unused. */
static inline void ftpool__glyph_request_hash(struct glyph_request *req) {
  uint64_t h = req->key->hash ^ req->transform_hash ^
               ((uint64_t)req->glyph_index << 32) ^ (uint32_t)req->load_flags ^
               ((uint64_t)req->kind << 31);
  h *= 0x9e3779b97f4a7c15u;
  req->hash = h ^ (h >> 29);
}

void ftpool__glyph_reader_init(struct glyph_reader *reader);
void ftpool__glyph_counts_init(struct glyph_counts *counts);

/* The reader's pin and unpin (glyph_cache.c), by its acquires' holds. */
void ftpool__glyph_pin(struct glyph_cache *cache, struct glyph_reader *reader);
void ftpool__glyph_unpin(struct glyph_cache *cache,
                         struct glyph_reader *reader);

/* An acquire's holds and uncached glyphs (glyph_hold.c). */
void ftpool__glyph_hold_slow(struct glyph_cache *cache,
                             struct glyph_reader *reader,
                             struct glyph_hold *hold);

/* Before a lookup under the acquire `hold`: the acquire is marked, so that
 * its give-back ends the reader's pin (unless another marked one is held),
 * and the reader pinned if it was not (with the cache on: with it off
 * nothing is evicted). A marked acquire's reader is pinned, so a lookup
 * after the first costs one test. */
static inline void ftpool__glyph_hold(struct glyph_cache *cache,
                                      struct glyph_reader *reader,
                                      struct glyph_hold *hold) {
  if (!hold->looked_up)
    ftpool__glyph_hold_slow(cache, reader, hold);
}

void ftpool__glyph_hold_init(struct glyph_hold *hold);

void ftpool__glyph_hold_end_slow(struct glyph_cache *cache,
                                 struct glyph_reader *reader,
                                 struct glyph_hold *hold);

/* The acquire's last give-back, or a quiescent point for each acquire
 * held: no glyph got under it is read after. Frees its uncached glyphs
 * and, with the last hold, unpins the reader. An acquire that looked
 * nothing up costs a test. */
static inline void ftpool__glyph_hold_end(struct glyph_cache *cache,
                                          struct glyph_reader *reader,
                                          struct glyph_hold *hold) {
  if (hold->looked_up || hold->own)
    ftpool__glyph_hold_end_slow(cache, reader, hold);
}

/* ftpool_destroy: frees the acquire's uncached glyphs, reclaiming
 * nothing. */
void ftpool__glyph_hold_fini(struct glyph_cache *cache,
                             struct glyph_hold *hold);

/* The glyph equal to req returned uncached to this acquire before, or
 * NULL; and e, rendered and not cached, kept for the acquire. */
struct glyph_entry *ftpool__glyph_own_search(struct glyph_hold *hold,
                                             const struct glyph_request *req);
void ftpool__glyph_own_add(struct glyph_cache *cache, struct glyph_hold *hold,
                           struct glyph_entry *e);

/* A fork() child: the reader's thread is gone, so it reads nothing; its
 * acquires' uncached glyphs are leaked, as its stack. */
void ftpool__glyph_reader_forget(struct glyph_reader *reader);

/* Whether two fonts' keys are equal, apart (the slow path of a hit found
 * through another font of the same file and size), for a lookup with
 * load_flags. */
bool ftpool__glyph_same_key_apart(const struct glyph_key *a,
                                  const struct glyph_key *b,
                                  FT_Int32 load_flags);

static inline bool
ftpool__glyph_same_transform(const struct glyph_transform *a,
                             const struct glyph_transform *b) {
  return a->matrix.xx == b->matrix.xx && a->matrix.xy == b->matrix.xy &&
         a->matrix.yx == b->matrix.yx && a->matrix.yy == b->matrix.yy &&
         a->delta.x == b->delta.x && a->delta.y == b->delta.y;
}

static inline bool ftpool__glyph_matches(const struct glyph_entry *e,
                                         const struct glyph_request *req) {
  /* Equal flags: both transformed or neither (FT_LOAD_IGNORE_TRANSFORM). */
  return e->hash == req->hash && e->glyph_index == req->glyph_index &&
         e->load_flags == req->load_flags && e->kind == req->kind &&
         (!req->transform ||
          ftpool__glyph_same_transform(&e->transform, req->transform)) &&
         (e->key == req->key ||
          ftpool__glyph_same_key_apart(e->key, req->key, req->load_flags));
}

static inline atomic_ptr *ftpool__glyph_bucket(struct glyph_cache *cache,
                                               uint64_t hash) {
  return &cache->buckets[(size_t)(hash >> 17) & cache->mask];
}

/* From e on, the entry equal to req, or NULL. e came from a bucket head's
 * acquire load; the links are relaxed, for each points to an entry older
 * than its own, whose publishing CAS heads a release sequence that every
 * later write of the head continues (all are read-modify-writes), so that
 * load synchronised with its inserter already (unlink_entry). */
static inline struct glyph_entry *
ftpool__glyph_search(struct glyph_entry *e, const struct glyph_request *req) {
  for (; e; e = ptr_load_relaxed(&e->next))
    if (ftpool__glyph_matches(e, req))
      return e;
  return NULL;
}

/* The published entry equal to req, counted as a hit, or NULL; the reader
 * is pinned. Inline: it is the whole of a hit. */
static inline struct glyph_entry *
ftpool__glyph_hit(struct glyph_cache *cache, struct glyph_counts *counts,
                  const struct glyph_request *req) {
  if (!cache->buckets)
    return NULL;
  struct glyph_entry *e = ftpool__glyph_search(
      ptr_load_acquire(ftpool__glyph_bucket(cache, req->hash)), req);
  if (!e)
    return NULL;
  /* SIEVE's mark, written only when clear: a hot entry's line stays
   * shared among the cores that read it. Relaxed: a hint to the hand. */
  if (!word_load_relaxed(&e->visited))
    word_store_relaxed(&e->visited, 1);
  counter_bump_single_writer(&counts->hits);
  return e;
}

/*
 * A miss: the glyph returned uncached to this acquire before, or else
 * renders (or loads the advance of) req on face, which the caller holds
 * with the font's size active, and publishes it, or if another copy won,
 * returns that; or, if the cache has no room, returns it uncached on the
 * acquire's own list. The reader must be pinned (with the cache on).
 */
ftpool_status ftpool__glyph_miss(struct glyph_cache *cache,
                                 struct glyph_hold *hold,
                                 struct glyph_counts *counts,
                                 const struct glyph_request *req, FT_Face face,
                                 struct glyph_entry **out);

/* The glyph index's check, which a hit need not make. */
static inline ftpool_status
ftpool__glyph_check_index(FT_Face face, const struct glyph_request *req) {
  /* Unsigned: FT_Long is 32 bits on Windows, where an index past INT_MAX
   * would turn negative. */
  if (face->num_glyphs > 0 && req->glyph_index < (FT_ULong)face->num_glyphs)
    return FTPOOL_OK;
  return ftpool__fail(FTPOOL_ERR_GLYPH_INDEX);
}

/*
 * A lookup on face, which the caller holds under the acquire `hold`: the
 * hit, or the checks a miss needs, then the miss. size_as_set(arg) says
 * whether face's active size is still the font's (a user may set another
 * on an acquired face, and a glyph rendered at it must not be cached under
 * the font's key); asked only on a miss.
 */
static inline ftpool_status
ftpool__glyph_lookup(struct glyph_cache *cache, struct glyph_reader *reader,
                     struct glyph_hold *hold, struct glyph_counts *counts,
                     const struct glyph_request *req, FT_Face face,
                     bool (*size_as_set)(const void *arg), const void *arg,
                     struct glyph_entry **out) {
  ftpool__glyph_hold(cache, reader, hold);
  if ((*out = ftpool__glyph_hit(cache, counts, req)))
    return FTPOOL_OK; /* an index cached is in range */
  ftpool_status status = ftpool__glyph_check_index(face, req);
  if (status != FTPOOL_OK)
    return status;
  if (!size_as_set(arg))
    return ftpool__fail(FTPOOL_ERR_SIZE_CHANGED);
  return ftpool__glyph_miss(cache, hold, counts, req, face, out);
}

/* Eviction and reclamation (glyph_evict.c). */

/* Whether a miss may insert, and if not, whether because what awaits
 * reclamation fills its budget (a pin holds it) or for another reason: the
 * token taken (another thread evicts), the glyph larger than the budget,
 * every byte reserved by misses in progress. */
enum glyph_room { GLYPH_ROOM, GLYPH_ROOM_NONE, GLYPH_ROOM_STALLED };

/* Makes room for `need` more bytes, if the token is free: takes in what
 * was published, evicts, retires, reclaims. */
enum glyph_room ftpool__glyph_make_room(struct glyph_cache *cache, size_t need);

/* Frees retired entries no reader can hold, now if the token is free,
 * else by its holder when it gives the token back. */
void ftpool__glyph_reclaim(struct glyph_cache *cache);

void ftpool__glyph_entry_free(struct glyph_cache *cache, struct glyph_entry *e);

/* Statistics of the cache itself, its pins included (the readers'
 * counters are the backend's to sum). */
void ftpool__glyph_cache_stats(struct glyph_cache *cache, ftpool_stats *s);
void ftpool__glyph_counts_stats(struct glyph_counts *counts, ftpool_stats *s);

/* Adds from's counts to into's; into has one writer, the caller. */
void ftpool__glyph_counts_add(struct glyph_counts *into,
                              struct glyph_counts *from);

#endif /* FTPOOL_GLYPH_CACHE_H */
