// SPDX-License-Identifier: MIT
// Colour glyphs and the glyph cache, on both backends, with a copy of
// DejaVu Sans whose 'O' has COLR layers in two CPAL palettes and one layer
// in the foreground colour. A palette or foreground colour a user selects
// on an acquired face never reaches the cache (the issue: another thread's
// font of the same file and size was given those colours); fonts made with
// a palette or a foreground colour render as FreeType does with them
// selected, on their own loads and through the cache, alive at once,
// acquired in turn on one thread and across threads on shared faces; their
// glyphs without FT_LOAD_COLOR are shared, their colour glyphs are not; a
// palette the font lacks is refused at creation.
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

#include FT_COLOR_H

namespace ftpool_test {
namespace {

constexpr FT_UInt kPixels = 24;
// FT_Color is blue, green, red, alpha.
constexpr FT_Color kOrange = {0x20, 0x80, 0xE0, 0xFF};
constexpr FT_Color kBlack = {0, 0, 0, 0xFF}; // FreeType's default here

// FreeType's rendering of glyph index on a fresh face of path with the
// palette and foreground colour (nullptr: none) selected.
ReferenceGlyph Want(const std::string &path, FT_UInt index, FT_UShort palette,
                    const FT_Color *foreground,
                    FT_Int32 flags = FT_LOAD_COLOR) {
  ReferenceFace face(path.c_str(), 0, kPixels);
  ReferenceGlyph want;
  EXPECT_TRUE(face.ok());
  EXPECT_EQ(FT_Palette_Select(face.face(), palette, nullptr), 0);
  if (foreground) {
    EXPECT_EQ(FT_Palette_Set_Foreground_Color(face.face(), *foreground), 0);
  }
  EXPECT_TRUE(face.Render(index, flags, &want));
  return want;
}

// What the acquired face's own load renders, read in place.
ftpool_glyph OwnLoad(FT_Face face, FT_UInt index) {
  ftpool_glyph g{};
  if (FT_Load_Glyph(face, index, FT_LOAD_COLOR | FT_LOAD_RENDER))
    return g;
  const FT_GlyphSlot slot = face->glyph;
  g.bitmap = slot->bitmap;
  g.left = slot->bitmap_left;
  g.top = slot->bitmap_top;
  g.advance = slot->advance;
  g.lsb_delta = slot->lsb_delta;
  g.rsb_delta = slot->rsb_delta;
  g.metrics = slot->metrics;
  return g;
}

class GlyphColourTest : public GlyphPoolTest {
protected:
  void SetUp() override {
    ReferenceFace plain(kSans, 0, kPixels);
    ASSERT_TRUE(plain.ok());
    o_ = plain.Index('O');
    h_ = plain.Index('H');
    // 'O' is a red 'O' under a half-transparent blue 'x' (palette 1: green
    // and yellow) under an 'I' in the foreground colour.
    ASSERT_TRUE(WriteBytes(
        path_,
        WithColourTables(
            ReadFile(kSans), o_,
            {{o_, 0}, {plain.Index('x'), 1}, {plain.Index('I'), kForeground}},
            {{0x0000FFFF, 0xFF000080}, {0x00FF00FF, 0x00FFFF80}})));
    default_ = Want(path_, o_, 0, nullptr);
    ASSERT_EQ(default_.pixel_mode, FT_PIXEL_MODE_BGRA);
    palette1_ = Want(path_, o_, 1, nullptr);
    orange_ = Want(path_, o_, 0, &kOrange);
    both_ = Want(path_, o_, 1, &kOrange);
    // Each colour draws other pixels: a glyph in the wrong one shows.
    ASSERT_NE(GlyphDifference(Glyph(default_), palette1_), "");
    ASSERT_NE(GlyphDifference(Glyph(default_), orange_), "");
    ASSERT_NE(GlyphDifference(Glyph(palette1_), both_), "");
    MakePool();
  }
  // A reference glyph as the cache would hold it, to compare references.
  static ftpool_glyph Glyph(const ReferenceGlyph &r) {
    ftpool_glyph g{};
    g.bitmap.rows = r.rows;
    g.bitmap.width = r.width;
    g.bitmap.pitch = r.pitch;
    g.bitmap.pixel_mode = r.pixel_mode;
    g.bitmap.num_grays = r.num_grays;
    g.bitmap.buffer = const_cast<unsigned char *>(r.bytes.data());
    g.left = r.left;
    g.top = r.top;
    g.advance = r.advance;
    g.lsb_delta = r.lsb_delta;
    g.rsb_delta = r.rsb_delta;
    g.metrics = r.metrics;
    return g;
  }
  using GlyphPoolTest::Glyph;
  std::string GlyphDifference(const ftpool_glyph &g, const ReferenceGlyph &r) {
    return ftpool_test::GlyphDifference(&g, r);
  }
  std::string GlyphDifference(const ftpool_glyph *g, const ReferenceGlyph &r) {
    return ftpool_test::GlyphDifference(g, r);
  }
  ftpool_status Create(const char *path, FT_UShort palette,
                       const FT_Color *foreground, ftpool_font **font) {
    ftpool_font_desc desc = Desc(path, kPixels);
    desc.palette_index = palette;
    desc.foreground_color = foreground;
    ftpool_status status = ftpool_font_create(pool_, &desc, font);
    if (*font)
      fonts_.push_back(*font);
    return status;
  }
  ftpool_font *ColourFont(FT_UShort palette, const FT_Color *foreground) {
    ftpool_font *font = nullptr;
    EXPECT_EQ(Create(path_.c_str(), palette, foreground, &font), FTPOOL_OK);
    return font;
  }
  // The font's 'O' by the face's own load, before a miss could select the
  // colours, and through the cache.
  void ExpectColours(ftpool_font *font, const ReferenceGlyph &want,
                     const char *what) {
    FT_Face face = Acquire(font);
    ASSERT_NE(face, nullptr);
    EXPECT_EQ(GlyphDifference(OwnLoad(face, o_), want), "")
        << what << ", the face's own load";
    EXPECT_EQ(GlyphDifference(Glyph(font, face, o_, FT_LOAD_COLOR), want), "")
        << what << ", cached";
    GiveBack(font, face);
  }

