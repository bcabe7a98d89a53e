/* SPDX-License-Identifier: MIT */
#include "context.h"

#include "fork.h"
#include "test_hooks.h"

void ftpool__context_init(struct context *c, ftpool *pool, size_t index,
                          FT_Library library) {
  c->next = NULL;
  c->pool = pool;
  c->index = index;
  c->library = library;
  word_init(&c->mail, CONTEXT_HELD);
  c->pending = NULL;
  c->draining = false;
  counter_init(&c->opened);
  counter_init(&c->closed);
  counter_init(&c->drained);
  counter_init(&c->recycled);
  counter_init(&c->adopted);
  counter_init(&c->abandoned_at_fork);
  counter_init(&c->deferred);
  u64_init(&c->holder, 0);
  word_init(&c->busy, 0);
  word_init(&c->orphaned, 0);
  word_init(&c->quarantined, 0);
  ftpool__glyph_reader_init(&c->glyphs);
  ftpool__glyph_counts_init(&c->glyph_counts);
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
  FTPOOL_TEST_HOOK(FTPOOL_HOOK_CLAIMED);
  ftpool__fork_stamp(c);
  return true;
}

/* Carries out mail as its kind says. For mail of the pending list, the
 * list moves past it inside the same busy bracket, so a fork() sees it
 * either still pending or carried out. User callbacks run outside the
 * bracket: the drop of a blob reference, which may run the blob's release
 * callback (and that may call into the pool), and the kind's own after. */
static void carry_out(struct context *c, struct mail *m, bool from_pending) {
  const struct mail_kind *kind = m->kind; /* m may be freed inside */
  struct mail_callback callback = {NULL, NULL};
  if (kind->before)
    callback = kind->before(m);
  ftpool__context_enter(c);
  if (from_pending)
    c->pending = m->next;
  ftpool_blob *blob = kind->inside(c, m);
  ftpool__context_leave(c);
  if (kind->is_close) {
    counter_bump_single_writer(&c->closed);
    if (from_pending)
      counter_bump_single_writer(&c->drained);
  }
  ftpool__blob_drop(blob);
  if (kind->after)
    kind->after(c, &callback);
}

void ftpool__context_close(struct context *c, struct face_rec *rec) {
  carry_out(c, &rec->mail, false);
}

void ftpool__context_carry_out(struct context *c, struct mail *m) {
  carry_out(c, m, false);
}

void ftpool__context_drain_mail(struct context *c) {
  /* A callback this drain runs called in again: the loop below picks up
   * whatever is posted meanwhile. */
  if (c->draining)
    return;
  c->draining = true;
  for (;;) {
    struct mail *m = c->pending;
    if (m) {
      carry_out(c, m, true);
      if (c->pending)
        FTPOOL_TEST_HOOK(FTPOOL_HOOK_DRAINED_ONE);
      continue;
    }
    if (word_load_relaxed(&c->mail) == CONTEXT_HELD)
      break;
    /* Busy while the list is only in a register: a fork() here quarantines
     * the context rather than lose the list. Acquire pairs with the posting
     * CAS's release in context_hand_over: each record's fields and its face
     * are visible before we close it. */
    ftpool__context_enter(c);
    c->pending = (struct mail *)(word_exchange_acquire(&c->mail, CONTEXT_HELD) &
                                 ~CONTEXT_HELD);
    ftpool__context_leave(c);
  }
  c->draining = false;
}

void ftpool__context_release(struct context *c) {
  for (;;) {
    ftpool__context_drain(c);
    /* Unstamped only here, with no user callback before the CAS: the thread
     * that forks is never caught holding an unstamped context. */
    ftpool__fork_unstamp(c);
    uintptr_t expected = CONTEXT_HELD;
    /* Release pairs with the acquire in context_try_claim. The CAS succeeds
     * only on an empty mailbox, so a close posted at any time before it is
     * drained here, and one posted after it finds FREE and claims instead. */
    if (word_cas_release(&c->mail, &expected, CONTEXT_FREE))
      return;
    ftpool__fork_stamp(c);
  }
}

void ftpool__context_hand_over(struct context *c, struct mail *m) {
  /* Read now: once posted, m is the holder's to free at any moment. */
  bool is_close = m->kind->is_close;
  uintptr_t seen = word_load_relaxed(&c->mail);
  for (;;) {
    if (seen == CONTEXT_FREE) {
      if (ftpool__context_try_claim(c)) {
        counter_bump_single_writer(&c->adopted);
        carry_out(c, m, false);
        ftpool__context_release(c);
        return;
      }
      seen = word_load_relaxed(&c->mail);
      continue;
    }
    m->next = (struct mail *)(seen & ~CONTEXT_HELD);
    /* Release publishes m->next and the caller's use of the face (or the
     * font) to the holder's acquire exchange in context_drain. */
    if (word_cas_release(&c->mail, &seen, (uintptr_t)m | CONTEXT_HELD)) {
      if (is_close)
        counter_add_relaxed(&c->deferred, 1);
      return;
    }
  }
}

bool ftpool__context_take_orphan(struct context *c) {
  /* Relaxed: the mark, and the gone holder's state it covers, were written
   * before the child had a second thread (by the fork child handler), and
   * the child's later threads start after it. Only one exchange gets 1. */
  if (!word_load_relaxed(&c->orphaned) ||
      word_exchange_relaxed(&c->orphaned, 0) != 1)
    return false;
  ftpool__fork_stamp(c);
  counter_bump_single_writer(&c->abandoned_at_fork);
  c->draining = false; /* the gone holder's drain is ours to finish */
  ftpool__context_drain_mail(c);
  return true;
}

bool ftpool__context_is_held(struct context *c) {
  return word_load_relaxed(&c->mail) != CONTEXT_FREE;
}
