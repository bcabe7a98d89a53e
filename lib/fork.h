/*
 * fork(): the child runs on with one thread, the one that forked. Contexts
 * that other threads held at that instant are abandoned in the child, as if
 * those threads had exited, the first time a thread of the child needs one
 * (or destroys the pool). A context whose holder was inside FreeType at the
 * fork may hold a half-edited library: it is quarantined instead, never
 * used again in the child, and its library is leaked there.
 *
 * A holder stamps its context with its thread token and the fork generation
 * it claimed it in; after a fork, a held context whose stamp names neither
 * the current generation nor the thread that forked has no holder.
 */
#ifndef FTPOOL_FORK_H
#define FTPOOL_FORK_H

#include <stdbool.h>

#include "atomics.h"

struct context;
struct registry;

/* The number of fork()s between the process that loaded ftpool and this. */
uintptr_t ftpool__fork_generation(void);

/* Marks c as held by the calling thread. */
void ftpool__fork_stamp(struct context *c);

/* Marks c as held by no thread, before it is released. */
void ftpool__fork_unstamp(struct context *c);

/* True once per fork for the caller that must recover the pool whose
 * generation word this is; the word starts at ftpool__fork_generation(). */
bool ftpool__fork_recovery_due(atomic_word *pool_generation);

/* Abandons or quarantines every context whose holder did not survive the
 * fork. */
void ftpool__fork_recover(struct registry *registry);

#endif /* FTPOOL_FORK_H */
