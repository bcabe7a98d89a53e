/* SPDX-License-Identifier: MIT */
/*
 * fork() (lib/fork.c, and the busy bracket of lib/context.h; docs/design.md,
 * "fork()", modelled under SC in docs/fork.pml): what the child handler
 * reads of another thread's memory. Thread 0 is a per-thread pool's life:
 * it builds the pool and its registry and tracks it (ftpool__fork_track),
 * makes a context and publishes it, holds it and edits its library once in
 * a busy bracket (ftpool__context_enter/leave), then destroys the pool as
 * pt_destroy does: untracks it (ftpool__fork_untrack), then frees the
 * context and the pool. Thread 1 is another thread that forks at any point
 * of that; it runs as the child, calling the real child handler (in_child,
 * classify), which marks thread 0's context quarantined or orphaned.
 *
 * Asserted, as fork.pml's NO_QUARANTINE control and design.md require: a
 * context the handler orphans (busy found 0) is never half-edited: the
 * library the child sees has none of the edit or all of it; a child that
 * finds the registry in its slot finds it initialised (a plain store of
 * its initialisation unordered with the child's read is a data race) and
 * none of its memory freed yet.
 *
 * The modelling assumption. GenMC has no fork(). A fork() child sees
 * memory as it was at one instant: every store of the forking thread
 * (fork() is a full barrier in it) and, of each other thread, the stores
 * that had reached memory by then. Where stores reach memory out of
 * program order (ARM, POWER) that set is not a prefix of the thread's
 * program, but it is closed under its barriers: a store before a release
 * fence, or before a release store, reached memory before any store after
 * the fence, or before the release store (atomics.h, fence_release). That
 * is assumed, and nothing more. In C11 it is what a release gives a thread
 * that reads from a store after it and then runs an acquire fence. So the
 * child is a second thread (thread 1; the survivor, as the handler sees
 * it) that reads relaxed, and latest-written first, what thread 0 writes:
 * the mark of a free, then the library's two words, then the tracked slot,
 * an acquire fence (the fork's barrier) after each; then it runs the real
 * handler; then, after another acquire fence, reads the library again.
 * Its reads are at successive instants while thread 0 runs on, so only
 * what holds of every snapshot consistent with them is asserted: a read
 * that found a store implies that every read after its fence sees the
 * stores ordered before that store. Hence the library is read twice: before
 * the handler's load of busy (a begun edit implies busy was set: enter's
 * fence) and after it (busy found cleared implies the edit done: leave's
 * release). The child's reads are relaxed atomics, and the edit two
 * relaxed stores where FreeType's are plain: the child reads a copy, so
 * there is no race to find there. libc's free writes its list links into
 * the block it frees: the allocator shim's free is a relaxed store of a
 * `freed` mark, and frees nothing (the child's copy cannot fault). In a
 * snapshot with no tracked slot the handler reads 1,024 empty slots and
 * does nothing: the harness skips the call. fork.c's atfork child handler
 * is compiled in (FTPOOL_FORK_HANDLERS, as on POSIX); pthread_atfork is a
 * shim, #defined before fork.c is included, that records it.
 *
 * GenMC options: --disable-estimation
 *
 * Checks: fork.c context.h
 */
#include "test/genmc/harness.h"

#include <stddef.h>
#include <string.h>

/* Shim: pthread_atfork records the child handler, for thread 1 to run. */
static void (*child_handler)(void);
static int harness_atfork(void (*prepare)(void), void (*parent)(void),
                          void (*child)(void)) {
  (void)prepare;
  (void)parent;
  child_handler = child;
  return 0;
}
#define pthread_atfork harness_atfork

#include "lib/context.c"
#include "lib/fork.c"
#include "lib/registry.c"

/* Shims: the glyph reader (glyph_harness.c checks it) and blobs, which a
 * context here has none of. */
void ftpool__glyph_reader_init(struct glyph_reader *r) { (void)r; }
void ftpool__glyph_counts_init(struct glyph_counts *c) { (void)c; }
void ftpool__glyph_reader_forget(struct glyph_reader *r) { (void)r; }
void ftpool__blob_drop(ftpool_blob *b) { assert(!b); }

