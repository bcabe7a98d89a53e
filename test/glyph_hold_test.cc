// SPDX-License-Identifier: MIT
// The glyph cache's memory however fonts are held, measured with the
// counting allocator, not the statistics: glyphs returned uncached live
// until the give-back of the acquire they were got under (not the thread's
// last give-back), a repeat under one acquire keeps nothing more, the keys
// entries keep after their fonts are released count against the budget,
// an acquire that looks nothing up pins nothing, and a quiescent point lets
// reclamation free what a held font's thread might have read. Both
// backends.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/fonts.h"
#include "test/support/glyph_pool.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

constexpr const char *kPangram = "Sphinx of black quartz, judge my vow";

class GlyphHoldTest : public GlyphPoolTest {
protected:
  // Looks up every glyph of text on face.
  void Draw(ftpool_font *font, FT_Face face, const char *text) {
    for (const char *c = text; *c; c++)
      Glyph(font, face, FT_Get_Char_Index(face, (unsigned char)*c));
  }
  // Acquires font, draws text, gives it back, `rounds` times.
  void Rounds(ftpool_font *font, const char *text, int rounds) {
    for (int i = 0; i < rounds; i++) {
      FT_Face face = Acquire(font);
      Draw(font, face, text);
      GiveBack(font, face);
    }
  }
  // CJK ideographs from U+4E00, `count` of them, on face.
  void DrawCjk(ftpool_font *font, FT_Face face, int count) {
    for (FT_ULong c = 0x4e00; c < 0x4e00 + (FT_ULong)count; c++)
      Glyph(font, face, FT_Get_Char_Index(face, c));
  }

  // The case: hold B, then acquire A, draw, give A back, 300
  // times. Before, every uncached glyph stayed on the thread until it gave
  // B back too: +4.69 MB with the cache off, +2.58 MB with a 4 KiB budget.
  void HeldFontKeepsNothingOfOthers(size_t budget) {
    MakePool(budget);
    ftpool_font *a = Font(kSans, 24), *b = Font(kSerif, 24);
    ASSERT_TRUE(a && b);
    FT_Face held = Acquire(b);
    Draw(b, held, "Held");   // the holder looks glyphs up too
    Rounds(a, kPangram, 20); // FreeType's own memory settles
    long settled = memory_.outstanding_bytes();
    Rounds(a, kPangram, 300);
    long grown = memory_.outstanding_bytes() - settled;
    EXPECT_LE(grown, 1024) << "300 rounds kept " << grown << " bytes";
    GiveBack(b, held);
  }
};

TEST_P(GlyphHoldTest, UncachedGlyphsGoWithTheirAcquireCacheOff) {
  HeldFontKeepsNothingOfOthers(0);
}

TEST_P(GlyphHoldTest, UncachedGlyphsGoWithTheirAcquireTinyBudget) {
  HeldFontKeepsNothingOfOthers(4096);
}

// A glyph returned uncached is kept once per acquire: its repeats render
// nothing and keep nothing more.
TEST_P(GlyphHoldTest, ARepeatUnderOneAcquireKeepsNothingMore) {
  MakePool(0);
  ftpool_font *font = Font(kSans, 24);
  ASSERT_NE(font, nullptr);
  FT_Face face = Acquire(font);
  Draw(font, face, kPangram);
  long once = memory_.outstanding_bytes();
  ftpool_stats before = Stats(pool_);
  for (int i = 0; i < 100; i++)
    Draw(font, face, kPangram);
  ftpool_stats after = Stats(pool_);
  EXPECT_EQ(memory_.outstanding_bytes(), once);
  EXPECT_EQ(after.glyph_misses, before.glyph_misses);
  EXPECT_EQ(after.glyph_hits - before.glyph_hits, 100 * strlen(kPangram));
  GiveBack(font, face);
}

