/* SPDX-License-Identifier: MIT */
/*
 * The per-thread backend: each thread holds its own context (an FT_Library),
 * found through a thread-specific key, so opening and closing its own faces
 * takes no lock and no read-modify-write atomic.
 */
#include <pthread.h>
#include <stdbool.h>

#include "context.h"
#include "errors.h"
#include "fork.h"
#include "memory.h"
#include "platform.h"
#include "registry.h"

#include FT_MODULE_H

struct per_thread_pool {
  ftpool base;
  size_t serial;     /* unique per pool in the process, never reused */
  pthread_key_t key; /* the calling thread's held context */
  struct registry registry;
  atomic_counter contexts_made; /* the next context's index */
};

static struct per_thread_pool *as_per_thread(ftpool *pool) {
  return (struct per_thread_pool *)pool;
}

static atomic_counter pools_created;

/* The key's value while the thread's first call claims or builds its
 * context: it reserves the thread's slot (see attach). */
static char attaching;
#define ATTACHING ((void *)&attaching)

/*
 * The pools whose configure callback this thread is running, for a new
 * context (attaching or, when exiting, borrowing), the innermost first. A
 * call from the callback back into one of them is refused instead of
 * recursing. A list, not a flag: a callback may use another pool, whose
 * callback may come back to the first.
 */
struct configuring_frame {
  size_t serial;
  const struct configuring_frame *outer;
};
static _Thread_local const struct configuring_frame *configuring;

static bool is_configuring(const struct per_thread_pool *pool) {
  for (const struct configuring_frame *f = configuring; f; f = f->outer)
    if (f->serial == pool->serial)
      return true;
  return false;
}

/*
 * The calling thread's context in the pool it used last: one TLS load on the
 * hot path instead of a call to pthread_getspecific. Keyed by the pool's
 * serial, not its address, so a destroyed pool's entry never matches a new
 * pool allocated at the same place. The key stays the authority: this only
 * mirrors a non-ATTACHING value of it.
 */
static _Thread_local struct {
  size_t serial;
  struct context *context;
} last_used;

/* The thread's context, or NULL while it has none or is still attaching. */
static struct context *held_context(struct per_thread_pool *pool) {
  if (last_used.serial == pool->serial)
    return last_used.context;
  void *held = pthread_getspecific(pool->key);
  if (!held || held == ATTACHING)
    return NULL;
  last_used.serial = pool->serial;
  last_used.context = held;
  return held;
}

/* The key's destructor: the thread is exiting, so it gives its context back
 * for the next new thread (or a closer) to claim. A configure callback that
 * ends its thread (pthread_exit) leaves ATTACHING here; that is documented
 * as undefined and leaks the unpublished library. */
static void on_thread_exit(void *held) {
  /* The thread is exiting, and libc may run no further destructor round to
   * release what it attaches from now on: it borrows instead. */
  ftpool__platform_mark_exiting();
  if (last_used.context == held)
    last_used.serial = 0;
  if (held != ATTACHING) {
    struct context *c = held;
    ftpool__fonts_thread_gone(c, c->pool);
    ftpool__context_release(c);
  }
}

static ftpool_status new_context(struct per_thread_pool *pool,
                                 struct context **out) {
  struct context *c = ftpool__memory_alloc(pool->base.memory, sizeof *c);
  if (!c)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  /* Two libraries: one for plain faces and the caller's own use, one for
   * font faces (instance.h says why). Each costs ~2.4 KB and ~2 us. */
  FT_Library library, font_library;
  ftpool_status status = ftpool__library_new(&pool->base, &c->memory, &library);
  if (status == FTPOOL_OK) {
    status = ftpool__library_new(&pool->base, &c->fonts.memory, &font_library);
    if (status != FTPOOL_OK)
      FT_Done_Library(library);
  }
  if (status != FTPOOL_OK) {
    ftpool__memory_free(pool->base.memory, c);
    return status;
  }
  size_t index = counter_add_relaxed(&pool->contexts_made, 1) - 1;
  ftpool__context_init(c, &pool->base, index, library);
  ftpool__fonts_init(&c->fonts, font_library);
  ftpool__registry_publish(&pool->registry, c);
  *out = c;
  return FTPOOL_OK;
}

/* Claims a FREE context, or makes one. The configure callback runs here, with
 * no lock held and nobody waiting for it. */
