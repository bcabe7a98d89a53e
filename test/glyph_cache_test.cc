// SPDX-License-Identifier: MIT
// The glyph cache on both backends, one thread at a time: its glyphs and
// advances equal what plain FreeType gives on a private face, byte for
// byte, in every pixel mode; lookups count as hits and misses; fonts share
// entries exactly when their file, face, coordinates and size agree; a
// transform set on the acquired face changes nothing; with the cache off
// every lookup renders and its memory goes at the give-back; under a tiny
// budget the bounds hold and an evicted glyph stays readable until the
// give-back; a thread that exits holding glyphs lets them be reclaimed.
// Every byte the pool allocated is freed by ftpool_destroy (TearDown).
// The bad inputs are glyph_status_test's.
#include <atomic>
#include <cstring>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/fonts.h"
#include "test/support/glyph_pool.h"
#include "test/support/glyph_reference.h"
#include "test/support/pool_test_util.h"
#include "test/support/scratch_dir.h"

namespace ftpool_test {
namespace {

const char kText[] = "Hxg&@W";
constexpr FT_UInt kPixels = 24;

using GlyphCacheTest = GlyphPoolTest;

TEST_P(GlyphCacheTest, GlyphsAreFreeTypesInEveryPixelMode) {
  MakePool();
  ftpool_font *font = Font(kSans, kPixels);
  ASSERT_NE(font, nullptr);
  ReferenceFace reference(kSans, 0, kPixels);
  ASSERT_TRUE(reference.ok());
  struct Mode {
    FT_Int32 flags;
    unsigned char pixel_mode;
  };
  const Mode modes[] = {
      {FT_LOAD_DEFAULT, FT_PIXEL_MODE_GRAY},
      {FT_LOAD_TARGET_MONO, FT_PIXEL_MODE_MONO},
      {FT_LOAD_TARGET_LCD, FT_PIXEL_MODE_LCD},
      {FT_LOAD_TARGET_LCD_V, FT_PIXEL_MODE_LCD_V},
      {FT_LOAD_TARGET_LIGHT, FT_PIXEL_MODE_GRAY},
      {FT_LOAD_NO_HINTING, FT_PIXEL_MODE_GRAY},
  };
  FT_Face face = Acquire(font);
  ASSERT_NE(face, nullptr);
  size_t lookups = 0;
  for (const Mode &mode : modes) {
    for (const char *c = kText; *c; c++) {
      const FT_UInt index = reference.Index(static_cast<unsigned char>(*c));
      ReferenceGlyph want;
      ASSERT_TRUE(reference.Render(index, mode.flags, &want));
      ASSERT_EQ(want.pixel_mode, mode.pixel_mode);
      const ftpool_glyph *miss = Glyph(font, face, index, mode.flags);
      ASSERT_NE(miss, nullptr);
      EXPECT_EQ(GlyphDifference(miss, want), "")
          << "'" << *c << "', flags " << mode.flags;
      EXPECT_NE(miss->bitmap.buffer, nullptr);
      EXPECT_EQ(Glyph(font, face, index, mode.flags), miss);
      lookups++;
    }
  }
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, lookups);
  EXPECT_EQ(s.glyph_hits, lookups);
  EXPECT_EQ(s.glyph_uncached, 0u);
  EXPECT_EQ(s.glyph_entries, lookups);
  EXPECT_EQ(s.glyph_evictions, 0u);
  EXPECT_GT(s.glyph_bytes_cached, lookups * sizeof(ftpool_glyph));
  EXPECT_LE(s.glyph_bytes_cached, FTPOOL_DEFAULT_GLYPH_CACHE_BYTES);
  GiveBack(font, face);
  // The entries outlive the give-back: another acquire hits.
  face = Acquire(font);
  ReferenceGlyph want;
  ASSERT_TRUE(reference.Render(reference.Index('H'), FT_LOAD_DEFAULT, &want));
  EXPECT_EQ(GlyphDifference(Glyph(font, face, reference.Index('H')), want), "");
  GiveBack(font, face);
  EXPECT_EQ(Stats(pool_).glyph_hits, lookups + 1);
}

TEST_P(GlyphCacheTest, ASpaceIsEmptyWithAnAdvance) {
  MakePool();
  ftpool_font *font = Font(kSans, kPixels);
  ASSERT_NE(font, nullptr);
  ReferenceFace reference(kSans, 0, kPixels);
  ReferenceGlyph want;
  ASSERT_TRUE(reference.Render(reference.Index(' '), FT_LOAD_DEFAULT, &want));
  FT_Face face = Acquire(font);
  for (int lookup = 0; lookup < 2; lookup++) {
    const ftpool_glyph *space = Glyph(font, face, reference.Index(' '));
    ASSERT_NE(space, nullptr);
    EXPECT_EQ(space->bitmap.rows, 0u);
    EXPECT_EQ(space->bitmap.buffer, nullptr);
    EXPECT_GT(space->advance.x, 0);
    EXPECT_EQ(GlyphDifference(space, want), "");
  }
  GiveBack(font, face);
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, 1u);
  EXPECT_EQ(s.glyph_hits, 1u);
}