// Many distinct glyphs returned uncached under one acquire (a CJK text
// with the cache off): each is rendered once, its repeats find it (through
// the acquire's index once they are many) and keep nothing more; with the
// cache off nothing pins.
TEST_P(GlyphHoldTest, ManyUncachedGlyphsUnderOneAcquireRenderOnceEach) {
  ASSERT_FONT_PRESENT(kCjk);
  MakePool(0);
  ftpool_font *font = Font(kCjk, 16);
  ASSERT_NE(font, nullptr);
  FT_Face face = Acquire(font);
  constexpr int kGlyphs = 600;
  std::vector<const ftpool_glyph *> first;
  for (FT_ULong c = 0x4e00; c < 0x4e00 + kGlyphs; c++)
    first.push_back(Glyph(font, face, FT_Get_Char_Index(face, c)));
  EXPECT_EQ(Stats(pool_).glyph_readers_pinned, 0u);
  long kept = memory_.outstanding_bytes();
  for (int round = 0; round < 2; round++)
    for (int i = kGlyphs - 1; i >= 0; i--)
      EXPECT_EQ(Glyph(font, face, FT_Get_Char_Index(face, 0x4e00 + i)),
                first[i]);
  ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.glyph_misses, (size_t)kGlyphs);
  EXPECT_EQ(s.glyph_hits, 2u * kGlyphs);
  EXPECT_EQ(memory_.outstanding_bytes(), kept);
  GiveBack(font, face);
}

// What the cache keeps alive is charged: 3,000 fonts at distinct sizes
// (then 300 at distinct coordinates), each looked up once and released,
// while another thread stays pinned, so nothing evicted is freed. The
// header's bound is twice the budget; before, the keys the entries kept
// made it 4.56x (298,944 bytes held for a 64 KiB budget).
TEST_P(GlyphHoldTest, EntriesKeysCountAgainstTheBudget) {
  ASSERT_FONT_PRESENT(kVariable);
  constexpr size_t kBudget = 64 << 10;
  MakePool(kBudget);
  ftpool_font *pinned_font = Font(kSans, 12);
  ASSERT_NE(pinned_font, nullptr);
  // The files' bytes in the file cache before counting.
  for (const char *path : {kSans, kVariable}) {
    ftpool_font_desc desc = Desc(path, 24);
    ftpool_font *font = nullptr;
    ASSERT_EQ(ftpool_font_create(pool_, &desc, &font), FTPOOL_OK);
    ftpool_font_release(font);
  }
  PinnedReader holder(pinned_font);
  long base = memory_.outstanding_bytes();
  long most = 0;
  auto one = [&](ftpool_font_desc desc) {
    ftpool_font *font = nullptr;
    ASSERT_EQ(ftpool_font_create(pool_, &desc, &font), FTPOOL_OK);
    FT_Face face = Acquire(font);
    FT_Fixed advance;
    EXPECT_EQ(ftpool_font_advance(font, face, FT_Get_Char_Index(face, 'A'),
                                  FT_LOAD_DEFAULT, &advance),
              FTPOOL_OK);
    GiveBack(font, face);
    ftpool_font_release(font); // its instance and face go with it
    most = std::max(most, memory_.outstanding_bytes() - base);
  };
  for (FT_UInt px = 8; px < 8 + 3000; px++)
    one(Desc(kSans, px));
  for (int i = 0; i < 300; i++)
    one(Desc(kVariable, 24, {(FT_Fixed)(100 + i) << 16}));
  ftpool_stats s = Stats(pool_);
  EXPECT_LE(s.glyph_bytes_cached, kBudget);
  EXPECT_LE(s.glyph_bytes_awaiting, kBudget);
  EXPECT_GT(s.glyph_evictions, 0u);
  // Each block the counting allocator hands out carries no more than this
  // in front of it: 2 x the budget, plus what the pool's own records of
  // the holder's context may have grown by.
  EXPECT_LE(most, (long)(2 * kBudget) + 16384)
      << "the cache held " << most << " bytes for a " << kBudget
      << "-byte budget";
  holder.Release();
}

// A font held for the whole run that looks nothing up pins nothing: the
// inner fonts' give-backs let reclamation free what they evicted.
TEST_P(GlyphHoldTest, AnAcquireThatLooksNothingUpPinsNothing) {
  ASSERT_FONT_PRESENT(kCjk);
  MakePool(16 << 10);
  ftpool_font *outer = Font(kSerif, 24), *inner = Font(kCjk, 24);
  ASSERT_TRUE(outer && inner);
  FT_Face held = Acquire(outer);
  for (int round = 0; round < 3; round++) {
    FT_Face face = Acquire(inner);
    DrawCjk(inner, face, 200); // evicts its own glyphs
    EXPECT_GT(Stats(pool_).glyph_bytes_awaiting, 0u);
    EXPECT_EQ(Stats(pool_).glyph_readers_pinned, 1u);
    GiveBack(inner, face);
    ftpool_stats s = Stats(pool_);
    EXPECT_EQ(s.glyph_readers_pinned, 0u) << "round " << round;
    EXPECT_EQ(s.glyph_bytes_awaiting, 0u) << "round " << round;
  }
  GiveBack(outer, held);
}