  ScratchDir dir_;
  const std::string path_ = dir_.File("colour.ttf");
  FT_UInt o_ = 0, h_ = 0;
  ReferenceGlyph default_, palette1_, orange_, both_;
};

// The issue: thread 1 selects palette 1 and a foreground colour on its
// acquired face, looks the colour glyph up, puts FreeType's defaults back
// and gives the face back; thread 2's font of the same file and size then
// got palette 1's glyph from the cache. Changing colours on an acquired
// face is against the rules now (fonts carry them), but the cache renders
// a colour miss in its font's colours, so neither thread gets the face's.
TEST_P(GlyphColourTest, ColoursSelectedOnAnAcquiredFaceAreNotCached) {
  ftpool_font *font = Font(path_.c_str(), kPixels);
  ASSERT_NE(font, nullptr);
  std::thread([&] {
    FT_Face face = Acquire(font);
    ASSERT_NE(face, nullptr);
    ASSERT_EQ(FT_Palette_Select(face, 1, nullptr), 0);
    ASSERT_EQ(FT_Palette_Set_Foreground_Color(face, kOrange), 0);
    EXPECT_EQ(GlyphDifference(Glyph(font, face, o_, FT_LOAD_COLOR), default_),
              "")
        << "thread 1 got the face's colours, not its font's";
    ASSERT_EQ(FT_Palette_Select(face, 0, nullptr), 0);
    ASSERT_EQ(FT_Palette_Set_Foreground_Color(face, kBlack), 0);
    GiveBack(font, face);
  }).join();
  std::thread([&] {
    ftpool_font *other = Font(path_.c_str(), kPixels);
    ASSERT_NE(other, nullptr);
    FT_Face face = Acquire(other);
    ASSERT_NE(face, nullptr);
    EXPECT_EQ(GlyphDifference(Glyph(other, face, o_, FT_LOAD_COLOR), default_),
              "")
        << "thread 2's font got thread 1's colours from the cache";
    GiveBack(other, face);
  }).join();
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, 1u);
  EXPECT_EQ(s.glyph_hits, 1u);
}

// Fonts with a palette, a foreground colour, both or neither, alive at
// once: FreeType's glyph with those selected, through the cache and on the
// face's own loads, whichever font used the (shared) face before.
TEST_P(GlyphColourTest, FontsRenderInTheirColoursOnSharedFaces) {
  FT_Color orange = kOrange;
  ftpool_font *plain = ColourFont(0, nullptr);
  ftpool_font *palette1 = ColourFont(1, nullptr);
  ftpool_font *fore = ColourFont(0, &orange);
  ftpool_font *both = ColourFont(1, &orange);
  orange = kBlack; // copied at creation
  ASSERT_TRUE(plain && palette1 && fore && both);
  // Per-thread: one face for the four (they differ only in colours).
  EXPECT_EQ(Stats(pool_).font_faces,
            GetParam() == FTPOOL_BACKEND_PER_THREAD ? 1u : 4u);
  struct Case {
    ftpool_font *font;
    const ReferenceGlyph *want;
    const char *what;
  };
  const std::vector<Case> cases = {{plain, &default_, "palette 0"},
                                   {palette1, &palette1_, "palette 1"},
                                   {fore, &orange_, "an orange foreground"},
                                   {both, &both_, "palette 1, orange"}};
  // In turn on this thread, each after every other.
  for (size_t i : {0, 1, 0, 2, 3, 0, 3, 1, 2, 0, 2, 1, 3})
    ExpectColours(cases[i].font, *cases[i].want, cases[i].what);
  // Two at once: the second gets a face of its own.
  FT_Face face = Acquire(plain);
  ExpectColours(palette1, palette1_, "palette 1, while palette 0 is held");
  EXPECT_EQ(GlyphDifference(OwnLoad(face, o_), default_), "");
  GiveBack(plain, face);
  // Across threads, each in its own order: every font in turn, forwards or
  // backwards.
  std::vector<std::thread> threads;
  for (size_t t = 0; t < 4; t++)
    threads.emplace_back([&, t] {
      for (size_t round = 0; round < 25; round++) {
        const Case &c = cases[(t + round * (t % 2 ? 3 : 1)) % cases.size()];
        ExpectColours(c.font, *c.want, c.what);
      }
    });
  for (std::thread &t : threads)
    t.join();
  // One entry per colour: every later lookup hit.
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, 4u);
  EXPECT_EQ(s.glyph_entries, 4u);
}

