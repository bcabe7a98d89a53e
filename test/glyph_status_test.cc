// SPDX-License-Identifier: MIT
// The glyph cache's refusals, on both backends: every bad input fails with
// its status, leaves the glyph (advance) NULL (0), counts no lookup and
// caches nothing. A size the user set on the acquired face fails a miss
// with FTPOOL_ERR_SIZE_CHANGED and caches nothing at that size: the
// next acquire's lookup renders FreeType's glyph at the font's size.
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/fonts.h"
#include "test/support/glyph_pool.h"
#include "test/support/glyph_reference.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

constexpr FT_UInt kPixels = 24;

class GlyphStatusTest : public GlyphPoolTest {
protected:
  void SetUp() override {
    MakePool();
    font_ = Font(kSans, kPixels);
    ASSERT_NE(font_, nullptr);
    index_ = reference_.Index('g');
  }
  // Both lookups of glyph `index` with these flags fail with `status`,
  // reset their output, and leave the counts and the cache as they were.
  void ExpectRefused(ftpool_font *font, FT_Face face, FT_UInt index,
                     FT_Int32 flags, ftpool_status status,
                     bool advance_too = true) {
    const ftpool_stats before = Stats(pool_);
    const ftpool_glyph *glyph = reinterpret_cast<const ftpool_glyph *>(this);
    EXPECT_EQ(ftpool_font_glyph(font, face, index, flags, &glyph), status);
    EXPECT_EQ(glyph, nullptr);
    if (advance_too) {
      FT_Fixed advance = 1;
      EXPECT_EQ(ftpool_font_advance(font, face, index, flags, &advance),
                status);
      EXPECT_EQ(advance, 0);
    }
    const ftpool_stats after = Stats(pool_);
    EXPECT_EQ(after.glyph_hits, before.glyph_hits);
    EXPECT_EQ(after.glyph_misses, before.glyph_misses);
    EXPECT_EQ(after.glyph_entries, before.glyph_entries);
    EXPECT_EQ(after.glyph_bytes_cached, before.glyph_bytes_cached);
  }
  // The glyph at the font's size is FreeType's.
  void ExpectFreeTypes(ftpool_font *font, FT_Face face, FT_UInt index) {
    ReferenceGlyph want;
    ASSERT_TRUE(reference_.Render(index, FT_LOAD_DEFAULT, &want));
    EXPECT_EQ(GlyphDifference(Glyph(font, face, index), want), "");
  }

  ReferenceFace reference_{kSans, 0, kPixels};
  ftpool_font *font_ = nullptr;
  FT_UInt index_ = 0;
};

TEST_P(GlyphStatusTest, NullArgumentsAreInvalid) {
  FT_Face face = Acquire(font_);
  EXPECT_EQ(ftpool_font_glyph(font_, face, index_, 0, nullptr),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_font_advance(font_, face, index_, 0, nullptr),
            FTPOOL_ERR_INVALID_ARGUMENT);
  ExpectRefused(nullptr, face, index_, 0, FTPOOL_ERR_INVALID_ARGUMENT);
  ExpectRefused(font_, nullptr, index_, 0, FTPOOL_ERR_INVALID_ARGUMENT);
  ExpectRefused(nullptr, nullptr, index_, 0, FTPOOL_ERR_INVALID_ARGUMENT);
  GiveBack(font_, face);
  EXPECT_EQ(Stats(pool_).glyph_entries, 0u);
}

TEST_P(GlyphStatusTest, AnIndexPastTheLastGlyphIsRefused) {
  FT_Face face = Acquire(font_);
  const FT_UInt glyphs = static_cast<FT_UInt>(face->num_glyphs);
  ExpectRefused(font_, face, glyphs, 0, FTPOOL_ERR_GLYPH_INDEX);
  ExpectRefused(font_, face, glyphs + 1000, 0, FTPOOL_ERR_GLYPH_INDEX);
  ExpectRefused(font_, face, ~0u, 0, FTPOOL_ERR_GLYPH_INDEX);
  ExpectFreeTypes(font_, face, glyphs - 1); // the last one is fine
  GiveBack(font_, face);
}

