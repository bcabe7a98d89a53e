// SPDX-License-Identifier: MIT
// No glyph lookup waits for another thread's rendering, on either backend:
// an allocator parks one thread inside its miss (the first allocation its
// render makes) while another thread's font of the same file and size hits
// and misses. Before, the shared-mutex backend took one glyph mutex for
// every lookup and rendered misses under it, so a hit there waited for the
// parked thread (1,008 ms behind a 1 s allocator), and with the cache off
// all rendering in the pool was serialised.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

// How long a parked allocation waits to be let go: past it, the thread
// that should have gone on meanwhile was waiting for the parked one.
constexpr auto kParkLimit = std::chrono::seconds(5);

thread_local bool park_next = false;
std::atomic<bool> parked{false}, let_go{false};

void *Alloc(FT_Memory, long size) {
  if (park_next) {
    park_next = false;
    parked = true;
    auto limit = std::chrono::steady_clock::now() + kParkLimit;
    while (!let_go && std::chrono::steady_clock::now() < limit)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    parked = false;
  }
  return malloc((size_t)size);
}
void Free(FT_Memory, void *block) { free(block); }
void *Realloc(FT_Memory, long, long size, void *block) {
  return realloc(block, (size_t)size);
}

FT_MemoryRec_ parking_memory = {nullptr, Alloc, Free, Realloc};

class GlyphWaitTest
    : public ::testing::TestWithParam<std::tuple<ftpool_backend, size_t>> {};

TEST_P(GlyphWaitTest, NoLookupWaitsForAnotherThreadsMiss) {
  const size_t budget = std::get<1>(GetParam());
  ftpool *pool = GlyphPool(std::get<0>(GetParam()), &parking_memory, budget);
  ASSERT_NE(pool, nullptr);
  ftpool_font_desc desc = Desc(kSans, 24);
  ftpool_font *mine = nullptr, *theirs = nullptr;
  ASSERT_EQ(ftpool_font_create(pool, &desc, &mine), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_create(pool, &desc, &theirs), FTPOOL_OK);

  FT_Face face;
  const ftpool_glyph *glyph;
  ASSERT_EQ(ftpool_font_acquire(mine, &face), FTPOOL_OK);
  FT_UInt a = FT_Get_Char_Index(face, 'A'), b = FT_Get_Char_Index(face, 'B'),
          c = FT_Get_Char_Index(face, 'C');
  ASSERT_EQ(ftpool_font_glyph(mine, face, a, FT_LOAD_DEFAULT, &glyph),
            FTPOOL_OK); // cached, when the cache is on
  ASSERT_EQ(ftpool_font_give_back(mine, face), FTPOOL_OK);

  let_go = false;
  std::thread parker([&] {
    FT_Face face;
    const ftpool_glyph *glyph;
    ASSERT_EQ(ftpool_font_acquire(theirs, &face), FTPOOL_OK);
    park_next = true;
    EXPECT_EQ(ftpool_font_glyph(theirs, face, b, FT_LOAD_DEFAULT, &glyph),
              FTPOOL_OK);
    park_next = false;
    EXPECT_EQ(ftpool_font_give_back(theirs, face), FTPOOL_OK);
  });
  ASSERT_TRUE(AwaitThat([] { return parked.load(); }));

  // A hit, then a miss, while the other thread is parked in its render.
  ASSERT_EQ(ftpool_font_acquire(mine, &face), FTPOOL_OK);
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(ftpool_font_glyph(mine, face, a, FT_LOAD_DEFAULT, &glyph),
            FTPOOL_OK);
  bool hit_while_parked = parked;
  EXPECT_EQ(ftpool_font_glyph(mine, face, c, FT_LOAD_DEFAULT, &glyph),
            FTPOOL_OK);
  bool miss_while_parked = parked;
  auto took = std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
  EXPECT_EQ(ftpool_font_give_back(mine, face), FTPOOL_OK);
  let_go = true;
  parker.join();
  EXPECT_TRUE(hit_while_parked)
      << "the lookup of a glyph " << (budget ? "cached" : "rendered anew")
      << " waited for the parked thread's miss (" << took << " ms)";
  EXPECT_TRUE(miss_while_parked)
      << "a miss waited for the parked thread's miss (" << took << " ms)";

  ftpool_font_release(mine);
  ftpool_font_release(theirs);
  ftpool_destroy(pool);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, GlyphWaitTest,
    ::testing::Combine(::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                         FTPOOL_BACKEND_SHARED_MUTEX),
                       ::testing::Values(FTPOOL_DEFAULT_GLYPH_CACHE_BYTES,
                                         size_t{0})),
    [](const ::testing::TestParamInfo<std::tuple<ftpool_backend, size_t>>
           &info) {
      std::string name = std::get<0>(info.param) == FTPOOL_BACKEND_PER_THREAD
                             ? "PerThread"
                             : "SharedMutex";
      return name + (std::get<1>(info.param) ? "Cached" : "CacheOff");
    });

} // namespace
} // namespace ftpool_test
