/* SPDX-License-Identifier: MIT */
/*
 * Shared fonts in the per-thread backend: each context's instances of the
 * fonts its threads acquired. An *instance record* exists per font and
 * context from the first acquire until the font goes; while it is not
 * evicted it holds an FT_Size on a *font face* of the context, which fonts
 * differing only in size share. Everything here is the holder's alone,
 * found with no lock: a font's slot for the context, then plain fields.
 * Other threads reach an instance only when its font's last reference goes
 * (ftpool__instance_post_gone): through the context's mailbox.
 */
#ifndef FTPOOL_INSTANCE_H
#define FTPOOL_INSTANCE_H

#include <stdbool.h>

#include "atomics.h"
#include "font.h"
#include "memory.h"
#include "pool.h"

struct context;
struct instance;
struct font_face;

struct font_state {
  /* Font faces live in a library of their own, so that its count holds
   * their bytes and nothing else: what plain faces, ftpool_library users
   * and destructors allocate or free goes through the context's other
   * library. The budget is checked against this count, not estimated. */
  FT_Library library;
  struct library_memory memory;
  size_t base;              /* the library's own bytes, before any face */
  struct instance *records; /* every record of the context */
  struct font_face *faces;  /* faces open for instances */
  struct instance *current; /* the latest acquired, not given back */
  size_t idle_count;        /* instances with a face, not acquired */
  size_t clock;             /* give-backs so far: the LRU's clock */
  /* Acquired instances; read by a fork() child handler too. */
  atomic_word in_use;
  /* Statistics, written by the holder. */
  atomic_counter instances;
  atomic_counter created;
  atomic_counter reused;
  atomic_counter evicted;
  atomic_counter face_count;
};

/* s->memory must be the memory the library was made with. */
void ftpool__fonts_init(struct font_state *s, FT_Library library);

/* Holder only. prepare makes (or finds) the context's instance of a new
 * font without acquiring it; acquire and give_back are the public
 * functions' per-thread halves. */
ftpool_status ftpool__instance_prepare(struct context *c, ftpool_font *font);
ftpool_status ftpool__instance_acquire(struct context *c, ftpool_font *font,
                                       FT_Face *face);
ftpool_status ftpool__instance_give_back(struct context *c, ftpool_font *font,
                                         FT_Face face);
struct instance_data *ftpool__instance_data(struct context *c,
                                            ftpool_font *font, FT_Face face);

/* The instance behind a face this context's holder acquired from font, or
 * NULL. */
struct instance *ftpool__instance_acquired(struct context *c, ftpool_font *font,
                                           FT_Face face);

/* Holder only: the glyph cache's part of the acquire of face from font,
 * or NULL; and whether that acquire's size is still the font's (a user may
 * set another on an acquired face). */
struct glyph_hold *ftpool__instance_glyph_hold(struct context *c,
                                               ftpool_font *font, FT_Face face);
bool ftpool__instance_size_as_set(const struct glyph_hold *hold);

/* Holder only: ftpool_quiescent; no glyph the holder got under the
 * instances it holds is read after. */
void ftpool__instances_quiescent(struct context *c);

/* Any thread, on a font's last release: drops the instance of self (the
 * caller's context, or NULL) and hands each other instance record to its
 * context (context.h's hand-over), as mail whose kind drops it there. */
void ftpool__instance_post_gone(ftpool_font *font, struct context *self);

/* Holder only: the thread is leaving the context (its exit), so whatever it
 * still has acquired is given back. */
void ftpool__fonts_thread_gone(struct context *c, ftpool *pool);

/* ftpool_destroy: runs the instances' destructors, frees the records, and
 * adds every font still referenced to *dead (once each); then the fonts'
 * library goes with every face, and the font faces' records. */
void ftpool__fonts_destroy(struct context *c, ftpool_font **dead);

void ftpool__fonts_stats(struct font_state *s, ftpool_stats *stats);

#endif /* FTPOOL_INSTANCE_H */
