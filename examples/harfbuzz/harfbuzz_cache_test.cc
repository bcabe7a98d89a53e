// SPDX-License-Identifier: MIT
// The glyph cache's HarfBuzz font functions (hb_glyph_cache.h): shaping
// with them on a shared font's acquired face gives the glyph ids, clusters,
// advances, offsets and extents that hb-ft gives on the same face with the
// same load flags, in 8 threads, on both backends, with the cache at its
// default budget, at a budget that evicts, and off; and their advances and
// extents come from the cache.
#include <atomic>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <hb-ft.h>
#include <hb.h>

#include "examples/harfbuzz/hb_glyph_cache.h"
#include "examples/harfbuzz/shaped_run.h"
#include "ftpool.hpp"
#include "test/support/fonts.h"

namespace {

using ftpool_test::ShapedGlyph;
using ftpool_test::ShapedRun;
using ftpool_test::ShapeText;

constexpr int kThreads = 8;
constexpr int kRounds = 3;
// A budget the texts overflow: CJK glyphs and Latin ones evict each other.
constexpr std::size_t kSmallCache = 16 << 10;

// hb-ft's font on face, with the given load flags: the reference.
hb_font_t *HbFtFont(FT_Face face, FT_Int32 load_flags) {
  hb_font_t *font = hb_ft_font_create_referenced(face);
  hb_ft_font_set_load_flags(font, load_flags);
  return font;
}

// Kerning pairs (AV, Wa), ligatures (ffi, fl), accents; Arabic joining forms
// and marks placed by GPOS; CJK ideographs, kana and punctuation.
const char kKerning[] = "AVAV Wave";
const char kLatin[] =
    "The office staff affirmed the final workflow. "
    "To Tyre, LT VA, Caf\u00e9 na\u00efve \u00c5ngstr\u00f6m.";
const char kArabic[] = "\u0628\u0650\u0633\u0652\u0645\u0650 "
                       "\u0627\u0644\u0644\u0651\u064e\u0647\u0650 "
                       "\u0645\u0631\u062d\u0628\u0627";
const char kCjkText[] = "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3001"
                        "\u6f22\u5b57\u3068\u304b\u306a\u3002"
                        "\u4e2d\u6587\u6392\u7248\uff1aAVAV Wave";

struct FontCase {
  const char *path;
  FT_UInt pixels;
  std::vector<const char *> texts;
};
const FontCase kSansCase{ftpool_test::kSans, 16, {kKerning, kLatin, kArabic}};
const FontCase kCjkCase{ftpool_test::kCjk, 20, {kCjkText, kKerning}};
// hb-ft's own (unhinted), and FreeType's default (hinted).
const FT_Int32 kFlags[] = {FTPOOL_HB_LOAD_FLAGS, FT_LOAD_DEFAULT};
constexpr int kFlagCount = 2;

// Per font case and flags, each text's run: [flags][text].
using Runs = std::vector<std::vector<ShapedRun>>;

// Single-threaded hb-ft on a plain FreeType face: what every thread must get.
Runs ReferenceRuns(const FontCase &c) {
  FT_Library library;
  FT_Face face;
  EXPECT_EQ(FT_Init_FreeType(&library), 0);
  EXPECT_EQ(FT_New_Face(library, c.path, 0, &face), 0);
  EXPECT_EQ(FT_Set_Pixel_Sizes(face, 0, c.pixels), 0);
  Runs runs(kFlagCount);
  for (int f = 0; f < kFlagCount; f++) {
    hb_font_t *font = HbFtFont(face, kFlags[f]);
    for (const char *text : c.texts)
      runs[f].push_back(ShapeText(font, text));
    hb_font_destroy(font);
  }
  FT_Done_FreeType(library);
  return runs;
}

// Kept on each instance: the cached-funcs font and hb-ft's, for each flags.
struct InstanceFonts {
  static std::atomic<int> made, destroyed;
  hb_font_t *cached[kFlagCount];
  hb_font_t *hb_ft[kFlagCount];

