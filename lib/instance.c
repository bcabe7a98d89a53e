/* SPDX-License-Identifier: MIT */
#include "instance.h"

#include <stddef.h>

#include "context.h"
#include "errors.h"
#include "font_face.h"
#include "fork.h"
#include "memory.h"

#include FT_MODULE_H
#include FT_SIZES_H

struct instance {
  struct mail mail;       /* posted when the font goes */
  ftpool_font *font;      /* not to be followed once the font went */
  struct font_face *face; /* NULL while evicted */
  FT_Size size;
  FT_Size_Metrics metrics; /* as set: shows a user's own size change */
  FT_CharMap charmap;
  size_t uses;              /* acquires not given back */
  size_t last_used;         /* the LRU clock at its last give-back */
  uint64_t thread;          /* the last thread that acquired it */
  struct instance *outer;   /* `current` when it was acquired */
  struct glyph_hold glyphs; /* while acquired: its part in the glyph cache */
  struct instance_data data;
  struct context *context;
  struct instance *prev, *next; /* the context's records */
  bool gone;                    /* its font went while it was acquired */
};

void ftpool__fonts_init(struct font_state *s, FT_Library library) {
  s->library = library;
  s->base = ftpool__library_memory_bytes(&s->memory);
  s->records = NULL;
  s->faces = NULL;
  s->current = NULL;
  s->idle_count = 0;
  s->clock = 0;
  word_init(&s->in_use, 0);
  counter_init(&s->instances);
  counter_init(&s->created);
  counter_init(&s->reused);
  counter_init(&s->evicted);
  counter_init(&s->face_count);
}

/* What FreeType holds for the context's font faces: the faces, their sizes
 * and glyph slots, and what a user made from them (an FT_Glyph) until it is
 * freed. Relaxed: the holder's own count, or a statistic. */
static size_t font_bytes(struct font_state *s) {
  size_t bytes = ftpool__library_memory_bytes(&s->memory);
  return bytes > s->base ? bytes - s->base : 0;
}

/* --- an instance's face and size --------------------------------------- */

/* Gives inst a face (shared or new) and a size set to the font's. Inside a
 * busy bracket. */
static ftpool_status make_instance(struct context *c, struct instance *inst,
                                   ftpool_font *font) {
  struct font_face *ff;
  ftpool_status status = ftpool__font_face_get(&c->fonts, font, &ff);
  if (status != FTPOOL_OK)
    return status;
  FT_Size size;
  status = ftpool__font_face_new_size(ff, font, &size, &inst->charmap);
  if (status != FTPOOL_OK) {
    ftpool__blob_drop(ftpool__font_face_close_if_unused(&c->fonts, ff));
    return status;
  }
  ff->instances++;
  inst->face = ff;
  inst->size = size;
  inst->metrics = size->metrics;
  counter_bump_single_writer(&c->fonts.instances);
  counter_bump_single_writer(&c->fonts.created);
  return FTPOOL_OK;
}

/* Takes inst's size and maybe its face away. Inside a busy bracket; returns
 * a blob reference to drop after it. */
static ftpool_blob *unmake_instance(struct context *c, struct instance *inst) {
  struct font_face *ff = inst->face;
  FT_Done_Size(inst->size);
  inst->face = NULL;
  inst->size = NULL;
  counter_sub_single_writer(&c->fonts.instances, 1);
  ff->instances--;
  return ftpool__font_face_close_if_unused(&c->fonts, ff);
}

/* --- idle instances and the budget --------------------------------------- */

static bool is_idle(const struct instance *inst) {
  return inst->face && inst->uses == 0;
}

static void count_idle(struct font_state *s, bool in) {
  if (in)
    s->idle_count++;
  else
    s->idle_count--;
}

/* A user's destructor runs last, once the records are consistent again, so
 * that it may release fonts (its own font's last reference too); acquiring
 * from it would remake an instance under its own remaking, and is refused
 * (font.h), also on a context the thread adopted. */
static void destroy_data(struct context *c, struct instance_data *data) {
  ftpool__instance_data_destroy_in(c->pool, data);
}

/* The instance's data, taken from it for destroy_data. */
static struct instance_data take_data(struct instance *inst) {
  struct instance_data data = inst->data;
  inst->data = (struct instance_data){NULL, NULL};
  return data;
}

/* Holder only: closes an idle instance's size (and its face, if no other
 * instance uses it); the record stays for the next acquire. The bracket
 * covers the bookkeeping too: a fork() cutting it short quarantines the
 * context rather than leave the counts wrong. */
