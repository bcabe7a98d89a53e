// SPDX-License-Identifier: MIT
// The idle byte budget bounds what FreeType really holds for a context's
// font faces, measured with the counting allocator, not with the pool's own
// statistics (issue 20, bug 2). Each mix below once hid a big glyph bitmap
// from the old accounting, which charged an instance the library's net
// change between font events: a free elsewhere (a plain face's bitmap, a
// converted bitmap, one freed by a destructor) cancelled the instance's own
// allocation, or went to another instance (an outer font's bitmap loaded
// while an inner font was acquired), and idle instances held 2.5-2.9 MB
// under a 1 MiB budget.
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"

#include FT_BITMAP_H

namespace ftpool_test {
namespace {

constexpr size_t kBudget = size_t{1} << 20;
constexpr FT_UInt kBig = 700; // a 700 px 'W': ~300 KB of bitmap
constexpr int kFonts = 8;
// What releasing the fonts frees besides their faces (the font and instance
// records, the slot tables, the allocator's block headers): a few KiB a font.
constexpr size_t kSlack = kFonts * (size_t{8} << 10);

enum class Mix {
  kPlainFaceFrees,   // a plain face's big bitmap freed meanwhile
  kLibraryCallFrees, // FT_Bitmap_Done through ftpool_library
  kDestructorFrees,  // the same, in a replaced instance data's destructor
  kOuterFontLoads,   // the bitmap loaded while an inner font is held
};

// A bitmap converted through a library: ~360 KB it allocated.
struct Converted {
  FT_Library library;
  FT_Bitmap bitmap;
  static void Done(void *data) {
    auto *c = static_cast<Converted *>(data);
    FT_Bitmap_Done(c->library, &c->bitmap);
    delete c;
  }
};

Converted *Convert(FT_Library library) {
  static std::vector<unsigned char> pixels(600 * 600, 0x80);
  FT_Bitmap source;
  FT_Bitmap_Init(&source);
  source.rows = source.width = 600;
  source.pitch = 600;
  source.buffer = pixels.data();
  source.pixel_mode = FT_PIXEL_MODE_GRAY;
  source.num_grays = 256;
  auto *c = new Converted{library, {}};
  FT_Bitmap_Init(&c->bitmap);
  EXPECT_EQ(FT_Bitmap_Convert(library, &source, &c->bitmap, 1), 0);
  return c;
}

void Load(FT_Face face, FT_UInt pixels, char c) {
  ASSERT_EQ(FT_Set_Pixel_Sizes(face, 0, pixels), 0);
  ASSERT_EQ(FT_Load_Char(face, c, FT_LOAD_RENDER), 0);
}

class FontBudgetTest : public ::testing::TestWithParam<Mix> {
protected:
  void SetUp() override {
    ftpool_config config;
    ftpool_config_init(&config);
    config.memory = memory_.get();
    config.font_idle_bytes = kBudget;
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
    // Each font on bytes of its own, so each has a face of its own.
    const std::vector<unsigned char> bytes = ReadFile(kSans);
    for (int i = 0; i <= kFonts; i++) {
      ftpool_blob *blob;
      ASSERT_EQ(ftpool_blob_copy(pool_, bytes.data(), bytes.size(), &blob),
                FTPOOL_OK);
      ftpool_font_desc desc;
      ftpool_font_desc_init(&desc);
      desc.blob = blob;
      desc.pixel_height = kBig;
      ftpool_font *font;
      ASSERT_EQ(ftpool_font_create(pool_, &desc, &font), FTPOOL_OK);
      blobs_.push_back(blob);
      fonts_.push_back(font);
    }
    ASSERT_EQ(ftpool_open_file(pool_, kMono, 0, &plain_), FTPOOL_OK);
    ASSERT_EQ(ftpool_library(pool_, &library_), FTPOOL_OK);
  }
  void TearDown() override {
    for (ftpool_blob *blob : blobs_)
      ftpool_blob_release(blob);
    ftpool_destroy(pool_);
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }

