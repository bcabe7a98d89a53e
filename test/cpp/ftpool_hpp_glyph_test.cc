// SPDX-License-Identifier: MIT
// The glyph cache through ftpool.hpp (FontFace::glyph, FontFace::advance and
// their try_ twins), on both backends: hits across threads, every status
// thrown and returned, and a glyph's lifetime tied to the acquired face.
#include <atomic>
#include <cstddef>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.hpp"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/glyph_reference.h"

#include FT_ADVANCES_H

namespace {

using ftpool_test::kSans;

// Empty if the cached glyph is what FT_Load_Glyph(flags | FT_LOAD_RENDER)
// leaves in a plain face's slot, bitmap bytes included; else what differs.
std::string FreeTypesDifference(const ftpool_glyph &glyph,
                                const ftpool_test::ReferenceFace &plain,
                                FT_UInt index, FT_Int32 flags) {
  ftpool_test::ReferenceGlyph want;
  if (!plain.Render(index, flags, &want))
    return "FreeType failed to render glyph " + std::to_string(index);
  return ftpool_test::GlyphDifference(&glyph, want);
}

class GlyphTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  void SetUp() override { MakePool(FTPOOL_DEFAULT_GLYPH_CACHE_BYTES); }
  void TearDown() override {
    font_.reset();
    pool_ = ftpool_cpp::Pool();
    EXPECT_EQ(memory_.outstanding_blocks(), 0);
  }
  void MakePool(std::size_t glyph_cache_bytes) {
    font_.reset();
    pool_ = ftpool_cpp::Pool();
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    config.memory = memory_.get();
    config.glyph_cache_bytes = glyph_cache_bytes;
    pool_ = ftpool_cpp::Pool::create(&config);
    font_ = pool_.font(ftpool_cpp::FontDesc().file(kSans).pixel_size(24));
  }
  FT_UInt Index(FT_Face face, FT_ULong character) const {
    const FT_UInt index = FT_Get_Char_Index(face, character);
    EXPECT_NE(index, 0u);
    return index;
  }

  ftpool_test::CountingMemory memory_; // first: destroyed last
  ftpool_cpp::Pool pool_;
  ftpool_cpp::Font font_;
};

