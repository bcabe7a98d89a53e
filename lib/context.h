/* SPDX-License-Identifier: MIT */
/*
 * A per-thread context: one FT_Library and the mailbox through which other
 * threads hand it faces to close. The protocol is docs/design.md's state
 * machine; one atomic word, `mail`, carries both the state and the mailbox:
 *
 *   mail == 0                   FREE: no holder, empty mailbox
 *   mail == HELD                HELD: one thread may edit the library
 *   mail == HELD | (rec list)   HELD, with closes waiting
 *
 * Only the holder calls FT_New_Face / FT_Done_Face / FT_Done_Library on
 * `library`. FREE implies an empty mailbox, because a closer that finds the
 * context FREE claims it instead of posting.
 */
#ifndef FTPOOL_CONTEXT_H
#define FTPOOL_CONTEXT_H

#include <stdbool.h>

#include "atomics.h"
#include "glyph_cache.h"
#include "instance.h"
#include "memory.h"
#include "pool.h"

struct context {
  struct context *next; /* registry link: set before publication, then fixed */
  ftpool *pool;
  size_t index;                 /* 0, 1, 2... in the order the pool made them */
  FT_Library library;           /* used by the holder only */
  struct library_memory memory; /* the library's allocator */
  atomic_word mail;
  /* Holder only: mail taken from the mailbox and not yet carried out (kept
   * here, not in a local, so that a fork() child can finish it), and
   * whether a drain is running (a user callback it runs may call in again). */
  struct mail *pending;
  bool draining;
  struct font_state fonts; /* instance.h */
  /* The glyph cache's reader: pinned from the first lookup to the last
   * give-back (instance.c), read by evictors; and the lookups counted. */
  struct glyph_reader glyphs;
  struct glyph_counts glyph_counts;
  /* Written only by the holder. */
  atomic_counter opened;
  atomic_counter closed;
  atomic_counter drained;
  atomic_counter recycled;
  atomic_counter adopted;
  atomic_counter abandoned_at_fork;
  /* Written by any closer. */
  atomic_counter deferred;
  /* For fork() (fork.h): the holder's thread id (0 while none), written by
   * the holder; busy while the holder edits the library; the marks the fork
   * child handler sets. */
  atomic_u64 holder;
  atomic_word busy;
  atomic_word orphaned;    /* holder gone with a fork; taken by one exchange */
  atomic_word quarantined; /* holder gone in the middle of an edit */
};

/* A new context, HELD by the caller, not yet published; its font state is
 * the backend's to initialise. */
void ftpool__context_init(struct context *c, ftpool *pool, size_t index,
                          FT_Library library);

/* FREE -> HELD; true if the caller is now the holder. */
bool ftpool__context_try_claim(struct context *c);

#define CONTEXT_FREE ((uintptr_t)0)
#define CONTEXT_HELD ((uintptr_t)1)

void ftpool__context_drain_mail(struct context *c);

/* Holder only: carries out the closes waiting in the mailbox. Inline, since
 * every owner call makes it: one relaxed load when nothing is posted. */
static inline void ftpool__context_drain(struct context *c) {
  if (word_load_relaxed(&c->mail) != CONTEXT_HELD)
    ftpool__context_drain_mail(c);
}

/* Holder only: closes one face of this context's library now. */
void ftpool__context_close(struct context *c, struct face_rec *rec);

/* Holder only: carries out mail now, as if it had been posted. */
void ftpool__context_carry_out(struct context *c, struct mail *m);

/* Holder only: HELD -> FREE, after draining every close posted before. */
void ftpool__context_release(struct context *c);

/* Non-holder: posts the mail (a close, or a font instance to drop) to the
 * holder, or, if the context is FREE, claims it, carries the mail out, and
 * releases it again. Never waits for another thread. */
void ftpool__context_hand_over(struct context *c, struct mail *m);

/* In a fork() child: makes the caller the holder of a context whose holder
 * did not survive the fork, if it is one and nobody took it first, and
 * finishes the drain the gone holder may have been in. */
bool ftpool__context_take_orphan(struct context *c);

bool ftpool__context_is_held(struct context *c);

/* Holder only: bracket every FreeType call that edits the library, so that a
 * fork() child can tell a library left half-edited. */
static inline void ftpool__context_enter(struct context *c) {
  word_store_relaxed(&c->busy, 1);
  fence_release(); /* the mark reaches memory before any edit it covers */
}

static inline void ftpool__context_leave(struct context *c) {
  word_store_release(&c->busy, 0); /* after the edits it covered */
}

#endif /* FTPOOL_CONTEXT_H */
