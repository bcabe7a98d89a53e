// SPDX-License-Identifier: MIT
// The glyph cache across fork(), on both backends.
//  - Another thread holds glyphs (its pin holds what was evicted since) at
//    the fork: the child looks up, renders and evicts, and since the gone
//    thread's pin was cleared, what awaited reclamation is freed by the
//    child's give-back; the parent still waits for that thread.
//  - The forking thread holds a font and glyphs: it keeps them in the
//    child, and its give-back there reclaims what its pin held.
//  - An eviction is half done (the library's test hook parks the evicting
//    thread with its victims unlinked, not yet retired): the fork lands
//    there (on either backend: no lock guards the cache), and the child,
//    whose token is held for ever, still serves hits and renders past the
//    budget, uncached, without crashing or waiting.
// A regression must fail, not hang: every wait has a deadline.
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "lib/test_hooks.h"
#include "test/support/child_process.h"
#include "test/support/fonts.h"
#include "test/support/glyph_pool.h"
#include "test/support/glyph_reference.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

constexpr FT_UInt kPixels = 24;
constexpr size_t kBudget = 8192; // a dozen 24 px glyphs
// A child needs well under a second, even under ThreadSanitizer.
constexpr int kChildSeconds = 20;

// The hook's: a thread that parks at its next eviction, until resumed.
thread_local bool park_at_eviction = false;
std::atomic<bool> parked{false}, resume{false};

class GlyphForkTest : public GlyphPoolTest {
protected:
  void SetUp() override {
    parked = resume = false;
    MakePool(kBudget);
  }
  // The child's check that a lookup succeeds with FreeType's glyph.
  bool Right(ftpool_font *font, FT_Face face, FT_UInt index, FT_Int32 flags) {
    ReferenceGlyph want;
    const ftpool_glyph *glyph;
    return reference_.Render(index, flags, &want) &&
           ftpool_font_glyph(font, face, index, flags, &glyph) == FTPOOL_OK &&
           GlyphDifference(glyph, want).empty();
  }
  // The glyphs of the characters first to last.
  std::vector<FT_UInt> Glyphs(FT_ULong first, FT_ULong last) const {
    std::vector<FT_UInt> indices;
    for (FT_ULong c = first; c <= last; c++)
      indices.push_back(reference_.Index(c));
    return indices;
  }

  ReferenceFace reference_{kSans, 0, kPixels};
};

