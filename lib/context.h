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
#include "memory.h"
#include "pool.h"

struct context {
  struct context *next; /* registry link: set before publication, then fixed */
  FT_Library library;   /* used by the holder only */
  struct library_memory memory; /* the library's allocator */
  atomic_word mail;
  /* Written only by the holder. */
  atomic_counter opened;
  atomic_counter closed;
  atomic_counter drained;
  atomic_counter recycled;
  atomic_counter adopted;
  /* Written by any closer. */
  atomic_counter deferred;
  /* For fork() (fork.h): the holder's stamp, written by the holder; busy
   * while the holder is inside FreeType on the library. */
  atomic_ptr holder;
  atomic_word holder_generation;
  atomic_word busy;
  atomic_word quarantined; /* set once, by a fork recovery */
  atomic_counter abandoned_at_fork;
};

/* A new context, HELD by the caller, not yet published. */
void ftpool__context_init(struct context *c, FT_Library library);

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

/* Holder only: HELD -> FREE, after draining every close posted before. */
void ftpool__context_release(struct context *c);

/* Non-holder: posts the close to the holder, or, if the context is FREE,
 * claims it, closes, and releases it again. Never waits for another thread. */
void ftpool__context_hand_over(struct context *c, struct face_rec *rec);

bool ftpool__context_is_held(struct context *c);

/* Holder only: bracket every FreeType call that edits the library, so that a
 * fork() child can tell a library left half-edited. */
static inline void ftpool__context_enter(struct context *c) {
  word_store_relaxed(&c->busy, 1);
  fence_signal_release(); /* marked before the edits it covers begin */
}

static inline void ftpool__context_leave(struct context *c) {
  word_store_release(&c->busy, 0); /* after the edits it covered */
}

#endif /* FTPOOL_CONTEXT_H */
