// SPDX-License-Identifier: MIT
// Evicted glyphs are freed once every reader has given its fonts back, even
// when the last reader to unpin finds another thread holding the eviction
// token: that holder frees them when it gives the token back. The library's
// test hook parks the holder right after it read the pins (it saw the
// reader still pinned), the reader unpins meanwhile and cannot take the
// token; without the request the holder serves, the glyphs would await
// reclamation until some later miss. Both backends: the shared-mutex one
// takes no lock around the cache either (its readers are fonts: the two
// threads' fonts are of one file and size).
#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "lib/test_hooks.h"
#include "test/support/fonts.h"
#include "test/support/glyph_pool.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

thread_local bool park_after_scan = false;
std::atomic<bool> parked{false}, resume{false};

class GlyphReclaimTest : public GlyphPoolTest {};

TEST_P(GlyphReclaimTest, AnUnpinDuringAnotherThreadsReclaimIsServed) {
  parked = resume = false; // each backend's run
  MakePool(8192);          // a dozen 24 px glyphs
  // A font each: with the shared-mutex backend a held font is locked.
  ftpool_font *font = Font(kSans, 24), *other = Font(kSans, 24);
  ASSERT_TRUE(font && other);

  // The reader: pinned, until told to give its font back.
  PinnedReader reader(font);

  // The evictor: misses past the budget, then gives back; its unpin takes
  // the token to reclaim, reads the reader's pin, and parks.
  std::thread evictor([&] {
    FT_Face face = Acquire(other);
    for (FT_ULong c = 'a'; c <= 'z'; c++)
      Glyph(other, face, FT_Get_Char_Index(face, c));
    park_after_scan = true;
    GiveBack(other, face);
    park_after_scan = false;
  });
  ASSERT_TRUE(Await(parked)) << "the evictor never reclaimed";
  EXPECT_GT(Stats(pool_).glyph_bytes_awaiting, 0u);

  reader.Release(); // its unpin finds the token taken
  resume = true;
  evictor.join();

  ftpool_stats stats = Stats(pool_);
  EXPECT_GT(stats.glyph_evictions, 0u);
  EXPECT_EQ(stats.glyph_bytes_awaiting, 0u)
      << "no reader holds a font, yet evicted glyphs await reclamation";
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphReclaimTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test

extern "C" void ftpool__test_hook(enum ftpool_test_hook point) {
  using namespace ftpool_test;
  if (point == FTPOOL_HOOK_GLYPH_SCANNED && park_after_scan) {
    park_after_scan = false;
    parked = true;
    Await(resume);
  }
}