static void evict(struct context *c, struct instance *inst) {
  struct instance_data data = take_data(inst);
  ftpool__context_enter(c);
  count_idle(&c->fonts, false);
  ftpool_blob *blob = unmake_instance(c, inst);
  counter_bump_single_writer(&c->fonts.evicted);
  ftpool__context_leave(c);
  ftpool__blob_drop(blob);
  destroy_data(c, &data);
}

/* The byte budget holds the context's whole font memory, in use or not, to
 * the limit as long as something idle is left to evict: idle faces do not
 * change, so whatever the count has beyond the limit is in use or made
 * from faces in use, and that is the bound ftpool.h promises. */
static bool over_budget(struct font_state *s, const ftpool *pool) {
  return s->idle_count > pool->font_idle_instances ||
         (s->idle_count && font_bytes(s) > pool->font_idle_bytes);
}

/* Evicts the least recently given back until the idle ones fit. */
static void evict_to_fit(struct context *c, ftpool *pool) {
  struct font_state *s = &c->fonts;
  while (over_budget(s, pool)) {
    struct instance *oldest = NULL;
    for (struct instance *i = s->records; i; i = i->next)
      if (is_idle(i) && (!oldest || i->last_used < oldest->last_used))
        oldest = i;
    if (!oldest) /* the counts say otherwise: never spin on them */
      break;
    evict(c, oldest);
  }
}

static inline void fit_budget(struct context *c, ftpool *pool) {
  if (over_budget(&c->fonts, pool))
    evict_to_fit(c, pool);
}

/* --- records ------------------------------------------------------------- */

/* Its last release hands a record to its context as this (below). */
static const struct mail_kind font_gone_mail;

static struct instance *new_record(struct context *c, ftpool_font *font) {
  struct instance *inst =
      ftpool__memory_alloc(font->pool->memory, sizeof *inst);
  if (inst) {
    inst->mail.kind = &font_gone_mail;
    inst->font = font;
    inst->context = c;
    ftpool__glyph_hold_init(&inst->glyphs);
  }
  return inst;
}

static void link_record(struct font_state *s, struct instance *inst) {
  inst->prev = NULL;
  inst->next = s->records;
  if (s->records)
    s->records->prev = inst;
  s->records = inst;
}

static void unlink_record(struct font_state *s, struct instance *inst) {
  if (inst->prev)
    inst->prev->next = inst->next;
  else
    s->records = inst->next;
  if (inst->next)
    inst->next->prev = inst->prev;
}

/* The context's record for the font, made (and given a face and size) if
 * need be; NULL with *status set on failure. Never one whose face is
 * acquired by another instance: that one is evicted and made again on
 * another face. */
static struct instance *ready_instance(struct context *c, ftpool_font *font,
                                       ftpool_status *status) {
  struct instance **slot = ftpool__chunked_get(
      &font->instances, font->pool->memory, sizeof *slot, c->index, NULL);
  if (!slot) {
    *status = ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
    return NULL;
  }
  struct instance *inst = *slot;
  if (inst && inst->face && (inst->uses || !inst->face->acquired))
    return inst;
  if (inst && inst->face)
    evict(c, inst);
  bool fresh = !inst;
  ftpool__context_enter(c);
  if (fresh && !(inst = new_record(c, font))) {
    ftpool__context_leave(c);
    *status = ftpool__fail(FTPOOL_ERR_OUT_OF_MEMORY);
    return NULL;
  }
  *status = make_instance(c, inst, font);
  if (*status != FTPOOL_OK) {
    if (fresh)
      ftpool__memory_free(c->memory.pool_memory, inst);
    ftpool__context_leave(c);
    return NULL;
  }
  if (fresh) {
    link_record(&c->fonts, inst);
    *slot = inst;
  }
  inst->thread = ftpool__thread_id();
  inst->last_used = ++c->fonts.clock;
  count_idle(&c->fonts, true);
  ftpool__context_leave(c);
  return inst;
}

ftpool_status ftpool__instance_prepare(struct context *c, ftpool_font *font) {
  ftpool_status status = FTPOOL_OK;
  if (ready_instance(c, font, &status))
    fit_budget(c, font->pool);
  return status;
}

/* The face as the font describes it: its size active and as set, its
 * charmap, no transform, its colours. Each step but a size set again
 * rewrites a field whole, or records that it is done after doing it, so
 * one cut short (by a fork) is put right by the next acquire; setting a
 * size allocates, and is bracketed. */