// BGRA with FT_LOAD_COLOR. None of the fonts scripts/setup.sh installs has
// a colour glyph, so DejaVu Sans gets COLR and CPAL tables: 'O' is drawn as
// a red 'O' under a half-transparent blue 'x'.
TEST_P(GlyphCacheTest, AColourGlyphIsFreeTypes) {
  ScratchDir dir;
  const std::string path = dir.File("colour.ttf");
  {
    ReferenceFace plain(kSans, 0, kPixels);
    ASSERT_TRUE(
        WriteBytes(path, WithColourLayers(ReadFile(kSans), plain.Index('O'),
                                          plain.Index('O'), plain.Index('x'))));
  }
  ReferenceFace reference(path.c_str(), 0, kPixels);
  ASSERT_TRUE(reference.ok());
  ASSERT_TRUE(FT_HAS_COLOR(reference.face()));
  MakePool();
  ftpool_font *font = Font(path.c_str(), kPixels);
  ASSERT_NE(font, nullptr);
  FT_Face face = Acquire(font);
  for (FT_ULong c : {'O', 'H'}) { // a colour glyph, and a plain one
    const FT_UInt index = reference.Index(c);
    for (FT_Int32 flags :
         {FT_Int32{FT_LOAD_COLOR}, FT_Int32{FT_LOAD_DEFAULT}}) {
      ReferenceGlyph want;
      ASSERT_TRUE(reference.Render(index, flags, &want));
      EXPECT_EQ(want.pixel_mode, c == 'O' && flags == FT_LOAD_COLOR
                                     ? FT_PIXEL_MODE_BGRA
                                     : FT_PIXEL_MODE_GRAY);
      for (int lookup = 0; lookup < 2; lookup++) // a miss, then a hit
        EXPECT_EQ(GlyphDifference(Glyph(font, face, index, flags), want), "")
            << "'" << char(c) << "', flags " << flags;
    }
  }
  GiveBack(font, face);
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, 4u);
  EXPECT_EQ(s.glyph_hits, 4u);
}

TEST_P(GlyphCacheTest, AdvancesAreFreeTypesAndApartFromGlyphs) {
  MakePool();
  ftpool_font *font = Font(kSans, kPixels);
  ASSERT_NE(font, nullptr);
  ReferenceFace reference(kSans, 0, kPixels);
  const FT_Int32 flags[] = {FT_LOAD_DEFAULT, FT_LOAD_NO_HINTING,
                            FT_LOAD_NO_SCALE, FT_LOAD_VERTICAL_LAYOUT,
                            FT_LOAD_TARGET_LIGHT};
  FT_Face face = Acquire(font);
  size_t lookups = 0;
  for (FT_Int32 f : flags)
    for (const char *c = kText; *c; c++) {
      const FT_UInt index = reference.Index(static_cast<unsigned char>(*c));
      const FT_Fixed want = reference.Advance(index, f);
      ASSERT_NE(want, 0);
      for (int lookup = 0; lookup < 2; lookup++) {
        FT_Fixed advance = 0;
        EXPECT_EQ(ftpool_font_advance(font, face, index, f, &advance),
                  FTPOOL_OK);
        EXPECT_EQ(advance, want) << "'" << *c << "', flags " << f;
      }
      lookups++;
    }
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, lookups);
  EXPECT_EQ(s.glyph_hits, lookups);
  // A rendered glyph is another entry than its advance.
  ReferenceGlyph want;
  ASSERT_TRUE(reference.Render(reference.Index('H'), FT_LOAD_DEFAULT, &want));
  EXPECT_EQ(GlyphDifference(Glyph(font, face, reference.Index('H')), want), "");
  s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, lookups + 1);
  EXPECT_EQ(s.glyph_entries, lookups + 1);
  GiveBack(font, face);
}