// A thread that keeps a font acquired and looks glyphs up through it
// passes quiescent points: each one frees what it could have read.
TEST_P(GlyphHoldTest, AQuiescentPointLetsReclamationThrough) {
  ASSERT_FONT_PRESENT(kCjk);
  MakePool(16 << 10);
  ftpool_font *font = Font(kCjk, 24);
  ASSERT_NE(font, nullptr);
  FT_Face face = Acquire(font);
  for (int round = 0; round < 3; round++) {
    DrawCjk(font, face, 200);
    ftpool_stats s = Stats(pool_);
    EXPECT_GT(s.glyph_bytes_awaiting, 0u);
    EXPECT_EQ(s.glyph_readers_pinned, 1u);
    EXPECT_GT(s.glyph_oldest_pin_age, 0u);
    ASSERT_EQ(ftpool_quiescent(pool_), FTPOOL_OK);
    s = Stats(pool_);
    EXPECT_EQ(s.glyph_bytes_awaiting, 0u) << "round " << round;
    EXPECT_EQ(s.glyph_readers_pinned, 0u);
    EXPECT_EQ(s.glyph_oldest_pin_age, 0u);
  }
  // A lookup after it pins again, and gets a glyph it can read.
  const ftpool_glyph *g = Glyph(font, face, FT_Get_Char_Index(face, 0x6F22));
  ASSERT_NE(g, nullptr);
  EXPECT_GT(g->bitmap.rows, 0u);
  EXPECT_EQ(Stats(pool_).glyph_readers_pinned, 1u);
  GiveBack(font, face);
  EXPECT_EQ(ftpool_quiescent(nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(ftpool_quiescent(pool_), FTPOOL_OK); // holding nothing
}

// Without quiescent points, a thread that holds a font it looked glyphs
// up through stalls everyone's misses once a budget's worth awaits, and
// the statistics show it.
TEST_P(GlyphHoldTest, AHolderWithoutQuiescentPointsShowsTheStall) {
  ASSERT_FONT_PRESENT(kCjk);
  MakePool(16 << 10);
  // Fonts of their own: with the shared-mutex backend, the holder's is
  // locked while it holds it.
  ftpool_font *font = Font(kCjk, 24), *held = Font(kSans, 12);
  ASSERT_TRUE(font && held);
  PinnedReader holder(held);
  for (int i = 0; i < 3; i++) {
    FT_Face face = Acquire(font);
    DrawCjk(font, face, 300);
    GiveBack(font, face);
  }
  ftpool_stats s = Stats(pool_);
  EXPECT_GT(s.glyph_uncached_stalled, 0u);
  EXPECT_EQ(s.glyph_readers_pinned, 1u);
  EXPECT_GT(s.glyph_oldest_pin_age, 0u);
  EXPECT_LE(s.glyph_uncached_stalled, s.glyph_uncached);
  holder.Release();
  EXPECT_EQ(Stats(pool_).glyph_bytes_awaiting, 0u);
}

// Three threads draw CJK text (a skewed choice among 3,000 ideographs)
// through a budget smaller than its working set, acquiring their fonts for
// each line; a fourth draws a glyph every 1 ms, acquiring its font for each
// (kNone), or holding it for the whole run and passing a quiescent point
// after each glyph, or never. The hit rate of all four (the fourth's
// lookups are under 1% of them), and the statistics at the workers' end.
struct DrawingRun {
  double hit_rate;
  ftpool_stats stats; // before the holder gave its font back
};

enum class Holder { kNone, kQuiescent, kNeverQuiescent };

// Sized so that the workers' own pins, each a line long (or a scheduler's
// quantum, when a worker is descheduled holding one), leave far less than
// the budget awaiting, while a pin held for the whole run leaves all of it.
constexpr size_t kHolderBudget = 256 << 10;
constexpr int kIdeographs = 3000, kTextLength = 1500, kPasses = 6;
constexpr int kLine = 20;
constexpr FT_UInt kCjkPixels = 16;

DrawingRun DrawWithHolder(ftpool_backend backend, Holder holder_mode) {
  CountingMemory memory;
  ftpool *pool = GlyphPool(backend, memory.get(), kHolderBudget);
  EXPECT_NE(pool, nullptr);
  // A font each (the shared-mutex backend locks a font while it is held),
  // all of one file and size: they share the cache's entries.
  ftpool_font_desc desc = Desc(kCjk, kCjkPixels);
  std::vector<ftpool_font *> fonts(4, nullptr);
  for (ftpool_font *&font : fonts)
    EXPECT_EQ(ftpool_font_create(pool, &desc, &font), FTPOOL_OK);
  std::vector<FT_ULong> text;
  uint32_t seed = 12345;
  for (int i = 0; i < kTextLength; i++) {
    seed = seed * 1103515245 + 12345;
    double u = ((seed >> 8) & 0xffff) / 65536.0;
    text.push_back(0x4e00 + (FT_ULong)(kIdeographs * u * u)); // skewed
  }
  std::atomic<int> working{3};
  std::atomic<bool> holding{false}, stop{false};
  DrawingRun run{};
  // The fourth thread draws a glyph every 1 ms in each mode, so that the
  // runs differ in how it holds its font, not in what the threads do: with
  // kNone it acquires and gives back around each lookup.
  std::thread holder([&] {
    const bool holds = holder_mode != Holder::kNone;
    FT_Face face = nullptr;
    if (holds)
      EXPECT_EQ(ftpool_font_acquire(fonts[3], &face), FTPOOL_OK);
    const ftpool_glyph *glyph;
    do {
      if (!holds)
        EXPECT_EQ(ftpool_font_acquire(fonts[3], &face), FTPOOL_OK);
      EXPECT_EQ(ftpool_font_glyph(fonts[3], face,
                                  FT_Get_Char_Index(face, 0x6F22),
                                  FT_LOAD_DEFAULT, &glyph),
                FTPOOL_OK);
      if (!holds)
        EXPECT_EQ(ftpool_font_give_back(fonts[3], face), FTPOOL_OK);
      if (holder_mode == Holder::kQuiescent)
        EXPECT_EQ(ftpool_quiescent(pool), FTPOOL_OK);
      holding = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    } while (working);
    run.stats = Stats(pool);
    Await(stop);
    if (holds)
      EXPECT_EQ(ftpool_font_give_back(fonts[3], face), FTPOOL_OK);
  });
  Await(holding);
  std::vector<std::thread> workers;
  for (int t = 0; t < 3; t++)
    workers.emplace_back([&, t] {
      // Lines, each under an acquire of its own.
      for (size_t i = 0; i < kPasses * text.size(); i += kLine) {
        FT_Face face;
        EXPECT_EQ(ftpool_font_acquire(fonts[t], &face), FTPOOL_OK);
        const ftpool_glyph *glyph;
        for (size_t j = i; j < i + kLine; j++)
          EXPECT_EQ(
              ftpool_font_glyph(
                  fonts[t], face,
                  FT_Get_Char_Index(face, text[(j + 500 * t) % text.size()]),
                  FT_LOAD_DEFAULT, &glyph),
              FTPOOL_OK);
        EXPECT_EQ(ftpool_font_give_back(fonts[t], face), FTPOOL_OK);
      }
      working--;
    });
  for (std::thread &worker : workers)
    worker.join();
  ftpool_stats s = Stats(pool);
  stop = true;
  holder.join();
  run.hit_rate = (double)s.glyph_hits / (s.glyph_hits + s.glyph_misses);
  for (ftpool_font *font : fonts)
    ftpool_font_release(font);
  ftpool_destroy(pool);
  EXPECT_EQ(memory.outstanding_bytes(), 0);
  return run;
}

TEST_P(GlyphHoldTest, AHolderPassingQuiescentPointsCostsOthersNoHits) {
  ASSERT_FONT_PRESENT(kCjk);
  // Hit rates move with the scheduler (a worker descheduled in a line keeps
  // its pin a quantum): medians of runs interleaved, alone and beside the
  // holder.
  constexpr int kReps = 7;
  std::vector<double> alone, quiescent;
  DrawingRun last_alone{}, last_quiescent{};
  for (int rep = 0; rep < kReps; rep++) {
    last_alone = DrawWithHolder(GetParam(), Holder::kNone);
    last_quiescent = DrawWithHolder(GetParam(), Holder::kQuiescent);
    alone.push_back(last_alone.hit_rate);
    quiescent.push_back(last_quiescent.hit_rate);
  }
  std::sort(alone.begin(), alone.end());
  std::sort(quiescent.begin(), quiescent.end());
  const double alone_median = alone[kReps / 2];
  const double quiescent_median = quiescent[kReps / 2];
  DrawingRun stalled = DrawWithHolder(GetParam(), Holder::kNeverQuiescent);
  std::printf(
      "hit rate (median of %d) alone %.3f (%.3f-%.3f), beside a holder "
      "passing quiescent points %.3f (%.3f-%.3f); beside one that never "
      "does %.3f, and at the workers' end %zu misses stalled (%zu in the "
      "last run alone), %zu bytes awaiting, the oldest pin %zu eviction "
      "passes old\n",
      kReps, alone_median, alone.front(), alone.back(), quiescent_median,
      quiescent.front(), quiescent.back(), stalled.hit_rate,
      stalled.stats.glyph_uncached_stalled,
      last_alone.stats.glyph_uncached_stalled,
      stalled.stats.glyph_bytes_awaiting, stalled.stats.glyph_oldest_pin_age);
  EXPECT_GT(alone_median, 0.2); // the workload has hits to lose
  // Within a tenth: natively the medians stay within 4% (12 runs under
  // 6-fold load), but under an emulator on a shared machine
  // (scripts/cross_check.sh) one run of seven was seen at 0.934.
  EXPECT_GE(quiescent_median, 0.90 * alone_median);
  // Past its quiescent point the holder pins nothing.
  EXPECT_EQ(last_quiescent.stats.glyph_readers_pinned, 0u);
  EXPECT_EQ(last_quiescent.stats.glyph_oldest_pin_age, 0u);
  EXPECT_EQ(last_quiescent.stats.glyph_bytes_awaiting, 0u);
  // Without quiescent points the statistics show the stall: a pin as old as
  // the run, a budget's worth awaiting it, and misses refused for it, more
  // than the workers' own pins cause (not twice as many: with the
  // shared-mutex backend, on a loaded machine, a run alone was seen with
  // 5,168 against 9,028). (Its hit rate says little: a stalled cache evicts
  // nothing, and keeps the hottest glyphs.)
  EXPECT_EQ(stalled.stats.glyph_readers_pinned, 1u);
  EXPECT_GT(stalled.stats.glyph_oldest_pin_age, 100u);
  EXPECT_GT(stalled.stats.glyph_bytes_awaiting, kHolderBudget / 2);
  EXPECT_GT(stalled.stats.glyph_uncached_stalled,
            last_alone.stats.glyph_uncached_stalled);
}

// A destructor that ftpool_destroy runs may pass a quiescent point or give
// a face back: no-ops there, since the destroy frees every instance (the
// per-thread backend walked the thread's acquired instances, one of them
// already freed: a use after free under AddressSanitizer).
void QuiescentAndGiveBack(void *arg);
struct HeldFace {
  ftpool *pool;
  ftpool_font *font;
  FT_Face face;
};
void QuiescentAndGiveBack(void *arg) {
  HeldFace *held = static_cast<HeldFace *>(arg);
  EXPECT_EQ(ftpool_quiescent(held->pool), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_give_back(held->font, held->face), FTPOOL_OK);
}

TEST_P(GlyphHoldTest, DestructorsInDestroyMayPassQuiescentPoints) {
  CountingMemory memory;
  ftpool *pool = GlyphPool(GetParam(), memory.get(), 4096);
  ASSERT_NE(pool, nullptr);
  ftpool_font_desc desc = Desc(kSans, 24);
  ftpool_font *b = nullptr, *a = nullptr;
  ASSERT_EQ(ftpool_font_create(pool, &desc, &b), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_create(pool, &desc, &a), FTPOOL_OK);
  HeldFace held{pool, a, nullptr};
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(b, &face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_set_instance_data(b, face, &held, QuiescentAndGiveBack),
            FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(b, face), FTPOOL_OK);
  ASSERT_EQ(ftpool_font_acquire(a, &held.face), FTPOOL_OK);
  const ftpool_glyph *glyph;
  for (FT_ULong c = 'a'; c <= 'z'; c++) // some cached, some not
    ASSERT_EQ(ftpool_font_glyph(a, held.face, FT_Get_Char_Index(held.face, c),
                                FT_LOAD_DEFAULT, &glyph),
              FTPOOL_OK);
  ftpool_destroy(pool); // with a held
  EXPECT_EQ(memory.outstanding_bytes(), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphHoldTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