static ftpool_status reset_face(struct context *c, struct instance *inst,
                                ftpool_font *font) {
  FT_Face face = inst->face->face;
  if (face->size != inst->size)
    FT_Activate_Size(inst->size);
  if (ftpool__size_changed(inst->size, &inst->metrics)) {
    ftpool__context_enter(c);
    ftpool_status status = ftpool__font_set_size(font, face);
    ftpool__context_leave(c);
    if (status != FTPOOL_OK)
      return status;
    inst->metrics = inst->size->metrics;
  }
  if (face->charmap != inst->charmap)
    face->charmap = inst->charmap; /* FT_Set_Charmap refuses NULL */
  FT_Set_Transform(face, NULL, NULL);
  return ftpool__font_face_colour(inst->face, font);
}

ftpool_status ftpool__instance_acquire(struct context *c, ftpool_font *font,
                                       FT_Face *face) {
  struct instance **slot =
      ftpool__chunked_find(&font->instances, sizeof *slot, c->index);
  struct instance *inst = slot ? *slot : NULL;
  /* The common case, a warm instance on a face nobody else has acquired,
   * skips ready_instance. */
  if (!inst || !inst->face || (!inst->uses && inst->face->acquired)) {
    ftpool_status status = FTPOOL_OK;
    if (!(inst = ready_instance(c, font, &status)))
      return status;
  }
  if (inst->uses) { /* acquired again on this thread: as it is */
    inst->uses++;
    *face = inst->face->face;
    return FTPOOL_OK;
  }
  ftpool_status status = reset_face(c, inst, font);
  if (status != FTPOOL_OK)
    return status;
  struct font_state *s = &c->fonts;
  ftpool__context_enter(c);
  count_idle(s, false);
  inst->uses = 1;
  inst->face->acquired = inst;
  inst->outer = s->current;
  s->current = inst;
  word_store_relaxed(&s->in_use, word_load_relaxed(&s->in_use) + 1);
  ftpool__context_leave(c);
  uint64_t thread = ftpool__thread_id();
  if (inst->thread != thread) {
    inst->thread = thread;
    counter_bump_single_writer(&s->reused);
  }
  *face = inst->face->face;
  return FTPOOL_OK;
}

/* The instance behind a face this context's holder acquired from font, or
 * NULL. Looked for among the context's acquired instances, by the face's
 * address alone: a face given back may be closed already (evicted), and
 * one that another thread acquired is not in this chain. */
struct instance *ftpool__instance_acquired(struct context *c, ftpool_font *font,
                                           FT_Face face) {
  for (struct instance *i = c->fonts.current; i; i = i->outer)
    if (i->face->face == face && i->font == font)
      return i;
  return NULL;
}

struct glyph_hold *ftpool__instance_glyph_hold(struct context *c,
                                               ftpool_font *font,
                                               FT_Face face) {
  struct instance *inst = ftpool__instance_acquired(c, font, face);
  return inst ? &inst->glyphs : NULL;
}

bool ftpool__instance_size_as_set(const struct glyph_hold *hold) {
  const struct instance *inst =
      (const struct instance *)((const char *)hold -
                                offsetof(struct instance, glyphs));
  return inst->face->face->size == inst->size &&
         !ftpool__size_changed(inst->size, &inst->metrics);
}

void ftpool__instances_quiescent(struct context *c) {
  for (struct instance *i = c->fonts.current; i; i = i->outer)
    ftpool__glyph_hold_end(&c->pool->glyphs, &c->glyphs, &i->glyphs);
}

static void drop_record(struct context *c, struct instance *inst);

/* The last give-back of an acquire. */
static void put_down(struct context *c, struct instance *inst) {
  struct font_state *s = &c->fonts;
  ftpool__context_enter(c);
  inst->uses = 0;
  inst->face->acquired = NULL;
  if (s->current == inst)
    s->current = inst->outer;
  else /* given back out of order: unlink it from the chain of outers */
    for (struct instance *i = s->current; i; i = i->outer)
      if (i->outer == inst) {
        i->outer = inst->outer;
        break;
      }
  word_store_relaxed(&s->in_use, word_load_relaxed(&s->in_use) - 1);
  inst->last_used = ++s->clock;
  count_idle(s, true);
  ftpool__context_leave(c);
  /* No glyph got under this acquire is read after this. */
  ftpool__glyph_hold_end(&c->pool->glyphs, &c->glyphs, &inst->glyphs);
  if (inst->gone)
    drop_record(c, inst);
}