// Flags that leave no bitmap: refused for glyphs, accepted for advances.
TEST_P(GlyphStatusTest, UncacheableFlagsAreRefusedForGlyphsOnly) {
  FT_Face face = Acquire(font_);
  for (FT_Int32 flags :
       {FT_LOAD_NO_SCALE, FT_LOAD_NO_RECURSE, FT_LOAD_BITMAP_METRICS_ONLY,
        FT_LOAD_NO_SCALE | FT_LOAD_TARGET_MONO}) {
    ExpectRefused(font_, face, index_, flags, FTPOOL_ERR_LOAD_FLAGS, false);
    FT_Fixed advance = 0;
    EXPECT_EQ(ftpool_font_advance(font_, face, index_, flags, &advance),
              FTPOOL_OK);
    EXPECT_EQ(advance, reference_.Advance(index_, flags)) << flags;
  }
  GiveBack(font_, face);
  EXPECT_EQ(Stats(pool_).glyph_misses, 4u); // the advances
}

// A plain face of the pool, and a face the calling thread did not acquire
// from this font: another font's, another thread's, one given back.
TEST_P(GlyphStatusTest, AFaceNotAcquiredFromTheFontIsRefused) {
  FT_Face plain;
  ASSERT_EQ(ftpool_open_file(pool_, kSans, 0, &plain), FTPOOL_OK);
  ExpectRefused(font_, plain, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  ASSERT_EQ(ftpool_close(pool_, plain), FTPOOL_OK);

  ftpool_font *serif = Font(kSerif, kPixels);
  ftpool_font *twin = Font(kSans, kPixels); // the same key, another font
  ASSERT_NE(serif, nullptr);
  ASSERT_NE(twin, nullptr);
  FT_Face face = Acquire(font_);
  ExpectRefused(serif, face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  ExpectRefused(twin, face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  FT_Face serif_face = Acquire(serif);
  FT_Face twin_face = Acquire(twin);
  ExpectRefused(serif, face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  ExpectRefused(font_, serif_face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  ExpectRefused(twin, face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  ExpectRefused(font_, twin_face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  // Held here, not on another thread.
  std::thread([&] {
    ExpectRefused(font_, face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  }).join();
  ExpectFreeTypes(font_, face, index_);
  GiveBack(twin, twin_face);
  GiveBack(serif, serif_face);
  GiveBack(font_, face);
  // Given back: refused, though the face may live on as an idle instance.
  ExpectRefused(font_, face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
  ExpectRefused(font_, face, reference_.Index('H'), 0, FTPOOL_ERR_NOT_ACQUIRED);
}

// Acquired twice, the glyphs stay valid until the last give-back.
TEST_P(GlyphStatusTest, ANestedAcquireEndsAtTheLastGiveBack) {
  FT_Face face = Acquire(font_);
  ASSERT_EQ(Acquire(font_), face);
  const ftpool_glyph *glyph = Glyph(font_, face, index_);
  GiveBack(font_, face);
  ReferenceGlyph want;
  ASSERT_TRUE(reference_.Render(index_, FT_LOAD_DEFAULT, &want));
  EXPECT_EQ(Glyph(font_, face, index_), glyph);
  EXPECT_EQ(GlyphDifference(glyph, want), "");
  GiveBack(font_, face);
  ExpectRefused(font_, face, index_, 0, FTPOOL_ERR_NOT_ACQUIRED);
}

// The user set another size: a miss fails, a hit still gives the cached
// glyph of the font's size, and the next acquire renders at the font's size.
TEST_P(GlyphStatusTest, ASizeSetOnTheFaceFailsAMissAndCachesNothing) {
  FT_Face face = Acquire(font_);
  const FT_UInt cached = reference_.Index('H');
  ExpectFreeTypes(font_, face, cached);
  for (int set_by : {0, 1}) {
    if (set_by == 0)
      ASSERT_EQ(FT_Set_Pixel_Sizes(face, 0, 40), 0);
    else
      ASSERT_EQ(FT_Set_Char_Size(face, 0, 11 << 6, 0, 0), 0);
    ExpectRefused(font_, face, index_, 0, FTPOOL_ERR_SIZE_CHANGED);
    ExpectRefused(font_, face, index_, FT_LOAD_TARGET_MONO,
                  FTPOOL_ERR_SIZE_CHANGED);
    ExpectFreeTypes(font_, face, cached); // a hit
  }
  GiveBack(font_, face);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_entries, 1u);
  EXPECT_EQ(s.glyph_hits, 2u);
  face = Acquire(font_);
  ExpectFreeTypes(font_, face, index_);
  FT_Fixed advance = 0;
  EXPECT_EQ(ftpool_font_advance(font_, face, index_, 0, &advance), FTPOOL_OK);
  EXPECT_EQ(advance, reference_.Advance(index_, 0));
  GiveBack(font_, face);
  s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, 3u);
  EXPECT_EQ(s.glyph_entries, 3u);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphStatusTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
