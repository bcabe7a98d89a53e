/* SPDX-License-Identifier: MIT */
/*
 * The only place that touches <stdatomic.h>. Each wrapper names its memory
 * order, so a call site reads as the protocol in docs/design.md; the order a
 * site needs is argued there and at the site, not here.
 */
#ifndef FTPOOL_ATOMICS_H
#define FTPOOL_ATOMICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A machine word: a pointer with state in its low bits. */
typedef struct {
  _Atomic(uintptr_t) v;
} atomic_word;

/* A pointer published once and read by others. */
typedef struct {
  _Atomic(void *) v;
} atomic_ptr;

/* A reference count: its last decrement frees what it counts. */
typedef struct {
  _Atomic(size_t) v;
} atomic_refcount;

/* A statistics counter: exact, but never ordering anything. */
typedef struct {
  _Atomic(size_t) v;
} atomic_counter;

/* 64 bits on every platform: identities that must never wrap, and a tagged
 * index (a count in the high half, so a CAS cannot suffer ABA). */
typedef struct {
  _Atomic(uint64_t) v;
} atomic_u64;

/* Each must be lock-free, or the build fails: a fork() child or a signal
 * handler must never wait on the lock libatomic hides behind a wider atomic
 * (32-bit ARM's 64-bit ones are ldrexd/strexd, for instance, not a lock).
 * C11's macro for the integer type of the same size: uint64_t is unsigned
 * long on 64-bit Linux, unsigned long long on 32-bit and on Windows. */
#define FTPOOL_LOCK_FREE(type)                                                 \
  ((sizeof(type) == sizeof(int)         ? ATOMIC_INT_LOCK_FREE                 \
    : sizeof(type) == sizeof(long)      ? ATOMIC_LONG_LOCK_FREE                \
    : sizeof(type) == sizeof(long long) ? ATOMIC_LLONG_LOCK_FREE               \
                                        : 0) == 2)
_Static_assert(ATOMIC_POINTER_LOCK_FREE == 2 && FTPOOL_LOCK_FREE(uintptr_t) &&
                   FTPOOL_LOCK_FREE(size_t),
               "atomic_word, atomic_ptr, atomic_refcount and atomic_counter "
               "must be lock-free");
_Static_assert(FTPOOL_LOCK_FREE(uint64_t), "atomic_u64 must be lock-free");

static inline void word_init(atomic_word *a, uintptr_t value) {
  atomic_init(&a->v, value);
}

static inline uintptr_t word_load_relaxed(atomic_word *a) {
  return atomic_load_explicit(&a->v, memory_order_relaxed);
}

static inline void word_store_relaxed(atomic_word *a, uintptr_t value) {
  atomic_store_explicit(&a->v, value, memory_order_relaxed);
}

static inline void word_store_release(atomic_word *a, uintptr_t value) {
  atomic_store_explicit(&a->v, value, memory_order_release);
}

/* On failure *expected is reloaded. */
static inline bool word_cas_relaxed(atomic_word *a, uintptr_t *expected,
                                    uintptr_t desired) {
  return atomic_compare_exchange_strong_explicit(
      &a->v, expected, desired, memory_order_relaxed, memory_order_relaxed);
}

static inline uintptr_t word_exchange_relaxed(atomic_word *a, uintptr_t value) {
  return atomic_exchange_explicit(&a->v, value, memory_order_relaxed);
}

static inline uintptr_t word_exchange_acquire(atomic_word *a, uintptr_t value) {
  return atomic_exchange_explicit(&a->v, value, memory_order_acquire);
}

/* On failure *expected is reloaded, relaxed. */
static inline bool word_cas_acquire(atomic_word *a, uintptr_t *expected,
                                    uintptr_t desired) {
  return atomic_compare_exchange_weak_explicit(
      &a->v, expected, desired, memory_order_acquire, memory_order_relaxed);
}

static inline bool word_cas_release(atomic_word *a, uintptr_t *expected,
                                    uintptr_t desired) {
  return atomic_compare_exchange_weak_explicit(
      &a->v, expected, desired, memory_order_release, memory_order_relaxed);
}

static inline void ptr_init(atomic_ptr *a, void *value) {
  atomic_init(&a->v, value);
}

