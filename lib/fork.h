/* SPDX-License-Identifier: MIT */
/*
 * fork(): the child runs on with one thread, the one that forked. The fork
 * child handler runs in the child while that is still its only thread, so it
 * can tell exactly which contexts lost their holder: it walks the contexts of
 * every live per-thread pool and marks each context held by another thread
 *   - quarantined, if that thread was inside FreeType on its library (the
 *     library may be half-edited: never used again, leaked in the child);
 *   - orphaned, otherwise.
 * It only reads and marks: no allocation, no user code. An orphan is taken
 * over later by whichever thread of the child first needs it (one exchange
 * on its mark makes that thread the holder), which finishes the gone
 * holder's drain and releases it as the gone thread's exit would have.
 *
 * Holders stamp their contexts with a thread id that is never reused, so
 * the handler tells the forking thread's contexts from the others'.
 */
#ifndef FTPOOL_FORK_H
#define FTPOOL_FORK_H

#include <stdbool.h>
#include <stdint.h>

struct context;
struct registry;

/* The calling thread's id: unique in the process for its whole life. */
extern _Thread_local uint64_t ftpool__thread_id_cached;
uint64_t ftpool__thread_id_first(void);
static inline uint64_t ftpool__thread_id(void) {
  uint64_t id = ftpool__thread_id_cached;
  return id ? id : ftpool__thread_id_first();
}

/* Marks c as held by the calling thread. */
void ftpool__fork_stamp(struct context *c);

/* Marks c as held by no thread, just before it is released. */
void ftpool__fork_unstamp(struct context *c);

/* Makes the fork child handler see a per-thread pool's registry, from its
 * creation to its destruction; false when too many pools are live. */
bool ftpool__fork_track(struct registry *registry);
void ftpool__fork_untrack(struct registry *registry);

/* Takes over and releases every orphan of the registry; one relaxed load
 * when there is none. */
void ftpool__fork_recover(struct registry *registry);

#endif /* FTPOOL_FORK_H */
