#include "context.h"

#include "fork.h"

void ftpool__context_init(struct context *c, FT_Library library) {
  c->next = NULL;
  c->library = library;
  word_init(&c->mail, CONTEXT_HELD);
  counter_init(&c->opened);
  counter_init(&c->closed);
  counter_init(&c->drained);
  counter_init(&c->recycled);
  counter_init(&c->adopted);
  counter_init(&c->deferred);
  ptr_init(&c->holder, NULL);
  word_init(&c->holder_generation, 0);
  word_init(&c->busy, 0);
  word_init(&c->quarantined, 0);
  counter_init(&c->abandoned_at_fork);
  ftpool__fork_stamp(c);
}

bool ftpool__context_try_claim(struct context *c) {
  uintptr_t expected = CONTEXT_FREE;
  /* Acquire pairs with the release in context_release: the last holder's
   * edits of the library happen before ours. */
  while (!word_cas_acquire(&c->mail, &expected, CONTEXT_HELD)) {
    if (expected != CONTEXT_FREE)
      return false;
  }
  ftpool__fork_stamp(c);
  return true;
}

void ftpool__context_close(struct context *c, struct face_rec *rec) {
  ftpool__context_enter(c);
  ftpool__face_done(rec);
  ftpool__context_leave(c);
  counter_bump_single_writer(&c->closed);
}

void ftpool__context_drain_mail(struct context *c) {
  /* Acquire pairs with the posting CAS's release in context_hand_over: each
   * record's fields and its face are visible before we close it. */
  uintptr_t list =
      word_exchange_acquire(&c->mail, CONTEXT_HELD) & ~CONTEXT_HELD;
  struct face_rec *rec = (struct face_rec *)list;
  while (rec) {
    struct face_rec *next = rec->next;
    ftpool__context_close(c, rec);
    counter_bump_single_writer(&c->drained);
    rec = next;
  }
}

void ftpool__context_release(struct context *c) {
  ftpool__fork_unstamp(c);
  uintptr_t expected = CONTEXT_HELD;
  /* Release pairs with the acquire in context_try_claim. The CAS succeeds
   * only on an empty mailbox, so a close posted at any time before it is
   * drained here, and one posted after it finds FREE and claims instead. */
  while (!word_cas_release(&c->mail, &expected, CONTEXT_FREE)) {
    ftpool__context_drain(c);
    expected = CONTEXT_HELD;
  }
}

void ftpool__context_hand_over(struct context *c, struct face_rec *rec) {
  uintptr_t seen = word_load_relaxed(&c->mail);
  for (;;) {
    if (seen == CONTEXT_FREE) {
      if (ftpool__context_try_claim(c)) {
        counter_bump_single_writer(&c->adopted);
        ftpool__context_close(c, rec);
        ftpool__context_release(c);
        return;
      }
      seen = word_load_relaxed(&c->mail);
      continue;
    }
    rec->next = (struct face_rec *)(seen & ~CONTEXT_HELD);
    /* Release publishes rec->next and the caller's use of the face to the
     * holder's acquire exchange in context_drain. */
    if (word_cas_release(&c->mail, &seen, (uintptr_t)rec | CONTEXT_HELD)) {
      counter_add_relaxed(&c->deferred, 1);
      return;
    }
  }
}

bool ftpool__context_is_held(struct context *c) {
  return word_load_relaxed(&c->mail) != CONTEXT_FREE;
}
