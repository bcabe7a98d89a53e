/* SPDX-License-Identifier: MIT */
#include "fork.h"

#include <pthread.h>

#include "context.h"
#include "platform.h"
#include "registry.h"
#include "test_hooks.h"

/* Ids are handed out in order and never reused, unlike the address of a
 * thread-local variable or a pthread_t: glibc gives a thread created in a
 * fork child the stack, and so the thread-local block, of a thread that did
 * not survive the fork. */
static atomic_u64 last_thread_id;
_Thread_local uint64_t ftpool__thread_id_cached;

uint64_t ftpool__thread_id_first(void) {
  return ftpool__thread_id_cached = u64_add_relaxed(&last_thread_id, 1);
}

void ftpool__fork_stamp(struct context *c) {
  u64_store_relaxed(&c->holder, ftpool__thread_id());
}

void ftpool__fork_unstamp(struct context *c) {
  u64_store_relaxed(&c->holder, 0);
}

/*
 * The registries of the live per-thread pools. A fixed table, so that
 * tracking allocates nothing and a slot changes with one atomic store: a
 * fork never finds it half-written. As many as the pthread keys a process
 * has on glibc (PTHREAD_KEYS_MAX), one of which each such pool holds.
 */
#define TRACKED_MAX 1024
static atomic_ptr tracked[TRACKED_MAX];

bool ftpool__fork_track(struct registry *registry) {
  for (size_t i = 0; i < TRACKED_MAX; i++) {
    void *expected = NULL;
    /* Release: a fork that copies the slot copies the registry it names
     * initialised. */
    if (!ptr_load_relaxed(&tracked[i]) &&
        ptr_cas_release(&tracked[i], &expected, registry))
      return true;
  }
  return false;
}

void ftpool__fork_untrack(struct registry *registry) {
  for (size_t i = 0; i < TRACKED_MAX; i++) {
    if (ptr_load_relaxed(&tracked[i]) == registry) {
      ptr_store_relaxed(&tracked[i], NULL);
      /* The slot is clear in memory before the pool's contexts are freed,
       * so a fork during the destroy never walks freed memory. */
      fence_release();
      return;
    }
  }
}

/* Not on Windows, nor in test/fork_test.cc's negative control (platform.h). */
#if FTPOOL_FORK_HANDLERS
/* A held context whose holder is not the forking thread lost its holder,
 * whatever that thread was doing: the claim and release paths never leave
 * the forking thread holding a context unstamped (context.c). */
static void classify(struct registry *registry, uint64_t survivor) {
  for (struct context *c = ftpool__registry_first(registry); c; c = c->next) {
    if (!ftpool__context_is_held(c) || word_load_relaxed(&c->quarantined) ||
        u64_load_relaxed(&c->holder) == survivor)
      continue;
    /* Its thread reads no glyph in the child: its pin would hold every
     * eviction's memory for ever. */
    ftpool__glyph_reader_forget(&c->glyphs);
    /* A font instance acquired by a gone thread is in the middle of its
     * use: its face may be half-edited too. */
    if (word_load_relaxed(&c->busy) || word_load_relaxed(&c->fonts.in_use)) {
      word_store_relaxed(&c->quarantined, 1);
    } else {
      word_store_relaxed(&c->orphaned, 1);
      word_store_relaxed(&registry->orphans, 1);
    }
  }
}

static void in_child(void) {
  uint64_t survivor = ftpool__thread_id();
  for (size_t i = 0; i < TRACKED_MAX; i++) {
    struct registry *registry = ptr_load_relaxed(&tracked[i]);
    if (registry)
      classify(registry, survivor);
  }
}

/* At load time, so that no first call races to register or waits for
 * another to. */
__attribute__((constructor)) static void register_fork_handler(void) {
  pthread_atfork(NULL, NULL, in_child);
}
#endif

void ftpool__fork_recover(struct registry *registry) {
  /* Cleared before the walk: a fork taken during it (from a callback the
   * walk runs) marks more orphans and sets it again for the next caller.
   * Relaxed, as the marks themselves (see context_take_orphan). */
  if (!word_load_relaxed(&registry->orphans) ||
      !word_exchange_relaxed(&registry->orphans, 0))
    return;
  FTPOOL_TEST_HOOK(FTPOOL_HOOK_RECOVERING);
  for (struct context *c = ftpool__registry_first(registry); c; c = c->next)
    if (ftpool__context_take_orphan(c))
      ftpool__context_release(c);
}