static inline void *ptr_load_relaxed(atomic_ptr *a) {
  return atomic_load_explicit(&a->v, memory_order_relaxed);
}

static inline void ptr_store_relaxed(atomic_ptr *a, void *value) {
  atomic_store_explicit(&a->v, value, memory_order_relaxed);
}

static inline void ptr_store_release(atomic_ptr *a, void *value) {
  atomic_store_explicit(&a->v, value, memory_order_release);
}

static inline void *ptr_load_acquire(atomic_ptr *a) {
  return atomic_load_explicit(&a->v, memory_order_acquire);
}

/* On failure *expected is reloaded, relaxed. */
static inline bool ptr_cas_release(atomic_ptr *a, void **expected,
                                   void *desired) {
  return atomic_compare_exchange_strong_explicit(
      &a->v, expected, desired, memory_order_release, memory_order_relaxed);
}

/* On failure *expected is reloaded with acquire, so a loser may use what the
 * winner published (C11 forbids release-success with acquire-failure). */
static inline bool ptr_cas_acq_rel(atomic_ptr *a, void **expected,
                                   void *desired) {
  return atomic_compare_exchange_strong_explicit(
      &a->v, expected, desired, memory_order_acq_rel, memory_order_acquire);
}

/* On failure *expected is reloaded, relaxed. */
static inline bool ptr_cas_acquire(atomic_ptr *a, void **expected,
                                   void *desired) {
  return atomic_compare_exchange_strong_explicit(
      &a->v, expected, desired, memory_order_acquire, memory_order_relaxed);
}

/* An unlink from a chain's head (glyph_evict.c), which hands nothing over;
 * and test/glyph_stress_test.cc's negative control: a publication with no
 * ordering, which ThreadSanitizer must catch. */
static inline bool ptr_cas_relaxed(atomic_ptr *a, void **expected,
                                   void *desired) {
  return atomic_compare_exchange_strong_explicit(
      &a->v, expected, desired, memory_order_relaxed, memory_order_relaxed);
}

static inline void *ptr_exchange_acquire(atomic_ptr *a, void *value) {
  return atomic_exchange_explicit(&a->v, value, memory_order_acquire);
}

static inline void refcount_init(atomic_refcount *r) { atomic_init(&r->v, 0); }

static inline size_t refcount_load_relaxed(atomic_refcount *r) {
  return atomic_load_explicit(&r->v, memory_order_relaxed);
}

static inline void refcount_store_release(atomic_refcount *r, size_t value) {
  atomic_store_explicit(&r->v, value, memory_order_release);
}

/* For a caller that holds a reference already: nothing to order. */
static inline void refcount_add_relaxed(atomic_refcount *r) {
  atomic_fetch_add_explicit(&r->v, 1, memory_order_relaxed);
}

/* On failure *expected is reloaded, relaxed. */
static inline bool refcount_cas_acquire(atomic_refcount *r, size_t *expected,
                                        size_t desired) {
  return atomic_compare_exchange_weak_explicit(
      &r->v, expected, desired, memory_order_acquire, memory_order_relaxed);
}

/* Returns the count left. */
static inline size_t refcount_sub_acq_rel(atomic_refcount *r) {
  return atomic_fetch_sub_explicit(&r->v, 1, memory_order_acq_rel) - 1;
}

static inline void counter_init(atomic_counter *c) { atomic_init(&c->v, 0); }

static inline size_t counter_load_relaxed(atomic_counter *c) {
  return atomic_load_explicit(&c->v, memory_order_relaxed);
}

/* For a counter with a single writer at a time (the context's holder, whose
 * ownership hand-offs already order its writes): a plain load and store, no
 * read-modify-write, so the owner's hot path stays free of locked
 * instructions. */
static inline void counter_add_single_writer(atomic_counter *c, size_t n) {
  atomic_store_explicit(&c->v, counter_load_relaxed(c) + n,
                        memory_order_relaxed);
}

static inline void counter_sub_single_writer(atomic_counter *c, size_t n) {
  atomic_store_explicit(&c->v, counter_load_relaxed(c) - n,
                        memory_order_relaxed);
}

