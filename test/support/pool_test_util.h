/* SPDX-License-Identifier: MIT */
// Small helpers the pool tests share.
#ifndef FTPOOL_TEST_POOL_TEST_UTIL_H
#define FTPOOL_TEST_POOL_TEST_UTIL_H

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"

namespace ftpool_test {

// Waits for done() to hold, for 10 s at most, and returns it: a test whose
// other thread never gets there fails instead of hanging.
template <typename Done> bool AwaitThat(Done done) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return done();
}

inline bool Await(const std::atomic<bool> &flag) {
  return AwaitThat([&] { return flag.load(); });
}

// A pool of the backend, allocating from memory (NULL: malloc), with a
// glyph cache of budget bytes; nullptr if it cannot be made.
inline ftpool *GlyphPool(ftpool_backend backend, FT_Memory memory,
                         size_t budget) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = backend;
  config.memory = memory;
  config.glyph_cache_bytes = budget;
  ftpool *pool = nullptr;
  return ftpool_create(&config, &pool) == FTPOOL_OK ? pool : nullptr;
}

// The pool's statistics; a failure to get them fails the test.
inline ftpool_stats Stats(ftpool *pool) {
  ftpool_stats s;
  EXPECT_EQ(ftpool_get_stats(pool, &s), FTPOOL_OK);
  return s;
}

// A font of the file at path, pixels high, at design coordinates coords
// (the font's defaults if empty; the vector must outlive the call that
// takes the description).
inline ftpool_font_desc Desc(const char *path, FT_UInt pixels,
                             const std::vector<FT_Fixed> &coords = {}) {
  ftpool_font_desc desc;
  ftpool_font_desc_init(&desc);
  desc.path = path;
  desc.pixel_height = pixels;
  desc.coords = coords.empty() ? nullptr : coords.data();
  desc.num_coords = static_cast<FT_UInt>(coords.size());
  return desc;
}

// Test-name suffixes for suites parametrised by backend.
inline std::string
BackendName(const ::testing::TestParamInfo<ftpool_backend> &info) {
  return info.param == FTPOOL_BACKEND_PER_THREAD ? "PerThread" : "SharedMutex";
}

} // namespace ftpool_test

#endif
