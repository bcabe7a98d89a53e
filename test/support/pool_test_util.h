/* SPDX-License-Identifier: MIT */
// Small helpers the pool tests share.
#ifndef FTPOOL_TEST_POOL_TEST_UTIL_H
#define FTPOOL_TEST_POOL_TEST_UTIL_H

#include <string>

#include <gtest/gtest.h>

#include "ftpool.h"

namespace ftpool_test {

// The pool's statistics; a failure to get them fails the test.
inline ftpool_stats Stats(ftpool *pool) {
  ftpool_stats s;
  EXPECT_EQ(ftpool_get_stats(pool, &s), FTPOOL_OK);
  return s;
}

// Test-name suffixes for suites parametrised by backend.
inline std::string
BackendName(const ::testing::TestParamInfo<ftpool_backend> &info) {
  return info.param == FTPOOL_BACKEND_PER_THREAD ? "PerThread" : "SharedMutex";
}

} // namespace ftpool_test

#endif