// Fonts of one file, face and size share entries, whatever their charmap:
// the second font's first lookup is a hit, of the same glyph.
TEST_P(GlyphCacheTest, FontsOfOneFileAndSizeShareEntries) {
  MakePool();
  ftpool_font *first = Font(kSans, kPixels);
  ftpool_font_desc desc = Desc(kSans, kPixels);
  desc.encoding = FT_ENCODING_APPLE_ROMAN;
  ftpool_font *second = nullptr;
  ASSERT_EQ(ftpool_font_create(pool_, &desc, &second), FTPOOL_OK);
  fonts_.push_back(second);
  ASSERT_NE(first, nullptr);
  const FT_UInt index = ReferenceFace(kSans, 0, kPixels).Index('g');
  FT_Face face = Acquire(first);
  const ftpool_glyph *glyph = Glyph(first, face, index);
  GiveBack(first, face);
  face = Acquire(second);
  EXPECT_EQ(Glyph(second, face, index), glyph);
  GiveBack(second, face);
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, 1u);
  EXPECT_EQ(s.glyph_hits, 1u);
  EXPECT_EQ(s.glyph_entries, 1u);
}

// Another size, other coordinates of a variable font, another face of a
// collection: each a miss of its own, each FreeType's glyph.
TEST_P(GlyphCacheTest, OtherSizesCoordinatesAndFacesDoNotShare) {
  ASSERT_FONT_PRESENT(kVariable);
  ASSERT_FONT_PRESENT(kCjk);
  MakePool();
  struct Variant {
    const char *path;
    FT_Long face_index;
    FT_UInt pixels;
    std::vector<FT_Fixed> coords;
    FT_ULong charcode;
  };
  const std::vector<Variant> groups[] = {
      {{kSans, 0, 12, {}, 'g'}, {kSans, 0, 24, {}, 'g'}},
      {{kVariable, 0, 24, {300 << 16}, 'g'},
       {kVariable, 0, 24, {800 << 16}, 'g'},
       {kVariable, 0, 24, {}, 'g'}},
      {{kCjk, 0, 24, {}, 0x6F22}, {kCjk, 1, 24, {}, 0x6F22}},
  };
  size_t misses = 0;
  for (const std::vector<Variant> &group : groups) {
    const FT_UInt index =
        ReferenceFace(group[0].path, 0, 24).Index(group[0].charcode);
    ASSERT_NE(index, 0u);
    for (const Variant &v : group) {
      ftpool_font *font = Font(v.path, v.pixels, v.coords, v.face_index);
      ASSERT_NE(font, nullptr);
      ReferenceFace reference(v.path, v.face_index, v.pixels, v.coords);
      ReferenceGlyph want;
      ASSERT_TRUE(reference.Render(index, FT_LOAD_DEFAULT, &want));
      FT_Face face = Acquire(font);
      EXPECT_EQ(GlyphDifference(Glyph(font, face, index), want), "")
          << v.path << " face " << v.face_index << ", " << v.pixels << " px";
      GiveBack(font, face);
      misses++;
      const ftpool_stats s = Stats(pool_);
      EXPECT_EQ(s.glyph_misses, misses) << v.path << " shared an entry";
      EXPECT_EQ(s.glyph_hits, 0u);
    }
  }
}

