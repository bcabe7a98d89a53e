#include "fork.h"

#include <pthread.h>

#include "context.h"
#include "registry.h"

/* Written only by the child handler, while the child has one thread; every
 * later thread of the child is created after it, so relaxed loads see it. */
static atomic_word generation;
static atomic_ptr survivor; /* the token of the thread that forked last */

/* Its address tells live threads apart. */
static _Thread_local char thread_token;

/* test/fork_test.cc's negative control builds without the handler. */
#ifndef FTPOOL_NO_FORK_HANDLERS
static void in_child(void) {
  word_store_relaxed(&generation, word_load_relaxed(&generation) + 1);
  ptr_store_relaxed(&survivor, &thread_token);
}

/* At load time, so that no first call races to register or waits for
 * another to. */
__attribute__((constructor)) static void register_fork_handler(void) {
  pthread_atfork(NULL, NULL, in_child);
}
#endif

uintptr_t ftpool__fork_generation(void) {
  return word_load_relaxed(&generation);
}

void ftpool__fork_stamp(struct context *c) {
  ptr_store_relaxed(&c->holder, &thread_token);
  word_store_relaxed(&c->holder_generation, ftpool__fork_generation());
}

void ftpool__fork_unstamp(struct context *c) {
  ptr_store_relaxed(&c->holder, NULL);
}

bool ftpool__fork_recovery_due(atomic_word *pool_generation) {
  uintptr_t now = ftpool__fork_generation();
  uintptr_t seen = word_load_relaxed(pool_generation);
  /* Relaxed: the CAS only elects one recoverer per fork; what it recovers
   * was written before the fork (see `generation`). */
  return seen != now && word_cas_relaxed(pool_generation, &seen, now);
}

/* A held context is the survivor's, or claimed since the fork; any other
 * holder (including one that had not stamped it yet) is gone. */
static bool holder_gone(struct context *c) {
  if (!ftpool__context_is_held(c))
    return false;
  if (word_load_relaxed(&c->holder_generation) == ftpool__fork_generation())
    return false;
  return ptr_load_relaxed(&c->holder) != ptr_load_relaxed(&survivor);
}

void ftpool__fork_recover(struct registry *registry) {
  for (struct context *c = ftpool__registry_first(registry); c; c = c->next) {
    if (word_load_relaxed(&c->quarantined) || !holder_gone(c))
      continue;
    if (word_load_relaxed(&c->busy)) {
      word_store_relaxed(&c->quarantined, 1);
      continue;
    }
    /* The library is whole and its holder gone: we stand in for the holder
     * and release it as its exit would have, draining its mailbox. */
    ftpool__fork_stamp(c);
    counter_bump_single_writer(&c->abandoned_at_fork);
    ftpool__context_release(c);
  }
}