  static InstanceFonts &Of(const ftpool_cpp::FontFace &face) {
    if (void *kept = face.data())
      return *static_cast<InstanceFonts *>(kept);
    auto *fonts = new InstanceFonts;
    for (int f = 0; f < kFlagCount; f++) {
      fonts->cached[f] =
          ftpool_hb_font_create(face.font(), face.get(), kFlags[f]);
      fonts->hb_ft[f] = HbFtFont(face.get(), kFlags[f]);
    }
    face.set_data(fonts, Destroy);
    made++;
    return *fonts;
  }
  static void Destroy(void *data) {
    auto *fonts = static_cast<InstanceFonts *>(data);
    for (int f = 0; f < kFlagCount; f++) {
      ftpool_hb_font_destroy(fonts->cached[f]);
      hb_font_destroy(fonts->hb_ft[f]);
    }
    delete fonts;
    destroyed++;
  }
};
std::atomic<int> InstanceFonts::made{0}, InstanceFonts::destroyed{0};

struct Param {
  ftpool_backend backend;
  std::size_t glyph_cache_bytes;
};

class PoolFixture {
protected:
  void MakePool(ftpool_backend backend, std::size_t glyph_cache_bytes) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = backend;
    config.glyph_cache_bytes = glyph_cache_bytes;
    pool_ = ftpool_cpp::Pool::create(&config);
    InstanceFonts::made = InstanceFonts::destroyed = 0;
  }
  ftpool_cpp::Font FontOf(const FontCase &c) const {
    return pool_.font(ftpool_cpp::FontDesc().file(c.path).pixel_size(c.pixels));
  }

  ftpool_cpp::Pool pool_;
};

class HbCacheTest : public ::testing::TestWithParam<Param>,
                    protected PoolFixture {
protected:
  void SetUp() override {
    MakePool(GetParam().backend, GetParam().glyph_cache_bytes);
  }
};

// The cache at its default budget, to count lookups.
class HbCacheCountTest : public ::testing::TestWithParam<ftpool_backend>,
                         protected PoolFixture {
protected:
  void SetUp() override {
    MakePool(GetParam(), FTPOOL_DEFAULT_GLYPH_CACHE_BYTES);
  }
};

// Shapes every text of c on the font's acquired face with both fonts of the
// instance; counts runs where the cached funcs differ from hb-ft on the
// same face or from the single-threaded reference.
int WrongRuns(const ftpool_cpp::Font &font, const FontCase &c,
              const Runs &reference) {
  ftpool_cpp::FontFace face = font.acquire();
  InstanceFonts &fonts = InstanceFonts::Of(face);
  int wrong = 0;
  for (int f = 0; f < kFlagCount; f++)
    for (std::size_t t = 0; t < c.texts.size(); t++) {
      const ShapedRun cached = ShapeText(fonts.cached[f], c.texts[t]);
      const ShapedRun hb_ft = ShapeText(fonts.hb_ft[f], c.texts[t]);
      if (cached != hb_ft || cached != reference[f][t]) {
        ADD_FAILURE() << "flags " << kFlags[f] << ", text " << t << ": "
                      << ::testing::PrintToString(cached) << " vs hb-ft "
                      << ::testing::PrintToString(hb_ft);
        wrong++;
      }
    }
  return wrong;
}