static ftpool_status claim_or_create(struct per_thread_pool *pool,
                                     struct context **out) {
  ftpool__fork_recover(&pool->registry);
  struct context *c = ftpool__registry_claim_free(&pool->registry);
  if (c) {
    counter_bump_single_writer(&c->recycled);
    *out = c;
    return FTPOOL_OK;
  }
  struct configuring_frame frame = {pool->serial, configuring};
  configuring = &frame;
  ftpool_status status = new_context(pool, out);
  configuring = frame.outer;
  return status;
}

/* The slow path of a thread's first call: claim a context and bind it to the
 * thread until the thread exits. */
static ftpool_status attach(struct per_thread_pool *pool,
                            struct context **out) {
  /* Reserves the thread's slot before anything is claimed, so the only
   * setspecific that can fail (allocating the slot) fails first; the two
   * below reuse the slot and cannot fail. */
  if (pthread_setspecific(pool->key, ATTACHING) != 0)
    return ftpool__fail(FTPOOL_ERR_THREAD);
  struct context *c = NULL;
  ftpool_status status = claim_or_create(pool, &c);
  void *attached = pthread_getspecific(pool->key);
  if (attached != ATTACHING && attached != NULL) {
    /* A user callback the claim ran (a release callback, when a fork
     * child's recovery drains an orphan) called in and attached the thread
     * meanwhile: keep that context, give back ours. */
    if (status == FTPOOL_OK)
      ftpool__context_release(c);
    *out = attached;
    return FTPOOL_OK;
  }
  pthread_setspecific(pool->key, status == FTPOOL_OK ? c : NULL);
  if (status == FTPOOL_OK)
    *out = c;
  return status;
}

/*
 * The context the caller may use for one operation, when the thread holds
 * none it can find in last_used. *borrowed is set when the thread is exiting:
 * the context is claimed for this operation only, and the caller must release
 * it after, since no destructor would.
 */
__attribute__((noinline)) static ftpool_status
own_context_slow(struct per_thread_pool *pool, struct context **out,
                 bool *borrowed) {
  struct context *c = held_context(pool);
  if (c) {
    ftpool__context_drain(c);
    *out = c;
    return FTPOOL_OK;
  }
  if (is_configuring(pool))
    return ftpool__fail(FTPOOL_ERR_REENTRANT);
  if (ftpool__platform_exiting()) {
    *borrowed = true;
    return claim_or_create(pool, out);
  }
  return attach(pool, out);
}

/* The hot path of every owner call: one TLS compare, one relaxed load. */
static inline ftpool_status own_context(struct per_thread_pool *pool,
                                        struct context **out, bool *borrowed) {
  *borrowed = false;
  if (last_used.serial != pool->serial)
    return own_context_slow(pool, out, borrowed);
  *out = last_used.context;
  ftpool__context_drain(*out);
  return FTPOOL_OK;
}

static ftpool_status pt_library(ftpool *base, FT_Library *library) {
  struct context *c;
  bool borrowed;
  ftpool_status status = own_context(as_per_thread(base), &c, &borrowed);
  if (status != FTPOOL_OK)
    return status;
  if (borrowed) {
    /* A library the thread would not hold after this call is no use. */
    ftpool__context_release(c);
    return ftpool__fail(FTPOOL_ERR_THREAD);
  }
  *library = c->library;
  return FTPOOL_OK;
}

static ftpool_status pt_open(ftpool *base, const FT_Open_Args *args,
                             FT_Long face_index, struct face_rec *rec) {
  struct context *c;
  bool borrowed;
  ftpool_status status = own_context(as_per_thread(base), &c, &borrowed);
  if (status != FTPOOL_OK)
    return status;
  ftpool__context_enter(c);
  FT_Error error = FT_Open_Face(c->library, args, face_index, &rec->face);
  ftpool__context_leave(c);
  if (!error) {
    rec->owner = c;
    counter_bump_single_writer(&c->opened);
  }
  if (borrowed)
    ftpool__context_release(c);
  return error ? ftpool__fail_freetype(error, face_index != 0) : FTPOOL_OK;
}