// The gone thread's pin no longer holds the evicted glyphs in the child.
TEST_P(GlyphForkTest, TheChildReclaimsWhatAGoneThreadsPinHeld) {
  ftpool_font *held = Font(kSans, kPixels);
  ftpool_font *mine = Font(kSans, kPixels); // shared-mutex: another lock
  ASSERT_NE(held, nullptr);
  ASSERT_NE(mine, nullptr);
  std::atomic<bool> got{false}, finish{false};
  std::thread holder([&] {
    FT_Face face = Acquire(held);
    for (FT_UInt index : Glyphs('A', 'D'))
      Glyph(held, face, index);
    got = true;
    Await(finish);
    GiveBack(held, face);
  });
  ASSERT_TRUE(Await(got));
  FT_Face face = Acquire(mine);
  for (FT_UInt index : Glyphs('a', 'z'))
    Glyph(mine, face, index);
  const FT_UInt hot = reference_.Index('Z'); // the newest, and visited
  Glyph(mine, face, hot);
  Glyph(mine, face, hot);
  GiveBack(mine, face);
  const ftpool_stats before = Stats(pool_);
  ASSERT_GT(before.glyph_evictions, 0u);
  ASSERT_GT(before.glyph_bytes_awaiting, 0u) << "nothing held by the pin";

  ChildResult child = RunForked(
      [&]() -> int {
        FT_Face f;
        CHILD_CHECK(ftpool_font_acquire(mine, &f) == FTPOOL_OK);
        CHILD_CHECK(Right(mine, f, hot, FT_LOAD_DEFAULT));
        ftpool_stats s;
        CHILD_CHECK(ftpool_get_stats(pool_, &s) == FTPOOL_OK);
        CHILD_CHECK(s.glyph_hits == before.glyph_hits + 1);
        for (FT_UInt index : Glyphs('a', 'z')) // mono: all misses
          CHILD_CHECK(Right(mine, f, index, FT_LOAD_TARGET_MONO));
        CHILD_CHECK(ftpool_font_give_back(mine, f) == FTPOOL_OK);
        CHILD_CHECK(ftpool_get_stats(pool_, &s) == FTPOOL_OK);
        std::printf("child: %zu evictions (%zu before), %zu bytes awaiting "
                    "(%zu before)\n",
                    s.glyph_evictions, before.glyph_evictions,
                    s.glyph_bytes_awaiting, before.glyph_bytes_awaiting);
        CHILD_CHECK(s.glyph_evictions > before.glyph_evictions);
        CHILD_CHECK(s.glyph_bytes_awaiting == 0);
        CHILD_CHECK(s.glyph_bytes_cached <= kBudget);
        return 0;
      },
      kChildSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  std::printf("%s", child.output.c_str());
  // The parent's holder still pins what was evicted since it pinned.
  EXPECT_GT(Stats(pool_).glyph_bytes_awaiting, 0u);
  finish = true;
  holder.join();
  face = Acquire(mine);
  Glyph(mine, face, hot);
  GiveBack(mine, face);
  EXPECT_EQ(Stats(pool_).glyph_bytes_awaiting, 0u);
}

// The forking thread keeps what it held: its font, the glyphs it got, even
// evicted, and its pin, until it gives the font back in the child, which
// then reclaims them.
TEST_P(GlyphForkTest, TheForkingThreadKeepsItsFontAndGlyphsInTheChild) {
  ftpool_font *font = Font(kSans, kPixels);
  ASSERT_NE(font, nullptr);
  const FT_UInt first = reference_.Index('W');
  ReferenceGlyph want;
  ASSERT_TRUE(reference_.Render(first, FT_LOAD_DEFAULT, &want));
  FT_Face face = Acquire(font);
  const ftpool_glyph *kept = Glyph(font, face, first);
  for (FT_UInt index : Glyphs('a', 'z')) // evict it
    Glyph(font, face, index);
  const ftpool_stats before = Stats(pool_);
  ASSERT_GT(before.glyph_bytes_awaiting, 0u);
  ChildResult child = RunForked(
      [&]() -> int {
        CHILD_CHECK(GlyphDifference(kept, want).empty());
        for (FT_UInt index : Glyphs('A', 'Z'))
          CHILD_CHECK(Right(font, face, index, FT_LOAD_DEFAULT));
        CHILD_CHECK(ftpool_font_give_back(font, face) == FTPOOL_OK);
        ftpool_stats s;
        CHILD_CHECK(ftpool_get_stats(pool_, &s) == FTPOOL_OK);
        std::printf("child: %zu bytes awaiting after the give-back (%zu at "
                    "the fork)\n",
                    s.glyph_bytes_awaiting, before.glyph_bytes_awaiting);
        CHILD_CHECK(s.glyph_bytes_awaiting == 0);
        FT_Face again;
        CHILD_CHECK(ftpool_font_acquire(font, &again) == FTPOOL_OK);
        CHILD_CHECK(Right(font, again, first, FT_LOAD_DEFAULT));
        CHILD_CHECK(ftpool_font_give_back(font, again) == FTPOOL_OK);
        return 0;
      },
      kChildSeconds);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  std::printf("%s", child.output.c_str());
  EXPECT_EQ(GlyphDifference(kept, want), "");
  GiveBack(font, face);
  EXPECT_EQ(Stats(pool_).glyph_bytes_awaiting, 0u);
}

// A fork in the middle of an eviction.
TEST_P(GlyphForkTest, AForkDuringAnEvictionLeavesTheChildWorking) {
  ftpool_font *font = Font(kSans, kPixels);
  ftpool_font *twin = Font(kSans, kPixels); // one key; shared-mutex: a lock
  ASSERT_NE(font, nullptr);
  ASSERT_NE(twin, nullptr);
  // Glyphs looked up twice: marked, so the eviction spares them.
  const std::vector<FT_UInt> hot = Glyphs('0', '2');
  FT_Face face = Acquire(twin);
  for (int round = 0; round < 2; round++)
    for (FT_UInt index : hot)
      Glyph(twin, face, index);
  GiveBack(twin, face);
  // Before the evictor, whose lookups all miss.
  const ftpool_stats before = Stats(pool_);
  std::atomic<bool> finish{false};
  std::thread evictor([&] {
    FT_Face f = Acquire(font);
    park_at_eviction = true;
    for (FT_UInt index : Glyphs('a', 'z')) {
      Glyph(font, f, index);
      if (parked)
        break;
    }
    Await(finish); // allocates nothing until the fork is over
    GiveBack(font, f);
  });
  ASSERT_TRUE(Await(parked)) << "no eviction";
  ChildResult child = RunForked(
      [&]() -> int {
        FT_Face f;
        CHILD_CHECK(ftpool_font_acquire(twin, &f) == FTPOOL_OK);
        for (FT_UInt index : hot)
          CHILD_CHECK(Right(twin, f, index, FT_LOAD_DEFAULT));
        ftpool_stats s;
        CHILD_CHECK(ftpool_get_stats(pool_, &s) == FTPOOL_OK);
        CHILD_CHECK(s.glyph_hits == before.glyph_hits + hot.size());
        for (FT_UInt index : Glyphs('A', 'Z'))
          CHILD_CHECK(Right(twin, f, index, FT_LOAD_DEFAULT));
        CHILD_CHECK(ftpool_font_give_back(twin, f) == FTPOOL_OK);
        CHILD_CHECK(ftpool_get_stats(pool_, &s) == FTPOOL_OK);
        std::printf("child: %zu misses, %zu uncached (%zu before), %zu "
                    "evictions (%zu before), %zu bytes awaiting\n",
                    s.glyph_misses, s.glyph_uncached, before.glyph_uncached,
                    s.glyph_evictions, before.glyph_evictions,
                    s.glyph_bytes_awaiting);
        CHILD_CHECK(s.glyph_bytes_cached <= kBudget);
        // The token is the gone evictor's, for ever.
        CHILD_CHECK(s.glyph_uncached >= before.glyph_uncached + 20);
        CHILD_CHECK(s.glyph_evictions == before.glyph_evictions);
        return 0;
      },
      kChildSeconds);
  resume = true;
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  std::printf("%s", child.output.c_str());
  finish = true;
  evictor.join();
  face = Acquire(twin);
  for (FT_UInt index : hot)
    Glyph(twin, face, index);
  GiveBack(twin, face);
  const ftpool_stats s = Stats(pool_);
  EXPECT_GT(s.glyph_evictions, 0u);
  EXPECT_EQ(s.glyph_bytes_awaiting, 0u);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphForkTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test

// The library calls this at each hook point (lib/test_hooks.h).
extern "C" void ftpool__test_hook(enum ftpool_test_hook point) {
  using namespace ftpool_test;
  if (point == FTPOOL_HOOK_GLYPH_EVICTING && park_at_eviction) {
    park_at_eviction = false;
    parked = true;
    Await(resume);
  }
}
