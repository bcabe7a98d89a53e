/* SPDX-License-Identifier: MIT */
/*
 * Thread cancellation stays off while ftpool runs user code (callbacks) or
 * reads files: their cancellation points (open, read, close, sleeps, a
 * callback's own) would otherwise unwind a thread out of the middle of the
 * protocol, with a context held or a drain half done. A cancellation that
 * arrives meanwhile takes effect at the thread's next cancellation point
 * after the pool call.
 */
#ifndef FTPOOL_NO_CANCEL_H
#define FTPOOL_NO_CANCEL_H

#include <pthread.h>

static inline int ftpool__cancel_off(void) {
  int old;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
  return old;
}

static inline void ftpool__cancel_restore(int old) {
  pthread_setcancelstate(old, &old);
}

#endif /* FTPOOL_NO_CANCEL_H */