  // Renders a big glyph on font i, with the mix's free in the middle (or,
  // for kOuterFontLoads, with the last font acquired inside it).
  void Use(int i) {
    Converted *converted = nullptr;
    switch (GetParam()) {
    case Mix::kPlainFaceFrees:
      Load(plain_, kBig, 'W');
      break;
    case Mix::kLibraryCallFrees:
    case Mix::kDestructorFrees:
      converted = Convert(library_);
      break;
    case Mix::kOuterFontLoads:
      break;
    }
    FT_Face face, inner;
    ASSERT_EQ(ftpool_font_acquire(fonts_[i], &face), FTPOOL_OK);
    if (GetParam() == Mix::kOuterFontLoads) {
      ASSERT_EQ(ftpool_font_acquire(fonts_[kFonts], &inner), FTPOOL_OK);
    }
    Load(face, kBig, 'W');
    switch (GetParam()) {
    case Mix::kPlainFaceFrees:
      Load(plain_, 10, '.');
      break;
    case Mix::kLibraryCallFrees:
      Converted::Done(converted);
      break;
    case Mix::kDestructorFrees:
      ASSERT_EQ(ftpool_font_set_instance_data(fonts_[i], face, converted,
                                              Converted::Done),
                FTPOOL_OK);
      ASSERT_EQ(
          ftpool_font_set_instance_data(fonts_[i], face, nullptr, nullptr),
          FTPOOL_OK);
      break;
    case Mix::kOuterFontLoads:
      ASSERT_EQ(ftpool_font_give_back(fonts_[kFonts], inner), FTPOOL_OK);
      break;
    }
    ASSERT_EQ(ftpool_font_give_back(fonts_[i], face), FTPOOL_OK);
  }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
  std::vector<ftpool_blob *> blobs_;
  std::vector<ftpool_font *> fonts_; // the last is the inner font
  FT_Face plain_ = nullptr;
  FT_Library library_ = nullptr;
};

TEST_P(FontBudgetTest, IdleFontsHoldNoMoreThanTheBudget) {
  for (int i = 0; i < kFonts; i++)
    Use(i);
  // Nothing is acquired: everything the fonts hold is idle. What releasing
  // them frees is what they held.
  const ftpool_stats s = Stats(pool_);
  const long with = memory_.outstanding_bytes();
  for (ftpool_font *font : fonts_)
    ftpool_font_release(font);
  fonts_.clear();
  const long without = memory_.outstanding_bytes();
  const size_t held = static_cast<size_t>(with - without);
  EXPECT_LE(held, kBudget + kSlack)
      << s.font_instances << " instances kept, counted "
      << s.font_instance_bytes << " bytes";
  // The statistics tell the same story, the block headers aside.
  EXPECT_LE(s.font_instance_bytes, kBudget);
  EXPECT_LE(s.font_instance_bytes, held);
  EXPECT_GE(s.font_instance_bytes + kSlack, held);
  // And the budget is used, not just emptied: something was kept.
  EXPECT_GE(s.font_instances, 1u);
  EXPECT_EQ(Stats(pool_).font_instance_bytes, 0u);
}

INSTANTIATE_TEST_SUITE_P(Mixes, FontBudgetTest,
                         ::testing::Values(Mix::kPlainFaceFrees,
                                           Mix::kLibraryCallFrees,
                                           Mix::kDestructorFrees,
                                           Mix::kOuterFontLoads),
                         [](const ::testing::TestParamInfo<Mix> &info) {
                           switch (info.param) {
                           case Mix::kPlainFaceFrees:
                             return "PlainFaceFrees";
                           case Mix::kLibraryCallFrees:
                             return "LibraryCallFrees";
                           case Mix::kDestructorFrees:
                             return "DestructorFrees";
                           case Mix::kOuterFontLoads:
                             return "OuterFontLoads";
                           }
                           return "Unknown";
                         });

} // namespace
} // namespace ftpool_test