// The cache renders, and loads advances, with no transform, whatever the
// user set on the face.
TEST_P(GlyphCacheTest, ATransformOnTheFaceChangesNoGlyph) {
  MakePool();
  ftpool_font *font = Font(kSans, kPixels);
  ASSERT_NE(font, nullptr);
  ReferenceFace reference(kSans, 0, kPixels);
  FT_Matrix stretch = {0x18000, 0x6000, 0, 0x10000}; // wider, slanted
  FT_Vector delta = {640, -320};
  for (int round = 0; round < 2; round++) { // misses, then hits
    FT_Face face = Acquire(font);
    FT_Set_Transform(face, &stretch, &delta);
    for (const char *c = kText; *c; c++) {
      const FT_UInt index = reference.Index(static_cast<unsigned char>(*c));
      ReferenceGlyph want;
      ASSERT_TRUE(reference.Render(index, FT_LOAD_DEFAULT, &want));
      EXPECT_EQ(GlyphDifference(Glyph(font, face, index), want), "")
          << "'" << *c << "', round " << round;
      FT_Fixed advance = 0; // FT_Get_Advance loads hinted advances
      EXPECT_EQ(ftpool_font_advance(font, face, index, 0, &advance), FTPOOL_OK);
      EXPECT_EQ(advance, reference.Advance(index, 0)) << "'" << *c << "'";
    }
    // The transform is in effect on the face itself.
    ReferenceGlyph plain;
    ASSERT_TRUE(reference.Render(reference.Index('H'), 0, &plain));
    ASSERT_EQ(FT_Load_Char(face, 'H', FT_LOAD_RENDER), 0);
    EXPECT_NE(face->glyph->bitmap.width, plain.width);
    GiveBack(font, face);
  }
  EXPECT_EQ(Stats(pool_).glyph_hits, 2 * std::strlen(kText));
}

// glyph_cache_bytes = 0: every glyph renders once per acquire, nothing is
// kept in the cache, and what the lookups allocated is freed at the
// give-back.
TEST_P(GlyphCacheTest, WithTheCacheOffEveryLookupRendersAndIsFreed) {
  MakePool(0);
  ftpool_font *font = Font(kSans, kPixels);
  ASSERT_NE(font, nullptr);
  ReferenceFace reference(kSans, 0, kPixels);
  const FT_UInt last = reference.Index('W');
  // FreeType's loader grows its buffers to the biggest glyph loaded, and
  // the glyph slot keeps the last bitmap: a first pass over the same glyphs
  // ending on the same one leaves them as the measured pass will.
  FT_Face face = Acquire(font);
  for (const char *c = kText; *c; c++)
    Glyph(font, face, reference.Index(static_cast<unsigned char>(*c)));
  Glyph(font, face, last);
  GiveBack(font, face);
  // Uncached, a glyph is rendered once per acquire: its repeats under the
  // same acquire are hits on the acquire's own.
  std::set<FT_UInt> distinct{last};
  for (const char *c = kText; *c; c++)
    distinct.insert(reference.Index(static_cast<unsigned char>(*c)));
  const long before = memory_.outstanding_bytes();
  face = Acquire(font);
  size_t lookups = 0, bitmaps = 0;
  for (int round = 0; round < 2; round++)
    for (const char *c = kText; *c; c++) {
      const FT_UInt index = reference.Index(static_cast<unsigned char>(*c));
      ReferenceGlyph want;
      ASSERT_TRUE(reference.Render(index, FT_LOAD_DEFAULT, &want));
      EXPECT_EQ(GlyphDifference(Glyph(font, face, index), want), "");
      lookups++;
      if (round == 0 && std::strchr(kText, *c) == c) // its first
        bitmaps += want.bytes.size();
    }
  Glyph(font, face, last);
  lookups++;
  EXPECT_GE(memory_.outstanding_bytes(), before + long(bitmaps));
  GiveBack(font, face);
  EXPECT_EQ(memory_.outstanding_bytes(), before);
  const ftpool_stats s = Stats(pool_);
  const size_t warm_up = std::strlen(kText) + 1;
  EXPECT_EQ(s.glyph_misses, 2 * distinct.size()); // once per acquire
  EXPECT_EQ(s.glyph_uncached, 2 * distinct.size());
  EXPECT_EQ(s.glyph_hits, warm_up + lookups - 2 * distinct.size());
  EXPECT_EQ(s.glyph_entries, 0u);
  EXPECT_EQ(s.glyph_bytes_cached, 0u);
  EXPECT_EQ(s.glyph_bytes_awaiting, 0u);
}

constexpr size_t kTinyBudget = 4096; // a handful of 24 px glyphs

// The glyphs of the characters U+0021 to U+024F, as the font has them.
std::vector<FT_UInt> ManyGlyphs(const ReferenceFace &reference) {
  std::vector<FT_UInt> indices;
  for (FT_ULong c = 0x21; c < 0x250; c++) {
    const FT_UInt index = reference.Index(c);
    if (index && (indices.empty() || indices.back() != index))
      indices.push_back(index);
  }
  return indices;
}