/* The part of struct per_thread_pool (per_thread.c) fork.c sees. */
struct harness_pool {
  ftpool base;
  struct registry registry;
};

/* Shims: the pool's allocator (memory.c, which GenMC cannot compile):
 * malloc, zeroed as the type allocated; and a free that marks the block
 * freed (as libc's free writes its links into it) and frees nothing. */
_Static_assert(sizeof(struct harness_pool) != sizeof(struct context),
               "the allocator shim tells the types apart by size");
static atomic_word freed;
void *ftpool__memory_alloc(FT_Memory memory, size_t size) {
  (void)memory;
  void *p = malloc(size);
  if (size == sizeof(struct harness_pool))
    ZERO(struct harness_pool, p);
  else if (size == sizeof(struct context))
    ZERO(struct context, p);
  else
    assert(0);
  return p;
}
void ftpool__memory_free(FT_Memory memory, void *block) {
  (void)memory;
  (void)block;
  word_store_relaxed(&freed, 1);
}

/* The library: an edit writes both words; relaxed, as the child reads a
 * copy (see above). Half-edited: one written and not the other. */
static struct { atomic_word begun, done; } library;

static void *thread(void *arg) {
  if ((intptr_t)arg == 0) {
    /* ftpool__per_thread_create: the registry, then the slot. */
    struct harness_pool *pool = ftpool__memory_alloc(NULL, sizeof *pool);
    ftpool__registry_init(&pool->registry);
    bool tracked_ok = ftpool__fork_track(&pool->registry);
    assert(tracked_ok);
    /* A thread's first call: its context made, held, published. */
    struct context *c = ftpool__memory_alloc(NULL, sizeof *c);
    ftpool__context_init(c, &pool->base, 0, (FT_Library)(void *)&library);
    ftpool__registry_publish(&pool->registry, c);
    /* An edit of the library (FT_Open_Face, say). */
    ftpool__context_enter(c);
    word_store_relaxed(&library.begun, 1);
    word_store_relaxed(&library.done, 1);
    ftpool__context_leave(c);
    /* pt_destroy (per_thread.c, which needs a pthread key: shim), as it
     * orders it: untrack, then free the contexts and the pool. */
    ftpool__fork_untrack(&pool->registry);
    ftpool__memory_free(NULL, c);
    ftpool__memory_free(NULL, pool);
    return NULL;
  }
  /* The forking thread, in the child: what it reads is thread 0's memory
   * at the fork, later stores first (see above). */
  uintptr_t was_freed = word_load_relaxed(&freed);
  atomic_thread_fence(memory_order_acquire);
  uintptr_t done = word_load_relaxed(&library.done);
  uintptr_t begun = word_load_relaxed(&library.begun);
  atomic_thread_fence(memory_order_acquire);
  struct registry *slot = ptr_load_relaxed(&tracked[0]);
  atomic_thread_fence(memory_order_acquire);
  /* Untrack's fence: a tracked registry's memory is not freed yet. */
  assert(!(was_freed && slot));
  if (!slot)
    return NULL;
  child_handler(); /* in_child */
  atomic_thread_fence(memory_order_acquire);
  struct context *c = ftpool__registry_first(slot);
  if (c && word_load_relaxed(&c->orphaned)) {
    /* The handler found busy 0: its edit not begun, or all of it there. */
    uintptr_t done_after = word_load_relaxed(&library.done);
    uintptr_t begun_after = word_load_relaxed(&library.begun);
    assert((!begun && !done) || (begun_after && done_after));
    assert(!word_load_relaxed(&c->quarantined));
    assert(word_load_relaxed(&slot->orphans));
  }
  return NULL;
}

int main(void) {
  if (!child_handler)
    register_fork_handler(); /* the constructor, if GenMC runs none */
  assert(child_handler == in_child);
  harness_run(2, thread);
  return 0;
}