static void pt_close(ftpool *base, struct face_rec *rec) {
  struct context *self = held_context(as_per_thread(base));
  struct context *owner = rec->owner;
  if (self)
    ftpool__context_drain(self);
  if (owner == self) {
    ftpool__context_close(owner, rec);
    return;
  }
  ftpool__fork_recover(&as_per_thread(base)->registry);
  ftpool__context_hand_over(owner, &rec->mail);
}

/* Also, in a fork child, takes over the contexts the fork left without
 * holder, so that closes posted to them before the fork are carried out. */
static void pt_collect(ftpool *base) {
  struct context *self = held_context(as_per_thread(base));
  if (self)
    ftpool__context_drain(self);
  ftpool__fork_recover(&as_per_thread(base)->registry);
}

/* The context for a font call that must keep its context between calls:
 * not a borrowed one, which an exiting thread gives back at once. */
static ftpool_status font_context(ftpool_font *font, struct context **c) {
  bool borrowed;
  ftpool_status status = own_context(as_per_thread(font->pool), c, &borrowed);
  if (status == FTPOOL_OK && borrowed) {
    ftpool__context_release(*c);
    return ftpool__fail(FTPOOL_ERR_THREAD);
  }
  return status;
}

static ftpool_status pt_font_prepare(ftpool_font *font) {
  struct context *c;
  bool borrowed;
  ftpool_status status = own_context(as_per_thread(font->pool), &c, &borrowed);
  if (status != FTPOOL_OK)
    return status;
  status = ftpool__instance_prepare(c, font);
  if (borrowed)
    ftpool__context_release(c);
  return status;
}

static ftpool_status pt_font_acquire(ftpool_font *font, FT_Face *face) {
  struct context *c;
  ftpool_status status = font_context(font, &c);
  return status == FTPOOL_OK ? ftpool__instance_acquire(c, font, face) : status;
}

static ftpool_status pt_font_give_back(ftpool_font *font, FT_Face face) {
  struct context *c = held_context(as_per_thread(font->pool));
  if (!c)
    return ftpool__fail(FTPOOL_ERR_NOT_ACQUIRED);
  ftpool__context_drain(c);
  return ftpool__instance_give_back(c, font, face);
}

static struct instance_data *pt_font_data(ftpool_font *font, FT_Face face) {
  struct context *c = held_context(as_per_thread(font->pool));
  return c ? ftpool__instance_data(c, font, face) : NULL;
}

static bool instance_size_as_set(const void *hold) {
  return ftpool__instance_size_as_set(hold);
}

static ftpool_status pt_font_glyph(ftpool_font *font, FT_Face face,
                                   const struct glyph_request *req,
                                   struct glyph_entry **out) {
  struct context *c = held_context(as_per_thread(font->pool));
  struct glyph_hold *hold =
      c ? ftpool__instance_glyph_hold(c, font, face) : NULL;
  if (!hold)
    return ftpool__fail(FTPOOL_ERR_NOT_ACQUIRED);
  return ftpool__glyph_lookup(&font->pool->glyphs, &c->glyphs, hold,
                              &c->glyph_counts, req, face, instance_size_as_set,
                              hold, out);
}

static void pt_quiescent(ftpool *base) {
  struct context *c = held_context(as_per_thread(base));
  if (c)
    ftpool__instances_quiescent(c);
}

/* The glyph cache's readers are the contexts. */
static uint64_t oldest_pin(void *arg, size_t *pinned) {
  uint64_t oldest = UINT64_MAX;
  for (struct context *c = ftpool__registry_first(arg); c; c = c->next) {
    /* Acquire pairs with the reader's release unpin: its reads of what it
     * unpinned happen before the free that follows. */
    uint64_t pin = u64_load_acquire(&c->glyphs.pin);
    if (pin && pinned)
      ++*pinned;
    if (pin && pin < oldest)
      oldest = pin;
  }
  return oldest;
}

static void pt_font_gone(ftpool_font *font) {
  struct per_thread_pool *pool = as_per_thread(font->pool);
  struct context *self = held_context(pool);
  if (self)
    ftpool__context_drain(self);
  ftpool__fork_recover(&pool->registry);
  ftpool__instance_post_gone(font, self);
}

static size_t open_in(struct context *c) {
  /* Read apart from `opened`, so a face opened and closed in between could
   * make a plain difference negative. */
  size_t closed = counter_load_relaxed(&c->closed);
  size_t opened = counter_load_relaxed(&c->opened);
  return opened > closed ? opened - closed : 0;
}

