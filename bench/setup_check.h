/* SPDX-License-Identifier: MIT */
// A benchmark whose setup fails stops the run, saying what failed: a
// figure measured on a half-made setup would be a wrong figure.
#ifndef FTPOOL_BENCH_SETUP_CHECK_H
#define FTPOOL_BENCH_SETUP_CHECK_H

#include <cstdio>
#include <cstdlib>

namespace ftpool_bench {

inline void CheckSetup(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "benchmark setup failed: %s\n", what);
    std::abort();
  }
}

} // namespace ftpool_bench

#endif