ftpool_status ftpool__instance_give_back(struct context *c, ftpool_font *font,
                                         FT_Face face) {
  struct instance *inst = ftpool__instance_acquired(c, font, face);
  if (!inst)
    return ftpool__fail(FTPOOL_ERR_NOT_ACQUIRED);
  if (--inst->uses)
    return FTPOOL_OK;
  put_down(c, inst);
  fit_budget(c, font->pool);
  return FTPOOL_OK;
}

struct instance_data *ftpool__instance_data(struct context *c,
                                            ftpool_font *font, FT_Face face) {
  struct instance *inst = ftpool__instance_acquired(c, font, face);
  return inst ? &inst->data : NULL;
}

void ftpool__fonts_thread_gone(struct context *c, ftpool *pool) {
  struct font_state *s = &c->fonts;
  while (s->current)
    put_down(c, s->current);
  fit_budget(c, pool);
}

/* --- a font's last release ---------------------------------------------- */

/* The caller's own context's instance goes at once; the others' are
 * handed over. */
static void post_record(void *element, void *self) {
  struct instance *inst = *(struct instance **)element;
  if (!inst)
    return;
  if (inst->context == self)
    ftpool__context_carry_out(self, &inst->mail);
  else
    ftpool__context_hand_over(inst->context, &inst->mail);
}

void ftpool__instance_post_gone(ftpool_font *font, struct context *self) {
  /* Each slot was written by its context's holder before that thread gave
   * back its reference to the font; the last release (acq_rel) sees them
   * all. */
  ftpool__chunked_each(&font->instances, sizeof(struct instance *), post_record,
                       self);
}

static void free_record(struct context *c, struct instance *inst) {
  unlink_record(&c->fonts, inst);
  ftpool__memory_free(c->memory.pool_memory, inst);
}

/* Inside a busy bracket: closes the record's size (and maybe its face) and
 * frees it; returns a blob reference to drop after the bracket. */
static ftpool_blob *unmake_record(struct context *c, struct instance *inst) {
  ftpool_blob *blob = NULL;
  if (inst->face) {
    count_idle(&c->fonts, false);
    blob = unmake_instance(c, inst);
  }
  free_record(c, inst);
  return blob;
}

static void drop_record(struct context *c, struct instance *inst) {
  struct instance_data data = take_data(inst);
  ftpool__context_enter(c);
  ftpool_blob *blob = unmake_record(c, inst);
  ftpool__context_leave(c);
  ftpool__blob_drop(blob);
  destroy_data(c, &data);
}

/* The font-gone mail, carried out by the record's context's holder: before
 * the busy bracket, the user's data taken from the record; inside it, the
 * record closed and freed; after it, the user's destructor run. A record
 * still acquired (its font released too early) keeps its data and stays
 * until it is given back. */
static struct mail_callback gone_before(struct mail *m) {
  struct instance *inst = (struct instance *)m;
  if (inst->uses)
    return (struct mail_callback){NULL, NULL};
  struct instance_data data = take_data(inst);
  return (struct mail_callback){data.data, data.destroy};
}

static ftpool_blob *gone_inside(struct context *c, struct mail *m) {
  struct instance *inst = (struct instance *)m;
  if (inst->uses) {
    inst->gone = true;
    return NULL;
  }
  return unmake_record(c, inst);
}

static void gone_after(struct context *c, struct mail_callback *callback) {
  struct instance_data data = {callback->data, callback->run};
  destroy_data(c, &data);
}

static const struct mail_kind font_gone_mail = {gone_before, gone_inside,
                                                gone_after, false};

/* --- ftpool_destroy ------------------------------------------------------ */

void ftpool__fonts_destroy(struct context *c, ftpool_font **dead) {
  struct font_state *s = &c->fonts;
  while (s->records) {
    struct instance *inst = s->records;
    ftpool__instance_data_destroy_in(c->pool, &inst->data);
    ftpool__glyph_hold_fini(&c->pool->glyphs, &inst->glyphs);
    if (!inst->gone && !inst->font->dying) {
      inst->font->dying = true;
      inst->font->dead_next = *dead;
      *dead = inst->font;
    }
    free_record(c, inst);
  }
  FT_Done_Library(s->library); /* closes the faces */
  ftpool__font_faces_free(s);
}

void ftpool__fonts_stats(struct font_state *s, ftpool_stats *stats) {
  stats->font_instances += counter_load_relaxed(&s->instances);
  stats->font_instances_created += counter_load_relaxed(&s->created);
  stats->font_instances_reused += counter_load_relaxed(&s->reused);
  stats->font_instances_evicted += counter_load_relaxed(&s->evicted);
  stats->font_instance_bytes += font_bytes(s);
  stats->font_faces += counter_load_relaxed(&s->face_count);
}