static void pt_stats(ftpool *base, ftpool_stats *s) {
  for (struct context *c =
           ftpool__registry_first(&as_per_thread(base)->registry);
       c; c = c->next) {
    s->contexts++;
    s->contexts_owned += ftpool__context_is_held(c);
    s->contexts_recycled += counter_load_relaxed(&c->recycled);
    s->contexts_adopted += counter_load_relaxed(&c->adopted);
    s->faces_opened += counter_load_relaxed(&c->opened);
    s->faces_closed += counter_load_relaxed(&c->closed);
    s->faces_open += open_in(c);
    s->closes_deferred += counter_load_relaxed(&c->deferred);
    s->closes_drained += counter_load_relaxed(&c->drained);
    s->contexts_abandoned_at_fork +=
        counter_load_relaxed(&c->abandoned_at_fork);
    s->contexts_quarantined += word_load_relaxed(&c->quarantined);
    ftpool__fonts_stats(&c->fonts, s);
    ftpool__glyph_counts_stats(&c->glyph_counts, s);
  }
  ftpool__glyph_cache_stats(&base->glyphs, s);
}

/* No other call may overlap this one, so every context is ours: drain its
 * mailbox, drop its font instances, then FT_Done_Library closes the faces
 * still open. A quarantined context's library may be half-edited: it is
 * left alone (leaked). Fonts still referenced go last: instances in several
 * contexts point to them. */
static void pt_destroy(ftpool *base) {
  struct per_thread_pool *pool = as_per_thread(base);
  pthread_key_delete(pool->key);
  ftpool__fork_untrack(&pool->registry);
  ftpool__fork_recover(&pool->registry);
  ftpool_font *dead = NULL;
  struct context *c = ftpool__registry_first(&pool->registry);
  while (c) {
    struct context *next = c->next;
    if (!word_load_relaxed(&c->quarantined)) {
      ftpool__context_drain(c);
      ftpool__fonts_destroy(c, &dead);
      FT_Done_Library(c->library);
      ftpool__memory_free(base->memory, c);
    }
    c = next;
  }
  while (dead) {
    ftpool_font *font = dead;
    dead = font->dead_next;
    ftpool__font_free(font);
  }
  ftpool__glyph_cache_fini(&base->glyphs);
  ftpool__pool_fini_header(base);
  ftpool__memory_free(base->memory, pool);
}

static const struct backend per_thread_backend = {
    .library = pt_library,
    .open = pt_open,
    .close = pt_close,
    .collect = pt_collect,
    .stats = pt_stats,
    .destroy = pt_destroy,
    .font_prepare = pt_font_prepare,
    .font_acquire = pt_font_acquire,
    .font_give_back = pt_font_give_back,
    .font_data = pt_font_data,
    .font_gone = pt_font_gone,
    .font_glyph = pt_font_glyph,
    .quiescent = pt_quiescent,
};

ftpool_status ftpool__per_thread_create(const ftpool_config *config,
                                        ftpool **out) {
  struct per_thread_pool *pool =
      ftpool__memory_alloc(config->memory, sizeof *pool);
  if (!pool)
    return ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
  ftpool__pool_init_header(&pool->base, &per_thread_backend, config);
  pool->serial = counter_add_relaxed(&pools_created, 1);
  ftpool__registry_init(&pool->registry);
  counter_init(&pool->contexts_made);
  if (pthread_key_create(&pool->key, on_thread_exit) != 0) {
    ftpool__memory_free(config->memory, pool);
    return ftpool__fail(FTPOOL_ERR_THREAD);
  }
  ftpool_status status = ftpool__glyph_cache_init(
      &pool->base.glyphs, config->memory, config->glyph_cache_bytes, oldest_pin,
      &pool->registry);
  if (status != FTPOOL_OK) {
    pthread_key_delete(pool->key);
    ftpool__memory_free(config->memory, pool);
    return status;
  }
  if (!ftpool__fork_track(&pool->registry)) {
    ftpool__glyph_cache_fini(&pool->base.glyphs);
    pthread_key_delete(pool->key);
    ftpool__memory_free(config->memory, pool);
    return ftpool__fail(FTPOOL_ERR_THREAD);
  }
  *out = &pool->base;
  return FTPOOL_OK;
}
