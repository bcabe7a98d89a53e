/* SPDX-License-Identifier: MIT */
/*
 * What every GenMC harness includes first (scripts/genmc_check.sh): the
 * library's atomics, with the order controls of weaken.h, and threads.
 * A harness then includes the unmodified lib/ sources it checks, and
 * defines, as shims named as such, the functions of the files it leaves
 * out: only what the protocol under check does not depend on.
 *
 * Under GenMC an assert() that fails, a data race on a plain variable, and
 * a read of freed memory are each reported as an error; so a harness keeps
 * the data the protocol hands over in plain variables, and asserts what
 * the matching docs/ *.pml model asserts.
 */
#ifndef FTPOOL_GENMC_HARNESS_H
#define FTPOOL_GENMC_HARNESS_H

#include <assert.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "lib/atomics.h"
#include "test/genmc/weaken.h"

/* GenMC cannot run memset on the heap (ERROR: Invalid call to memset()),
 * and a read of a size other than the write's is an error: a block is
 * zeroed as the type it holds, through a pointer to a member, which GenMC
 * turns into a store of each field. */
#define ZERO(T, p)                                                             \
  do {                                                                         \
    struct wrap {                                                              \
      char pad;                                                                \
      T v;                                                                     \
    };                                                                         \
    memset(&((struct wrap *)((char *)(p)-offsetof(struct wrap, v)))->v, 0,     \
           sizeof(T));                                                         \
  } while (0)

#define HARNESS_THREADS_MAX 8

/* Runs fn(0) .. fn(n - 1) in n threads and joins them. */
static inline void harness_run(int n, void *(*fn)(void *)) {
  pthread_t t[HARNESS_THREADS_MAX];
  assert(n <= HARNESS_THREADS_MAX);
  for (int i = 0; i < n; i++)
    pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i);
  for (int i = 0; i < n; i++)
    pthread_join(t[i], NULL);
}

#endif /* FTPOOL_GENMC_HARNESS_H */
