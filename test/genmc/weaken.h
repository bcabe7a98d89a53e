/* SPDX-License-Identifier: MIT */
/*
 * The order controls of scripts/genmc_check.sh: compiled with
 * -DFTPOOL_WEAKEN='"FILE:LINE OP TO"' (FILE a lib/ file's name), the one
 * call of the wrapper OP at that line of that file takes the next weaker
 * order TO, and every other call its own. A harness includes lib/atomics.h,
 * then this, then the lib/ sources it checks, so those are compiled as
 * they are. Without FTPOOL_WEAKEN it changes nothing.
 *
 * The site is matched at compile time: __FILE_NAME__ and __LINE__ of the
 * call, and the names, are string literals that clang folds, so GenMC
 * explores no branch for it.
 */
#ifndef FTPOOL_GENMC_WEAKEN_H
#define FTPOOL_GENMC_WEAKEN_H

#include "lib/atomics.h"

#ifdef FTPOOL_WEAKEN

#define WEAKEN_STR2(x) #x
#define WEAKEN_STR(x) WEAKEN_STR2(x)
#define WEAK(op, to)                                                           \
  (__builtin_strcmp(__FILE_NAME__ ":" WEAKEN_STR(__LINE__) " " #op " " #to,    \
                    FTPOOL_WEAKEN) == 0)

/* The weaker forms lib/atomics.h has no use for. */
#define WEAK_CAS(a, e, d, ok, fail)                                            \
  atomic_compare_exchange_strong_explicit(&(a)->v, e, d, ok, fail)
static inline void *weak_ptr_exchange_relaxed(atomic_ptr *a, void *v) {
  return atomic_exchange_explicit(&a->v, v, memory_order_relaxed);
}
static inline size_t weak_refcount_sub(atomic_refcount *r, memory_order o) {
  return atomic_fetch_sub_explicit(&r->v, 1, o) - 1;
}
static inline void weak_fence(memory_order o) { atomic_thread_fence(o); }

#define word_store_release(a, v)                                               \
  (WEAK(word_store_release, relaxed) ? word_store_relaxed(a, v)                \
                                     : (word_store_release)(a, v))
#define word_exchange_acquire(a, v)                                            \
  (WEAK(word_exchange_acquire, relaxed) ? word_exchange_relaxed(a, v)          \
                                        : (word_exchange_acquire)(a, v))
#define word_cas_acquire(a, e, d)                                              \
  (WEAK(word_cas_acquire, relaxed) ? word_cas_relaxed(a, e, d)                 \
                                   : (word_cas_acquire)(a, e, d))
#define word_cas_release(a, e, d)                                              \
  (WEAK(word_cas_release, relaxed) ? word_cas_relaxed(a, e, d)                 \
                                   : (word_cas_release)(a, e, d))
#define ptr_store_release(a, v)                                                \
  (WEAK(ptr_store_release, relaxed) ? ptr_store_relaxed(a, v)                  \
                                    : (ptr_store_release)(a, v))
#define ptr_load_acquire(a)                                                    \
  (WEAK(ptr_load_acquire, relaxed) ? ptr_load_relaxed(a)                       \
                                   : (ptr_load_acquire)(a))
#define ptr_cas_release(a, e, d)                                               \
  (WEAK(ptr_cas_release, relaxed) ? ptr_cas_relaxed(a, e, d)                   \
                                  : (ptr_cas_release)(a, e, d))
#define ptr_cas_acq_rel(a, e, d)                                               \
  (WEAK(ptr_cas_acq_rel, release) ? (ptr_cas_release)(a, e, d)                 \
   : WEAK(ptr_cas_acq_rel, acquire)                                            \
       ? WEAK_CAS(a, e, d, memory_order_acquire, memory_order_acquire)         \
       : (ptr_cas_acq_rel)(a, e, d))
#define ptr_cas_acquire(a, e, d)                                               \
  (WEAK(ptr_cas_acquire, relaxed) ? ptr_cas_relaxed(a, e, d)                   \
                                  : (ptr_cas_acquire)(a, e, d))
#define ptr_exchange_acquire(a, v)                                             \
  (WEAK(ptr_exchange_acquire, relaxed) ? weak_ptr_exchange_relaxed(a, v)       \
                                       : (ptr_exchange_acquire)(a, v))
#define refcount_store_release(r, n)                                           \
  (WEAK(refcount_store_release, relaxed)                                       \
       ? atomic_store_explicit(&(r)->v, n, memory_order_relaxed)               \
       : (refcount_store_release)(r, n))
#define refcount_cas_acquire(r, e, d)                                          \
  (WEAK(refcount_cas_acquire, relaxed)                                         \
       ? WEAK_CAS(r, e, d, memory_order_relaxed, memory_order_relaxed)         \
       : (refcount_cas_acquire)(r, e, d))
#define refcount_sub_acq_rel(r)                                                \
  (WEAK(refcount_sub_acq_rel, release)                                         \
       ? weak_refcount_sub(r, memory_order_release)                            \
   : WEAK(refcount_sub_acq_rel, acquire)                                       \
       ? weak_refcount_sub(r, memory_order_acquire)                            \
       : (refcount_sub_acq_rel)(r))
#define u64_load_acquire(a)                                                    \
  (WEAK(u64_load_acquire, relaxed) ? u64_load_relaxed(a)                       \
                                   : (u64_load_acquire)(a))
#define u64_store_release(a, v)                                                \
  (WEAK(u64_store_release, relaxed) ? u64_store_relaxed(a, v)                  \
                                    : (u64_store_release)(a, v))
#define u64_add_release(a, n)                                                  \
  (WEAK(u64_add_release, relaxed) ? u64_add_relaxed(a, n)                      \
                                  : (u64_add_release)(a, n))
#define u64_cas_acquire(a, e, d)                                               \
  (WEAK(u64_cas_acquire, relaxed)                                              \
       ? WEAK_CAS(a, e, d, memory_order_relaxed, memory_order_relaxed)         \
       : (u64_cas_acquire)(a, e, d))
#define u64_cas_release(a, e, d)                                               \
  (WEAK(u64_cas_release, relaxed)                                              \
       ? WEAK_CAS(a, e, d, memory_order_relaxed, memory_order_relaxed)         \
       : (u64_cas_release)(a, e, d))
#define fence_release()                                                        \
  (WEAK(fence_release, none) ? (void)0 : (fence_release)())
#define fence_seq_cst()                                                        \
  (WEAK(fence_seq_cst, acq_rel) ? weak_fence(memory_order_acq_rel)             \
                                : (fence_seq_cst)())

#endif /* FTPOOL_WEAKEN */
#endif /* FTPOOL_GENMC_WEAKEN_H */