// A glyph evicted by its own thread's later misses stays readable, and
// equal to FreeType's, until that thread gives the font back; cached and
// awaiting bytes stay within the budget throughout.
TEST_P(GlyphCacheTest, UnderATinyBudgetAnEvictedGlyphStaysValid) {
  MakePool(kTinyBudget);
  ftpool_font *font = Font(kSans, kPixels);
  ASSERT_NE(font, nullptr);
  ReferenceFace reference(kSans, 0, kPixels);
  const FT_UInt first = reference.Index('W');
  ReferenceGlyph want;
  ASSERT_TRUE(reference.Render(first, FT_LOAD_DEFAULT, &want));
  FT_Face face = Acquire(font);
  const ftpool_glyph *kept = Glyph(font, face, first);
  ASSERT_EQ(GlyphDifference(kept, want), "");
  for (FT_UInt index : ManyGlyphs(reference)) {
    if (index == first)
      continue;
    ReferenceGlyph other;
    ASSERT_TRUE(reference.Render(index, FT_LOAD_DEFAULT, &other));
    EXPECT_EQ(GlyphDifference(Glyph(font, face, index), other), "");
    const ftpool_stats s = Stats(pool_);
    ASSERT_LE(s.glyph_bytes_cached, kTinyBudget);
    ASSERT_LE(s.glyph_bytes_awaiting, kTinyBudget);
  }
  ftpool_stats s = Stats(pool_);
  EXPECT_GT(s.glyph_evictions, 0u);
  EXPECT_GT(s.glyph_bytes_awaiting, 0u); // this thread may still read them
  EXPECT_GT(s.glyph_uncached, 0u);       // once they filled the budget
  // The first glyph was the first victim (the oldest, never hit): looking
  // it up again misses, and the old copy is still readable.
  const size_t misses = s.glyph_misses;
  EXPECT_NE(Glyph(font, face, first), kept);
  EXPECT_EQ(Stats(pool_).glyph_misses, misses + 1);
  EXPECT_EQ(GlyphDifference(kept, want), "");
  GiveBack(font, face);
  s = Stats(pool_);
  EXPECT_EQ(s.glyph_bytes_awaiting, 0u); // reclaimed at the give-back
  EXPECT_LE(s.glyph_bytes_cached, kTinyBudget);
  EXPECT_GT(s.glyph_entries, 0u);
}

// A thread holds a font and glyphs that another thread's misses evict:
// they await its pin, past the other's give-back. It exits with the font
// still acquired; its exit gives it back, and the next lookup and
// give-back find nothing awaiting.
TEST_P(GlyphCacheTest, AThreadThatExitsHoldingGlyphsLetsThemBeReclaimed) {
  MakePool(kTinyBudget);
  ftpool_font *held = Font(kSans, kPixels);
  ftpool_font *other = Font(kSans, kPixels + 1); // another key, another lock
  ASSERT_NE(held, nullptr);
  ASSERT_NE(other, nullptr);
  ReferenceFace reference(kSans, 0, kPixels);
  const std::vector<FT_UInt> indices = ManyGlyphs(reference);
  std::atomic<bool> got{false}, leave{false};
  std::thread holder([&] {
    FT_Face face = Acquire(held);
    for (size_t i = 0; i < 4; i++)
      Glyph(held, face, indices[i]);
    got = true;
    while (!leave)
      std::this_thread::yield();
  }); // exits with the font acquired
  while (!got)
    std::this_thread::yield();
  FT_Face face = Acquire(other);
  for (FT_UInt index : indices)
    Glyph(other, face, index);
  GiveBack(other, face);
  ftpool_stats s = Stats(pool_);
  EXPECT_GT(s.glyph_evictions, 0u);
  EXPECT_GT(s.glyph_bytes_awaiting, 0u) << "nothing held by the holder's pin";
  leave = true;
  holder.join();
  face = Acquire(other);
  Glyph(other, face, indices.back());
  GiveBack(other, face);
  s = Stats(pool_);
  EXPECT_EQ(s.glyph_bytes_awaiting, 0u);
  EXPECT_LE(s.glyph_bytes_cached, kTinyBudget);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphCacheTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
