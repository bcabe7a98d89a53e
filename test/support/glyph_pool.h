/* SPDX-License-Identifier: MIT */
// A pool with the counting allocator and a glyph cache budget, and the
// fonts a glyph cache test makes on it, released before the pool is
// destroyed; the tests of the glyph cache share it.
#ifndef FTPOOL_TEST_GLYPH_POOL_H
#define FTPOOL_TEST_GLYPH_POOL_H

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {

class GlyphPoolTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  // Releases the fonts, destroys the pool: every byte must come back.
  void TearDown() override {
    for (ftpool_font *font : fonts_)
      ftpool_font_release(font);
    ftpool_destroy(pool_);
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }
  void MakePool(size_t budget = FTPOOL_DEFAULT_GLYPH_CACHE_BYTES) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    config.memory = memory_.get();
    config.glyph_cache_bytes = budget;
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
  }
  // A font released at the end of the test; nullptr (the test failed) if
  // it could not be made.
  ftpool_font *Font(const char *path, FT_UInt pixels,
                    const std::vector<FT_Fixed> &coords = {},
                    FT_Long face_index = 0) {
    ftpool_font_desc desc = Desc(path, pixels, coords);
    desc.face_index = face_index;
    ftpool_font *font = nullptr;
    EXPECT_EQ(ftpool_font_create(pool_, &desc, &font), FTPOOL_OK) << path;
    if (font)
      fonts_.push_back(font);
    return font;
  }
  FT_Face Acquire(ftpool_font *font) {
    FT_Face face = nullptr;
    EXPECT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
    return face;
  }
  void GiveBack(ftpool_font *font, FT_Face face) {
    EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  }
  // The glyph, or nullptr with the test failed.
  const ftpool_glyph *Glyph(ftpool_font *font, FT_Face face, FT_UInt index,
                            FT_Int32 flags = FT_LOAD_DEFAULT) {
    const ftpool_glyph *glyph = nullptr;
    EXPECT_EQ(ftpool_font_glyph(font, face, index, flags, &glyph), FTPOOL_OK)
        << "glyph " << index << ", flags " << flags;
    return glyph;
  }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
  std::vector<ftpool_font *> fonts_;
};

// Another thread that acquires font and looks its 'A' up, so that its
// reader is pinned once the constructor returns, and holds the font until
// Release() (or the destructor). With the shared-mutex backend the font is
// locked meanwhile: give it a font of its own.
class PinnedReader {
public:
  explicit PinnedReader(ftpool_font *font)
      : thread_([this, font] {
          FT_Face face = nullptr;
          EXPECT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
          const ftpool_glyph *glyph;
          EXPECT_EQ(ftpool_font_glyph(font, face, FT_Get_Char_Index(face, 'A'),
                                      FT_LOAD_DEFAULT, &glyph),
                    FTPOOL_OK);
          pinned_ = true;
          Await(release_);
          EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
        }) {
    EXPECT_TRUE(Await(pinned_)) << "the reader never pinned";
  }
  PinnedReader(const PinnedReader &) = delete;
  PinnedReader &operator=(const PinnedReader &) = delete;
  ~PinnedReader() { Release(); }
  // Gives the font back (unpinning), and waits for the thread.
  void Release() {
    release_ = true;
    if (thread_.joinable())
      thread_.join();
  }

private:
  std::atomic<bool> pinned_{false}, release_{false};
  std::thread thread_;
};

} // namespace ftpool_test

#endif