TEST_P(HbCacheTest, ThreadsShapeAsHbFtOnTheSameFace) {
  ASSERT_FONT_PRESENT(ftpool_test::kCjk);
  const Runs sans_reference = ReferenceRuns(kSansCase);
  const Runs cjk_reference = ReferenceRuns(kCjkCase);
  for (const Runs *runs : {&sans_reference, &cjk_reference})
    for (const std::vector<ShapedRun> &flag_runs : *runs)
      for (const ShapedRun &run : flag_runs)
        for (const ShapedGlyph &glyph : run)
          ASSERT_NE(glyph.id, 0u) << "a character the font lacks";
  int marks_moved = 0; // offsets that are not all zero
  for (const ShapedGlyph &glyph : sans_reference[0][2])
    marks_moved += glyph.x_offset != 0 || glyph.y_offset != 0;
  ASSERT_GT(marks_moved, 0) << "no Arabic mark positioned";
  ftpool_cpp::Font sans = FontOf(kSansCase), cjk = FontOf(kCjkCase);
  std::atomic<int> wrong{0}, done{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++)
    threads.emplace_back([&, i] {
      for (int round = 0; round < kRounds; round++) {
        // Half the threads start with the other font.
        const bool sans_first = (i + round) % 2 == 0;
        wrong += WrongRuns(sans_first ? sans : cjk,
                           sans_first ? kSansCase : kCjkCase,
                           sans_first ? sans_reference : cjk_reference);
        wrong += WrongRuns(sans_first ? cjk : sans,
                           sans_first ? kCjkCase : kSansCase,
                           sans_first ? cjk_reference : sans_reference);
      }
      // Alive together, the threads hold a context (and instances) each.
      done++;
      while (done < kThreads)
        std::this_thread::yield();
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  const bool per_thread = GetParam().backend == FTPOOL_BACKEND_PER_THREAD;
  EXPECT_EQ(InstanceFonts::made, per_thread ? 2 * kThreads : 2);
  const ftpool_stats stats = pool_.stats();
  EXPECT_GT(stats.glyph_misses, 0u);
  if (GetParam().glyph_cache_bytes == 0) {
    // Nothing cached; a glyph repeated under one acquire is rendered once
    // (a hit on that acquire's own).
    EXPECT_EQ(stats.glyph_entries, 0u);
    EXPECT_EQ(stats.glyph_uncached, stats.glyph_misses);
  } else if (GetParam().glyph_cache_bytes == kSmallCache) {
    EXPECT_GT(stats.glyph_evictions, 0u);
    EXPECT_GT(stats.glyph_hits, 0u);
  } else {
    EXPECT_GT(stats.glyph_hits, 10 * stats.glyph_misses);
    EXPECT_EQ(stats.glyph_evictions, 0u);
  }
  sans.reset();
  cjk.reset();
  EXPECT_EQ(InstanceFonts::destroyed, InstanceFonts::made);
}

// Each advance and extents query is one lookup in the pool's cache, and
// the hb_font of one thread finds what another's put there.
TEST_P(HbCacheCountTest, AdvancesAndExtentsComeFromTheCache) {
  ftpool_cpp::Font font = FontOf(kSansCase);
  FT_UInt v;
  {
    ftpool_cpp::FontFace face = font.acquire();
    v = FT_Get_Char_Index(face.get(), 'V');
    hb_font_t *hb =
        ftpool_hb_font_create(font.get(), face.get(), FTPOOL_HB_LOAD_FLAGS);
    hb_codepoint_t glyph = 0;
    ASSERT_TRUE(hb_font_get_nominal_glyph(hb, 'V', &glyph));
    EXPECT_EQ(glyph, v);
    EXPECT_EQ(pool_.stats().glyph_misses, 0u); // the cmap is not cached
    const hb_position_t advance = hb_font_get_glyph_h_advance(hb, v);
    EXPECT_EQ(pool_.stats().glyph_misses, 1u);
    EXPECT_EQ(hb_font_get_glyph_h_advance(hb, v), advance);
    EXPECT_EQ(pool_.stats().glyph_hits, 1u);
    FT_Fixed cached = face.advance(v, FTPOOL_HB_LOAD_FLAGS);
    EXPECT_EQ(advance, (cached + (1 << 9)) >> 10);
    hb_glyph_extents_t extents{};
    ASSERT_TRUE(hb_font_get_glyph_extents(hb, v, &extents));
    EXPECT_EQ(pool_.stats().glyph_misses, 2u);
    const ftpool_glyph &g = face.glyph(v, FTPOOL_HB_LOAD_FLAGS); // a hit
    EXPECT_EQ(extents.x_bearing, g.metrics.horiBearingX);
    EXPECT_EQ(extents.height, -g.metrics.height);
    // Kerning (GPOS, through these advances) moves 'A' closer to 'V'.
    const ShapedRun kerned = ShapeText(hb, kKerning);
    EXPECT_LT(kerned[0].x_advance,
              hb_font_get_glyph_h_advance(hb, kerned[0].id));
    ftpool_hb_font_destroy(hb); // before the give-back: it is the face's
  }
  const ftpool_stats before = pool_.stats();
  std::thread([&] {
    ftpool_cpp::FontFace face = font.acquire();
    hb_font_t *hb =
        ftpool_hb_font_create(font.get(), face.get(), FTPOOL_HB_LOAD_FLAGS);
    hb_glyph_extents_t extents{};
    EXPECT_GT(hb_font_get_glyph_h_advance(hb, v), 0);
    EXPECT_TRUE(hb_font_get_glyph_extents(hb, v, &extents));
    hb_font_destroy(hb);
  }).join();
  const ftpool_stats after = pool_.stats();
  EXPECT_EQ(after.glyph_misses, before.glyph_misses);
  EXPECT_EQ(after.glyph_hits, before.glyph_hits + 2);
}

// Load flags the cache cannot render with: extents come from hb-ft, still
// equal to it; advances from the cache, in font units.
TEST_P(HbCacheTest, UnscaledFlagsFallBackToHbFtForExtents) {
  ftpool_cpp::Font font = FontOf(kSansCase);
  ftpool_cpp::FontFace face = font.acquire();
  const FT_Int32 flags = FT_LOAD_NO_SCALE;
  hb_font_t *cached = ftpool_hb_font_create(font.get(), face.get(), flags);
  hb_font_t *hb_ft = HbFtFont(face.get(), flags);
  for (const char *text : {kKerning, kLatin})
    EXPECT_EQ(ShapeText(cached, text), ShapeText(hb_ft, text));
  EXPECT_EQ(pool_.stats().glyph_entries,
            GetParam().glyph_cache_bytes ? pool_.stats().glyph_misses : 0u);
  hb_font_destroy(hb_ft);
  ftpool_hb_font_destroy(cached);
}

// A negative scale mirrors the font: advances and extents change sign as
// hb-ft's do.
TEST_P(HbCacheTest, MirroredScaleEqualsHbFt) {
  ftpool_cpp::Font font = FontOf(kSansCase);
  ftpool_cpp::FontFace face = font.acquire();
  hb_font_t *cached =
      ftpool_hb_font_create(font.get(), face.get(), FTPOOL_HB_LOAD_FLAGS);
  hb_font_t *hb_ft = HbFtFont(face.get(), FTPOOL_HB_LOAD_FLAGS);
  int x_scale, y_scale;
  hb_font_get_scale(hb_ft, &x_scale, &y_scale);
  for (hb_font_t *f : {cached, hb_ft})
    hb_font_set_scale(f, -x_scale, -y_scale);
  const ShapedRun mirrored = ShapeText(cached, kLatin);
  EXPECT_EQ(mirrored, ShapeText(hb_ft, kLatin));
  ASSERT_FALSE(mirrored.empty());
  EXPECT_LT(mirrored[0].x_advance, 0); // mirrored indeed
  hb_font_destroy(hb_ft);
  ftpool_hb_font_destroy(cached);
}

INSTANTIATE_TEST_SUITE_P(
    BackendsAndBudgets, HbCacheTest,
    ::testing::Values(
        Param{FTPOOL_BACKEND_PER_THREAD, FTPOOL_DEFAULT_GLYPH_CACHE_BYTES},
        Param{FTPOOL_BACKEND_PER_THREAD, kSmallCache},
        Param{FTPOOL_BACKEND_PER_THREAD, 0},
        Param{FTPOOL_BACKEND_SHARED_MUTEX, FTPOOL_DEFAULT_GLYPH_CACHE_BYTES},
        Param{FTPOOL_BACKEND_SHARED_MUTEX, kSmallCache},
        Param{FTPOOL_BACKEND_SHARED_MUTEX, 0}),
    [](const ::testing::TestParamInfo<Param> &p) {
      std::string name = p.param.backend == FTPOOL_BACKEND_PER_THREAD
                             ? "PerThread"
                             : "SharedMutex";
      if (p.param.glyph_cache_bytes == 0)
        return name + "CacheOff";
      return name + (p.param.glyph_cache_bytes == kSmallCache ? "SmallCache"
                                                              : "Cache");
    });

INSTANTIATE_TEST_SUITE_P(
    Backends, HbCacheCountTest,
    ::testing::Values(FTPOOL_BACKEND_PER_THREAD, FTPOOL_BACKEND_SHARED_MUTEX),
    [](const ::testing::TestParamInfo<ftpool_backend> &p) {
      return std::string(p.param == FTPOOL_BACKEND_PER_THREAD ? "PerThread"
                                                              : "SharedMutex");
    });

} // namespace