static inline void counter_bump_single_writer(atomic_counter *c) {
  counter_add_single_writer(c, 1);
}

/* On failure *expected is reloaded. */
static inline bool counter_cas_relaxed(atomic_counter *c, size_t *expected,
                                       size_t desired) {
  return atomic_compare_exchange_weak_explicit(
      &c->v, expected, desired, memory_order_relaxed, memory_order_relaxed);
}

/* For a counter several threads update at once; returns the new value. */
static inline size_t counter_add_relaxed(atomic_counter *c, size_t n) {
  return atomic_fetch_add_explicit(&c->v, n, memory_order_relaxed) + n;
}

static inline void counter_sub_relaxed(atomic_counter *c, size_t n) {
  atomic_fetch_sub_explicit(&c->v, n, memory_order_relaxed);
}

static inline void u64_init(atomic_u64 *a, uint64_t value) {
  atomic_init(&a->v, value);
}

static inline uint64_t u64_load_relaxed(atomic_u64 *a) {
  return atomic_load_explicit(&a->v, memory_order_relaxed);
}

static inline uint64_t u64_load_acquire(atomic_u64 *a) {
  return atomic_load_explicit(&a->v, memory_order_acquire);
}

static inline void u64_store_relaxed(atomic_u64 *a, uint64_t value) {
  atomic_store_explicit(&a->v, value, memory_order_relaxed);
}

static inline void u64_store_release(atomic_u64 *a, uint64_t value) {
  atomic_store_explicit(&a->v, value, memory_order_release);
}

/* Returns the new value. */
static inline uint64_t u64_add_release(atomic_u64 *a, uint64_t n) {
  return atomic_fetch_add_explicit(&a->v, n, memory_order_release) + n;
}

/* Returns the new value. */
static inline uint64_t u64_add_relaxed(atomic_u64 *a, uint64_t n) {
  return atomic_fetch_add_explicit(&a->v, n, memory_order_relaxed) + n;
}

/* On failure *expected is reloaded, with acquire. */
static inline bool u64_cas_acquire(atomic_u64 *a, uint64_t *expected,
                                   uint64_t desired) {
  return atomic_compare_exchange_weak_explicit(
      &a->v, expected, desired, memory_order_acquire, memory_order_acquire);
}

/* On failure *expected is reloaded, relaxed. */
static inline bool u64_cas_release(atomic_u64 *a, uint64_t *expected,
                                   uint64_t desired) {
  return atomic_compare_exchange_weak_explicit(
      &a->v, expected, desired, memory_order_release, memory_order_relaxed);
}

/*
 * Makes every store before it reach memory before any store after it, on
 * every core: a barrier instruction on weakly ordered processors (dmb on
 * ARM, lwsync on POWER), nothing on x86, whose stores reach memory in
 * program order anyway. A fork() child sees the memory another thread had
 * written at that instant, so it needs this to see a prefix of that thread's
 * stores; a signal fence only stops the compiler.
 */
#if defined(__SANITIZE_THREAD__)
#define FTPOOL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FTPOOL_TSAN 1
#endif
#endif
static inline void fence_release(void) {
#ifdef FTPOOL_TSAN
  /* ThreadSanitizer does not model fences, and GCC refuses them under it.
   * This one orders nothing TSan checks (only what a fork child copies),
   * and on x86 it is a compiler barrier anyway. */
  atomic_signal_fence(memory_order_release);
#else
  atomic_thread_fence(memory_order_release);
#endif
}

/*
 * A full barrier: of two threads that each store, fence, then load what the
 * other stored, at least one sees the other's store (a reader's pin and an
 * evictor's unlink, glyph_cache.h). ThreadSanitizer does not model fences,
 * and GCC refuses them under it; there, a read-modify-write of one word
 * every such fence shares orders them, as the fences would.
 */
#ifdef FTPOOL_TSAN
extern atomic_word ftpool__fence_word;
static inline void fence_seq_cst(void) {
  atomic_fetch_add_explicit(&ftpool__fence_word.v, 0, memory_order_seq_cst);
}
#else
static inline void fence_seq_cst(void) {
  atomic_thread_fence(memory_order_seq_cst);
}
#endif

#endif /* FTPOOL_ATOMICS_H */