TEST_P(GlyphTest, AHitIsTheGlyphFreeTypeRendersSharedByThreads) {
  ftpool_test::ReferenceFace plain(kSans, 0, 24);
  const ftpool_glyph *first = nullptr;
  FT_UInt index;
  {
    ftpool_cpp::FontFace face = font_.acquire();
    index = Index(face.get(), 'g');
    first = &face.glyph(index);
    EXPECT_EQ(FreeTypesDifference(*first, plain, index, FT_LOAD_DEFAULT), "");
    EXPECT_EQ(&face.glyph(index), first); // a hit: the cached glyph itself
    EXPECT_EQ(&face.glyph(index, FT_LOAD_DEFAULT), first);
    // Other load flags are another entry, rendered as FreeType does.
    const ftpool_glyph &mono = face.glyph(index, FT_LOAD_TARGET_MONO);
    EXPECT_NE(&mono, first);
    EXPECT_EQ(mono.bitmap.pixel_mode, FT_PIXEL_MODE_MONO);
    EXPECT_EQ(FreeTypesDifference(mono, plain, index, FT_LOAD_TARGET_MONO), "");

    // Under a transform: its own entry, as FreeType renders it; the
    // identity is the plain lookup's (a hit).
    const FT_Matrix identity = {0x10000, 0, 0, 0x10000};
    const FT_Vector shift = {32, 0};
    EXPECT_EQ(&face.glyph(index, FT_LOAD_DEFAULT, &identity, nullptr), first);
    const ftpool_glyph &shifted =
        face.glyph(index, FT_LOAD_DEFAULT, nullptr, &shift);
    EXPECT_NE(&shifted, first);
    const ftpool_glyph *again = nullptr;
    EXPECT_EQ(face.try_glyph(index, FT_LOAD_DEFAULT, &identity, &shift, again),
              FTPOOL_OK);
    EXPECT_EQ(again, &shifted);
    FT_Vector delta = shift;
    FT_Set_Transform(plain.face(), nullptr, &delta);
    EXPECT_EQ(FreeTypesDifference(shifted, plain, index, FT_LOAD_DEFAULT), "");
    FT_Set_Transform(plain.face(), nullptr, nullptr);

    FT_Fixed expected;
    ASSERT_EQ(FT_Get_Advance(plain.face(), index, FT_LOAD_DEFAULT, &expected),
              0);
    EXPECT_EQ(face.advance(index), expected);
    EXPECT_EQ(face.advance(index), expected); // a hit
    FT_Fixed got = 0;
    EXPECT_EQ(face.try_advance(index, FT_LOAD_DEFAULT, got), FTPOOL_OK);
    EXPECT_EQ(got, expected);
  }
  ftpool_stats stats = pool_.stats();
  // 'g' three times (two flags, a shift), its advance
  EXPECT_EQ(stats.glyph_misses, 4u);
  EXPECT_EQ(stats.glyph_hits, 6u);
  EXPECT_EQ(stats.glyph_entries, 4u);
  EXPECT_EQ(stats.glyph_uncached, 0u);
  EXPECT_GT(stats.glyph_bytes_cached, first->bitmap.rows * 1u);

  // Other threads, each on a face of its own, hit the same glyph.
  constexpr int kThreads = 4;
  std::atomic<int> same{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++)
    threads.emplace_back([&] {
      ftpool_cpp::FontFace face = font_.acquire();
      const ftpool_glyph *glyph = nullptr;
      if (face.try_glyph(index, FT_LOAD_DEFAULT, glyph) == FTPOOL_OK &&
          glyph == first)
        same++;
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(same, kThreads);
  stats = pool_.stats();
  EXPECT_EQ(stats.glyph_misses, 4u);
  EXPECT_EQ(stats.glyph_hits, 6u + kThreads);
}

// Each status, thrown by glyph() and advance() and returned by their try_
// twins, which leave the out value as it was.
TEST_P(GlyphTest, ErrorsThrowTheirStatus) {
  ftpool_cpp::FontFace face = font_.acquire();
  auto status_of = [](auto call) {
    try {
      call();
    } catch (const ftpool_cpp::Error &error) {
      return error.status();
    }
    return FTPOOL_OK;
  };
  const FT_UInt past = static_cast<FT_UInt>(face->num_glyphs);
  EXPECT_EQ(status_of([&] { (void)face.glyph(past); }), FTPOOL_ERR_GLYPH_INDEX);
  EXPECT_EQ(status_of([&] { (void)face.advance(past); }),
            FTPOOL_ERR_GLYPH_INDEX);
  const FT_UInt a = Index(face.get(), 'A');
  for (FT_Int32 flags :
       {FT_LOAD_NO_SCALE, FT_LOAD_NO_RECURSE, FT_LOAD_BITMAP_METRICS_ONLY})
    EXPECT_EQ(status_of([&] { (void)face.glyph(a, flags); }),
              FTPOOL_ERR_LOAD_FLAGS)
        << flags;
  try {
    (void)face.glyph(a, FT_LOAD_NO_SCALE);
  } catch (const ftpool_cpp::Error &error) {
    EXPECT_NE(std::strstr(error.what(), "ftpool_font_glyph: "), nullptr);
    EXPECT_EQ(error.ft_error(), 0);
  }
  // Advances take every flag: font units with FT_LOAD_NO_SCALE.
  ftpool_test::ReferenceFace plain(kSans, 0, 24);
  FT_Fixed units;
  ASSERT_EQ(FT_Get_Advance(plain.face(), a, FT_LOAD_NO_SCALE, &units), 0);
  EXPECT_EQ(face.advance(a, FT_LOAD_NO_SCALE), units);

  // A failed try_ leaves the out value unchanged.
  const ftpool_glyph *kept = &face.glyph(a);
  const ftpool_glyph *glyph = kept;
  EXPECT_EQ(face.try_glyph(past, FT_LOAD_DEFAULT, glyph),
            FTPOOL_ERR_GLYPH_INDEX);
  EXPECT_EQ(glyph, kept);
  FT_Fixed advance = 12345;
  EXPECT_EQ(face.try_advance(past, FT_LOAD_DEFAULT, advance),
            FTPOOL_ERR_GLYPH_INDEX);
  EXPECT_EQ(advance, 12345);

  // FreeType's own failure: a render mode no renderer has.
  const FT_Int32 no_such_mode = FT_LOAD_TARGET_(FT_RENDER_MODE_MAX);
  ASSERT_EQ(FT_Load_Glyph(plain.face(), a, no_such_mode | FT_LOAD_RENDER),
            FT_Err_Cannot_Render_Glyph);
  try {
    (void)face.glyph(a, no_such_mode);
    ADD_FAILURE() << "no exception";
  } catch (const ftpool_cpp::Error &error) {
    EXPECT_EQ(error.status(), FTPOOL_ERR_FREETYPE);
    // FreeType's error, as ftpool_last_ft_error gives it.
    EXPECT_EQ(error.ft_error(), FT_Err_Cannot_Render_Glyph);
  }

  // Another size set on the face: the cached glyph is still found, a miss
  // refuses to cache the wrong size.
  ASSERT_EQ(FT_Set_Pixel_Sizes(face.get(), 0, 40), 0);
  EXPECT_EQ(&face.glyph(a), kept);
  const FT_UInt b = Index(face.get(), 'B');
  EXPECT_EQ(status_of([&] { (void)face.glyph(b); }), FTPOOL_ERR_SIZE_CHANGED);
  EXPECT_EQ(status_of([&] { (void)face.advance(b); }), FTPOOL_ERR_SIZE_CHANGED);
  face.give_back();
  face = font_.acquire(); // the font's size again
  EXPECT_EQ(face->size->metrics.y_ppem, 24);
  EXPECT_EQ(FreeTypesDifference(face.glyph(b), plain, b, FT_LOAD_DEFAULT), "");

  // The face on another thread than the acquirer's.
  ftpool_status on_other_thread = FTPOOL_OK, advance_there = FTPOOL_OK;
  std::thread([&] {
    on_other_thread = status_of([&] { (void)face.glyph(a); });
    FT_Fixed unused;
    advance_there = face.try_advance(a, FT_LOAD_DEFAULT, unused);
  }).join();
  EXPECT_EQ(on_other_thread, FTPOOL_ERR_NOT_ACQUIRED);
  EXPECT_EQ(advance_there, FTPOOL_ERR_NOT_ACQUIRED);

  // An empty handle.
  ftpool_cpp::FontFace empty;
  EXPECT_EQ(status_of([&] { (void)empty.glyph(a); }),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(empty.try_advance(a, FT_LOAD_DEFAULT, advance),
            FTPOOL_ERR_INVALID_ARGUMENT);
  // Nothing failed was cached or counted.
  const ftpool_stats stats = pool_.stats();
  EXPECT_EQ(stats.glyph_entries, 3u); // 'A', 'B' and 'A''s unscaled advance
  EXPECT_EQ(stats.glyph_misses, 3u);
}

// With the cache off every glyph is the caller's own, kept once per acquire
// and freed at the give-back that ends it: a glyph lives as long as the
// acquired face, across nested acquires and moves within the thread.
TEST_P(GlyphTest, AGlyphLivesUntilTheLastGiveBack) {
  MakePool(0);
  ftpool_test::ReferenceFace plain(kSans, 0, 24);
  {
    // Warm: the instance made, the glyph slot's bitmap allocated.
    ftpool_cpp::FontFace face = font_.acquire();
    (void)face.glyph(Index(face.get(), 'W'));
  }
  const long idle = memory_.outstanding_blocks();
  ftpool_cpp::FontFace outer = font_.acquire();
  const FT_UInt w = Index(outer.get(), 'W'), q = Index(outer.get(), 'Q');
  const ftpool_glyph *from_inner = nullptr;
  {
    ftpool_cpp::FontFace inner = font_.acquire(); // the same face, again
    EXPECT_EQ(inner.get(), outer.get());
    from_inner = &inner.glyph(w);
  } // gives back once: the thread still holds the font
  const ftpool_glyph &again = outer.glyph(w);
  EXPECT_EQ(&again, from_inner); // uncached, kept once for the acquire
  EXPECT_EQ(FreeTypesDifference(*from_inner, plain, w, FT_LOAD_DEFAULT), "");
  ftpool_cpp::FontFace moved = std::move(outer); // same thread: still held
  const ftpool_glyph &other = moved.glyph(q);
  EXPECT_EQ(FreeTypesDifference(*from_inner, plain, w, FT_LOAD_DEFAULT), "");
  EXPECT_EQ(FreeTypesDifference(again, plain, w, FT_LOAD_DEFAULT), "");
  EXPECT_EQ(FreeTypesDifference(other, plain, q, FT_LOAD_DEFAULT), "");
  EXPECT_EQ(memory_.outstanding_blocks(), idle + 2); // the two glyphs
  const FT_Face raw = moved.get();
  EXPECT_EQ(moved.give_back(), FTPOOL_OK);
  // The give-back freed them; the face is no longer this thread's to ask.
  EXPECT_EQ(memory_.outstanding_blocks(), idle);
  const ftpool_glyph *none = nullptr;
  EXPECT_EQ(ftpool_font_glyph(font_.get(), raw, w, FT_LOAD_DEFAULT, &none),
            FTPOOL_ERR_NOT_ACQUIRED);
  EXPECT_EQ(moved.try_glyph(w, FT_LOAD_DEFAULT, none),
            FTPOOL_ERR_INVALID_ARGUMENT);
  const ftpool_stats stats = pool_.stats();
  EXPECT_EQ(stats.glyph_uncached, stats.glyph_misses);
  EXPECT_EQ(stats.glyph_misses, 3u);
  EXPECT_EQ(stats.glyph_hits, 1u); // the repeat
  EXPECT_EQ(stats.glyph_entries, 0u);
  EXPECT_EQ(stats.glyph_bytes_cached, 0u);
}

// A budget too small for the text: glyphs are evicted while threads hold
// others, and every one a thread gets stays right until its give-back.
TEST_P(GlyphTest, EvictionsUnderThreadsKeepEveryGlyphRight) {
  MakePool(16 << 10);
  const std::string text = "The quick brown fox jumps over the lazy dog 0123"
                           "456789 THE QUICK BROWN FOX JUMPS OVER THE LAZY DOG";
  constexpr int kThreads = 4;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++)
    threads.emplace_back([&, i] {
      ftpool_test::ReferenceFace plain(kSans, 0, 24);
      for (int round = 0; round < 10; round++) {
        ftpool_cpp::FontFace face = font_.acquire();
        std::vector<std::pair<FT_UInt, const ftpool_glyph *>> held;
        for (std::size_t c = 0; c < text.size(); c++) {
          const FT_UInt index =
              FT_Get_Char_Index(face.get(), text[(c + i * 7) % text.size()]);
          // Alternating flags double the glyphs the budget must hold.
          const FT_Int32 flags =
              round % 2 ? FT_LOAD_DEFAULT : FT_LOAD_NO_HINTING;
          held.emplace_back(index, &face.glyph(index, flags));
          if (held.size() % 16 == 0) // read back what this run holds
            for (const auto &[held_index, glyph] : held)
              if (!FreeTypesDifference(*glyph, plain, held_index, flags)
                       .empty())
                wrong++;
        }
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  const ftpool_stats stats = pool_.stats();
  EXPECT_GT(stats.glyph_evictions, 0u);
  EXPECT_GT(stats.glyph_hits, 0u);
  EXPECT_LE(stats.glyph_bytes_cached, std::size_t{16 << 10});
}

INSTANTIATE_TEST_SUITE_P(
    Backends, GlyphTest,
    ::testing::Values(FTPOOL_BACKEND_PER_THREAD, FTPOOL_BACKEND_SHARED_MUTEX),
    [](const ::testing::TestParamInfo<ftpool_backend> &p) {
      return std::string(p.param == FTPOOL_BACKEND_PER_THREAD ? "PerThread"
                                                              : "SharedMutex");
    });

} // namespace