// Lookups without FT_LOAD_COLOR, advances among them, are shared by fonts
// differing only in colours; lookups with it only by fonts of the same
// colours.
TEST_P(GlyphColourTest, OnlyColourLookupsAreApartByColour) {
  ftpool_font *plain = ColourFont(0, nullptr);
  ftpool_font *twin = ColourFont(0, nullptr);
  ftpool_font *palette1 = ColourFont(1, nullptr);
  ftpool_font *fore = ColourFont(0, &kOrange);
  ASSERT_TRUE(plain && twin && palette1 && fore);
  const ReferenceGlyph gray_o = Want(path_, o_, 0, nullptr, FT_LOAD_DEFAULT);
  const ReferenceGlyph gray_h = Want(path_, h_, 0, nullptr, FT_LOAD_DEFAULT);
  ASSERT_EQ(gray_o.pixel_mode, FT_PIXEL_MODE_GRAY);
  const ReferenceGlyph colour_h = Want(path_, h_, 0, nullptr);
  const ReferenceGlyph *colour_o[] = {&default_, &default_, &palette1_,
                                      &orange_};
  ftpool_font *fonts[] = {plain, twin, palette1, fore};
  FT_Fixed advance = 0;
  for (size_t i = 0; i < 4; i++) {
    FT_Face face = Acquire(fonts[i]);
    EXPECT_EQ(
        GlyphDifference(Glyph(fonts[i], face, o_, FT_LOAD_COLOR), *colour_o[i]),
        "")
        << i;
    EXPECT_EQ(GlyphDifference(Glyph(fonts[i], face, o_), gray_o), "") << i;
    EXPECT_EQ(
        GlyphDifference(Glyph(fonts[i], face, h_, FT_LOAD_COLOR), colour_h), "")
        << i;
    EXPECT_EQ(GlyphDifference(Glyph(fonts[i], face, h_), gray_h), "") << i;
    EXPECT_EQ(ftpool_font_advance(fonts[i], face, o_, 0, &advance), FTPOOL_OK);
    GiveBack(fonts[i], face);
  }
  // Colour 'O' and 'H': 3 colours, 3 entries each; gray 'O' and 'H' and
  // the advance: one each.
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, 3u + 3u + 1u + 1u + 1u);
  EXPECT_EQ(s.glyph_hits, 20u - s.glyph_misses);
  EXPECT_EQ(s.glyph_entries, s.glyph_misses);
}

TEST_P(GlyphColourTest, APaletteTheFontLacksIsRefused) {
  ASSERT_NE(ColourFont(1, nullptr), nullptr); // a face open to share
  const size_t fonts = Stats(pool_).fonts;
  struct Case {
    const char *path;
    FT_UShort palette;
  };
  for (const Case &c : {Case{path_.c_str(), 2}, Case{path_.c_str(), 0xFFFF},
                        Case{kSans, 1}}) { // kSans has no CPAL
    ftpool_font *font = reinterpret_cast<ftpool_font *>(this);
    EXPECT_EQ(Create(c.path, c.palette, nullptr, &font),
              FTPOOL_ERR_INVALID_ARGUMENT)
        << c.path << ", palette " << c.palette;
    EXPECT_EQ(font, nullptr);
  }
  EXPECT_EQ(Stats(pool_).fonts, fonts);
  // A foreground colour is accepted on any font, and changes nothing
  // where no layer is drawn in it.
  ftpool_font *sans = nullptr;
  ASSERT_EQ(Create(kSans, 0, &kOrange, &sans), FTPOOL_OK);
  ReferenceFace reference(kSans, 0, kPixels);
  ReferenceGlyph want;
  ASSERT_TRUE(reference.Render(o_, FT_LOAD_COLOR, &want));
  FT_Face face = Acquire(sans);
  EXPECT_EQ(GlyphDifference(Glyph(sans, face, o_, FT_LOAD_COLOR), want), "");
  GiveBack(sans, face);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphColourTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
