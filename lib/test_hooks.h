/* SPDX-License-Identifier: MIT */
/*
 * Points where a test may stop a thread to widen a race window. Compiled in
 * only for the test build of the library (FTPOOL_TEST_HOOKS, BUILD's
 * ftpool_with_test_hooks), where the test program defines ftpool__test_hook;
 * in every other build a hook is nothing.
 */
#ifndef FTPOOL_TEST_HOOKS_H
#define FTPOOL_TEST_HOOKS_H

#ifdef __cplusplus
extern "C" {
#endif

enum ftpool_test_hook {
  FTPOOL_HOOK_CLAIMED,     /* a FREE context was just claimed (CAS done) */
  FTPOOL_HOOK_RECOVERING,  /* a fork child's recovery of orphans begins */
  FTPOOL_HOOK_DRAINED_ONE, /* a drain closed one record, maybe of more */
  FTPOOL_HOOK_OFFERED,     /* the file cache just published a fresh blob */
  FTPOOL_HOOK_LOOKED_UP,   /* the file cache read an entry's blob pointer */
  FTPOOL_HOOK_GLYPH_PUBLISHING, /* a glyph is about to be pushed on a chain */
  FTPOOL_HOOK_GLYPH_EVICTING,   /* victims unlinked, not yet retired */
  FTPOOL_HOOK_GLYPH_SCANNED     /* reclamation read the pins, frees next */
};

#ifdef FTPOOL_TEST_HOOKS
void ftpool__test_hook(enum ftpool_test_hook point);
#define FTPOOL_TEST_HOOK(point) ftpool__test_hook(point)
#else
#define FTPOOL_TEST_HOOK(point) ((void)0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* FTPOOL_TEST_HOOKS_H */
