// SPDX-License-Identifier: MIT
// ftpool.hpp built with -fno-exceptions: the try_ functions alone.
#include <gtest/gtest.h>

#include "ftpool.hpp"

namespace {

const char kSans[] = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

TEST(NoExceptionsTest, TryFunctionsReportStatuses) {
  ftpool_cpp::Pool pool;
  ASSERT_EQ(ftpool_cpp::Pool::try_create(nullptr, pool), FTPOOL_OK);
  ftpool_cpp::Face face;
  EXPECT_EQ(pool.try_open_file("/nonexistent/font.ttf", 0, face),
            FTPOOL_ERR_CANNOT_OPEN);
  ASSERT_EQ(pool.try_open_file(kSans, 0, face), FTPOOL_OK);
  EXPECT_STREQ(face->family_name, "DejaVu Sans");
  EXPECT_EQ(face.reset(), FTPOOL_OK);
  EXPECT_EQ(pool.stats().faces_open, 0u);
}

int destroyed = 0;
void Destroy(void *) { destroyed++; }

TEST(NoExceptionsTest, FontsThroughTryFunctions) {
  ftpool_cpp::Pool pool;
  ASSERT_EQ(ftpool_cpp::Pool::try_create(nullptr, pool), FTPOOL_OK);
  ftpool_cpp::Font font;
  EXPECT_EQ(pool.try_font(ftpool_cpp::FontDesc().file(kSans), font),
            FTPOOL_ERR_INVALID_ARGUMENT); // no size
  ASSERT_EQ(
      pool.try_font(ftpool_cpp::FontDesc().file(kSans).pixel_size(16), font),
      FTPOOL_OK);
  {
    ftpool_cpp::FontFace face;
    ASSERT_EQ(font.try_acquire(face), FTPOOL_OK);
    EXPECT_EQ(face->size->metrics.y_ppem, 16);
    EXPECT_EQ(face.try_set_data(&destroyed, Destroy), FTPOOL_OK);
    EXPECT_EQ(face.data(), &destroyed);
    EXPECT_EQ(face.give_back(), FTPOOL_OK);
  }
  font.reset();
  EXPECT_EQ(destroyed, 1);
  EXPECT_EQ(pool.stats().fonts, 0u);
}

TEST(NoExceptionsTest, GlyphCacheThroughTryFunctions) {
  ftpool_cpp::Pool pool;
  ASSERT_EQ(ftpool_cpp::Pool::try_create(nullptr, pool), FTPOOL_OK);
  ftpool_cpp::Font font;
  ASSERT_EQ(
      pool.try_font(ftpool_cpp::FontDesc().file(kSans).pixel_size(16), font),
      FTPOOL_OK);
  ftpool_cpp::FontFace face;
  ASSERT_EQ(font.try_acquire(face), FTPOOL_OK);
  const FT_UInt a = FT_Get_Char_Index(face.get(), 'A');
  const ftpool_glyph *glyph = nullptr, *again = nullptr;
  ASSERT_EQ(face.try_glyph(a, FT_LOAD_DEFAULT, glyph), FTPOOL_OK);
  ASSERT_NE(glyph, nullptr);
  EXPECT_GT(glyph->bitmap.rows, 0u);
  EXPECT_EQ(face.try_glyph(a, FT_LOAD_DEFAULT, again), FTPOOL_OK);
  EXPECT_EQ(again, glyph); // a hit
  EXPECT_EQ(face.try_glyph(a, FT_LOAD_NO_SCALE, again), FTPOOL_ERR_LOAD_FLAGS);
  EXPECT_EQ(again, glyph); // unchanged on failure
  FT_Fixed advance = 0;
  EXPECT_EQ(face.try_advance(a, FT_LOAD_DEFAULT, advance), FTPOOL_OK);
  EXPECT_EQ(advance, glyph->advance.x << 10); // hinted: the slot's, 16.16
  EXPECT_EQ(face.try_advance(static_cast<FT_UInt>(face->num_glyphs),
                             FT_LOAD_DEFAULT, advance),
            FTPOOL_ERR_GLYPH_INDEX);
  EXPECT_EQ(face.give_back(), FTPOOL_OK);
  const ftpool_stats stats = pool.stats();
  EXPECT_EQ(stats.glyph_misses, 2u);
  EXPECT_EQ(stats.glyph_hits, 1u);
}

} // namespace
