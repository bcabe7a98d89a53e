// SPDX-License-Identifier: MIT
// The glyph cache under load, on both backends: 16 threads look up glyphs
// and advances of several fonts (DejaVu at 12 and 24 px, the variable font
// at two weights, a CJK face), two fonts at once now and then, under a
// 64 KiB budget that keeps the cache evicting. Fonts are replaced and
// released from whichever thread drops the last reference; threads come
// and go, some exiting with fonts acquired and glyphs got, their font
// references released after by the thread that joins them. Every glyph
// must equal plain FreeType's (computed before any thread starts), and
// stay so until its thread gives the font back, evicted or not; a monitor
// thread checks at every sample that the cached and the awaiting bytes are
// within the budget; everything must be freed.
//
// Built twice: as glyph_stress_test against the library, and as
// glyph_stress_negative_control_test against a copy whose publishing CAS is
// relaxed (FTPOOL_CONTROL_GLYPH_RELAXED_PUBLISH). Its control is a focused
// two-thread case: a thread hits on glyphs another published, ordered by
// nothing but the chain; under --config=tsan, ThreadSanitizer must report
// the data race in lib/glyph_cache.c on every run. Elsewhere a relaxed CAS
// shows nothing (x86 orders it anyway): the control checks nothing there.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/child_process.h"
#include "test/support/counting_memory.h"
#include "test/support/font_slots.h"
#include "test/support/fonts.h"
#include "test/support/glyph_reference.h"
#include "test/support/pool_test_util.h"
#include "test/support/tsan_report.h"

namespace ftpool_test {
namespace {

#ifdef FTPOOL_CONTROL_GLYPH_RELAXED_PUBLISH
constexpr bool kControl = true;
#else
constexpr bool kControl = false;
#endif

const FT_Int32 kFlags[] = {FT_LOAD_DEFAULT, FT_LOAD_TARGET_MONO};

struct Description {
  const char *path;
  FT_Long face_index;
  FT_UInt pixels;
  std::vector<FT_Fixed> coords;
  FT_ULong first, last; // the characters whose glyphs are looked up
  std::vector<FT_UInt> glyphs;
  std::vector<ReferenceGlyph> references[2]; // per kFlags
  std::vector<FT_Fixed> advances;            // FT_LOAD_DEFAULT's
};

// Plain FreeType's glyphs and advances, on one thread; false if it failed.
bool Prepare(Description &d) {
  ReferenceFace face(d.path, d.face_index, d.pixels, d.coords);
  if (!face.ok())
    return false;
  for (FT_ULong c = d.first; c <= d.last; c++) {
    const FT_UInt index = face.Index(c);
    if (!index)
      continue;
    d.glyphs.push_back(index);
    for (int f = 0; f < 2; f++) {
      d.references[f].emplace_back();
      if (!face.Render(index, kFlags[f], &d.references[f].back()))
        return false;
    }
    d.advances.push_back(face.Advance(index, FT_LOAD_DEFAULT));
  }
  return !d.glyphs.empty();
}

#ifndef FTPOOL_CONTROL_GLYPH_RELAXED_PUBLISH

constexpr size_t kBudget = 64 << 10;
constexpr size_t kThreads = 16, kLookups = 16;
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr double kSeconds = 6;
constexpr int kCycles = 20;
constexpr size_t kMinLookups = 2000;
#else
constexpr double kSeconds = 4;
constexpr int kCycles = 100;
constexpr size_t kMinLookups = 50000;
#endif

// A pool whose glyph cache keeps evicting, and two fonts of each
// description on it, shared by the workers.
class Fonts {
public:
  Fonts(ftpool_backend backend, const std::vector<Description> &d)
      : pool_(MakePool(backend, memory_)), slots_(pool_, d),
        ordered_(backend == FTPOOL_BACKEND_SHARED_MUTEX) /* fonts are locks */ {
  }
  ftpool *pool() { return pool_; }
  const CountingMemory &memory() const { return memory_; }
  size_t Slots() const { return slots_.Slots(); }
  size_t DescriptionOf(size_t slot) const { return slots_.DescriptionOf(slot); }
  bool Ordered() const { return ordered_; }
  ftpool_font *Take(size_t i) { return slots_.Take(i); }
  void Replace(size_t i) { slots_.Replace(i); }
  void ReleaseAll() { slots_.ReleaseAll(); }

private:
  static ftpool *MakePool(ftpool_backend backend, CountingMemory &memory) {
    ftpool *pool = GlyphPool(backend, memory.get(), kBudget);
    if (!pool)
      std::abort();
    return pool;
  }
  CountingMemory memory_;
  ftpool *pool_;
  FontSlots<Description> slots_;
  bool ordered_;
};

struct Result {
  std::atomic<size_t> lookups{0}, wrong{0}, failed{0}, changed{0};
  std::atomic<size_t> threads{0}, exited_holding{0}, replaced{0};
  std::atomic<bool> bound_broken{false};
  std::atomic<size_t> max_cached{0}, max_awaiting{0};
};

// A worker; what it still held at its exit is released after its join.
struct Worker {
  std::thread thread;
  std::vector<ftpool_font *> held_at_exit;
};

void Work(Fonts &fonts, const std::vector<Description> &d, unsigned seed,
          const std::atomic<bool> &stop, Result &r, Worker *self) {
  std::mt19937 random(seed);
  // Some threads end their last cycle by exiting with the fonts acquired.
  const bool exit_holding = seed % 3 == 0;
  for (int cycle = 0; cycle < kCycles && !stop; cycle++) {
    size_t slots[2] = {random() % fonts.Slots(), random() % fonts.Slots()};
    const size_t count = random() % 4 == 0 && slots[0] != slots[1] ? 2 : 1;
    if (count == 2 && fonts.Ordered() && slots[1] < slots[0])
      std::swap(slots[0], slots[1]);
    ftpool_font *font[2];
    FT_Face face[2];
    for (size_t i = 0; i < count; i++) {
      font[i] = fonts.Take(slots[i]);
      if (ftpool_font_acquire(font[i], &face[i]) != FTPOOL_OK)
        std::abort();
    }
    // Every glyph got, to read again before the give-back.
    std::vector<std::pair<const ftpool_glyph *, const ReferenceGlyph *>> got;
    for (size_t k = 0; k < kLookups; k++) {
      const size_t i = random() % count;
      const Description &x = d[fonts.DescriptionOf(slots[i])];
      const size_t g = random() % x.glyphs.size();
      if (random() % 4 == 0) {
        FT_Fixed advance;
        if (ftpool_font_advance(font[i], face[i], x.glyphs[g], FT_LOAD_DEFAULT,
                                &advance) != FTPOOL_OK)
          r.failed++;
        else if (advance != x.advances[g])
          r.wrong++;
      } else {
        const int f = random() % 2;
        const ftpool_glyph *glyph;
        if (ftpool_font_glyph(font[i], face[i], x.glyphs[g], kFlags[f],
                              &glyph) != FTPOOL_OK) {
          r.failed++;
          continue;
        }
        const ReferenceGlyph *want = &x.references[f][g];
        if (!GlyphDifference(glyph, *want).empty())
          r.wrong++;
        got.emplace_back(glyph, want);
      }
      r.lookups++;
    }
    for (const auto &[glyph, want] : got)
      if (!GlyphDifference(glyph, *want).empty())
        r.changed++;
    if (exit_holding && cycle == kCycles - 1) {
      self->held_at_exit.assign(font, font + count);
      r.exited_holding++;
      return; // the exit gives the faces back
    }
    for (size_t i = count; i-- > 0;) {
      if (ftpool_font_give_back(font[i], face[i]) != FTPOOL_OK)
        std::abort();
      ftpool_font_release(font[i]);
    }
    if (random() % 40 == 0) {
      fonts.Replace(random() % fonts.Slots());
      r.replaced++;
    }
  }
}

void Sample(ftpool *pool, Result &r) {
  ftpool_stats s;
  if (ftpool_get_stats(pool, &s) != FTPOOL_OK ||
      s.glyph_bytes_cached > kBudget || s.glyph_bytes_awaiting > kBudget)
    r.bound_broken = true;
  if (s.glyph_bytes_cached > r.max_cached)
    r.max_cached = s.glyph_bytes_cached;
  if (s.glyph_bytes_awaiting > r.max_awaiting)
    r.max_awaiting = s.glyph_bytes_awaiting;
}

// Keeps kThreads workers alive for kSeconds, and on until kMinLookups are
// done where the machine is slower (an emulator: scripts/cross_check.sh),
// though never past kLimitSeconds; each does kCycles and exits.
constexpr double kLimitSeconds = 30 * kSeconds;
void RunWorkers(Fonts &fonts, const std::vector<Description> &d, Result &r) {
  std::atomic<bool> stop{false};
  std::thread monitor([&] {
    while (!stop) {
      Sample(fonts.pool(), r);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  const auto start = std::chrono::steady_clock::now();
  const auto deadline =
      start + std::chrono::milliseconds(long(kSeconds * 1000));
  const auto limit =
      start + std::chrono::milliseconds(long(kLimitSeconds * 1000));
  auto more = [&] {
    const auto now = std::chrono::steady_clock::now();
    return now < deadline || (r.lookups <= kMinLookups && now < limit);
  };
  std::deque<std::unique_ptr<Worker>> live;
  auto join_oldest = [&] {
    Worker &w = *live.front();
    w.thread.join();
    for (ftpool_font *font : w.held_at_exit)
      ftpool_font_release(font); // maybe the last reference
    live.pop_front();
  };
  unsigned seed = 1;
  while (more()) {
    while (live.size() < kThreads) {
      live.push_back(std::make_unique<Worker>());
      Worker *w = live.back().get();
      w->thread = std::thread(Work, std::ref(fonts), std::cref(d), seed++,
                              std::cref(stop), std::ref(r), w);
      r.threads++;
    }
    join_oldest(); // churn: the oldest ends, a new one starts
  }
  stop = true;
  while (!live.empty())
    join_oldest();
  monitor.join();
  Sample(fonts.pool(), r);
}

std::vector<Description> Descriptions() {
  std::vector<Description> d = {
      {kSans, 0, 12, {}, 0x21, 0x7e},
      {kSans, 0, 24, {}, 0x21, 0x7e},
      {kVariable, 0, 24, {300 << 16}, 0x21, 0x7e},
      {kVariable, 0, 24, {800 << 16}, 0x21, 0x7e},
      {kCjk, 0, 24, {}, 0x4e00, 0x4e9f}, // 160 ideographs
  };
  for (Description &x : d)
    if (!Prepare(x))
      return {};
  return d;
}

class GlyphStressTest : public ::testing::TestWithParam<ftpool_backend> {};

TEST_P(GlyphStressTest, GlyphsStayRightAndMemoryStaysBounded) {
  ASSERT_FONT_PRESENT(kVariable);
  ASSERT_FONT_PRESENT(kCjk);
  const std::vector<Description> d = Descriptions();
  ASSERT_FALSE(d.empty()) << "FreeType failed on a reference glyph";
  Result r;
  Fonts fonts(GetParam(), d);
  RunWorkers(fonts, d, r);
  // Every worker is gone, so is every pin: one more lookup's give-back
  // reclaims whatever awaits.
  ftpool_font *font = fonts.Take(0);
  FT_Face face;
  const ftpool_glyph *glyph;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  EXPECT_EQ(ftpool_font_glyph(font, face, d[0].glyphs[0], 0, &glyph),
            FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_font_release(font);
  EXPECT_EQ(Stats(fonts.pool()).glyph_bytes_awaiting, 0u);
  fonts.ReleaseAll();
  const ftpool_stats s = Stats(fonts.pool());
  ftpool_destroy(fonts.pool());
  std::printf("%zu lookups by %zu threads (%zu exited holding fonts), %zu "
              "fonts replaced: %zu hits, %zu misses (%zu uncached), %zu "
              "evictions; at most %zu bytes cached and %zu awaiting of %zu; "
              "%zu wrong, %zu changed before the give-back, %zu failed; "
              "%ld bytes left\n",
              r.lookups.load(), r.threads.load(), r.exited_holding.load(),
              r.replaced.load(), s.glyph_hits, s.glyph_misses, s.glyph_uncached,
              s.glyph_evictions, r.max_cached.load(), r.max_awaiting.load(),
              kBudget, r.wrong.load(), r.changed.load(), r.failed.load(),
              fonts.memory().outstanding_bytes());
  EXPECT_GT(r.lookups, kMinLookups);
  EXPECT_EQ(r.wrong, 0u);
  EXPECT_EQ(r.changed, 0u);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_FALSE(r.bound_broken) << "bytes cached or awaiting over the budget";
  EXPECT_GT(s.glyph_hits, 0u);
  EXPECT_GT(s.glyph_evictions, 0u);
  EXPECT_GT(r.exited_holding, 0u);
  EXPECT_EQ(fonts.memory().outstanding_bytes(), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphStressTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

#endif // !FTPOOL_CONTROL_GLYPH_RELAXED_PUBLISH

// The control's case. A publisher misses glyphs, publishing each; a reader
// then hits on them. The two threads share nothing else the reader reads
// after the publisher wrote (the test's flags are relaxed; the pool's
// allocator is malloc, not the counting one, whose atomics would order
// them): only the publishing CAS orders the glyph's bytes before the
// reader's reads. Exits 0 if every hit equals FreeType's, 1 if not, 2 if
// it could not run. (A lookup of the reader's that missed would read the
// publisher's glyphs too, in the search before its own publication.)
int PublishThenHit() {
  Description d{kSans, 0, 24, {}, 'A', 'Z'};
  ftpool *pool;
  ftpool_font *font;
  ftpool_font_desc desc = Desc(kSans, 24);
  if (!Prepare(d) || ftpool_create(nullptr, &pool) != FTPOOL_OK ||
      ftpool_font_create(pool, &desc, &font) != FTPOOL_OK)
    return 2;
  const int n = static_cast<int>(d.glyphs.size());
  std::atomic<int> stage{0}, published{0};
  std::atomic<size_t> wrong{0}, failed{0};
  auto relaxed = std::memory_order_relaxed;
  std::thread reader([&] {
    FT_Face face;
    if (ftpool_font_acquire(font, &face) != FTPOOL_OK)
      std::abort();
    stage.store(1, relaxed);
    while (published.load(relaxed) < n)
      std::this_thread::yield();
    for (int g = 0; g < n; g++) {
      const ftpool_glyph *glyph;
      if (ftpool_font_glyph(font, face, d.glyphs[g], 0, &glyph) != FTPOOL_OK)
        failed++;
      else if (!GlyphDifference(glyph, d.references[0][g]).empty())
        wrong++;
    }
    stage.store(2, relaxed);
    ftpool_font_give_back(font, face);
  });
  std::thread publisher([&] {
    while (stage.load(relaxed) < 1)
      std::this_thread::yield();
    FT_Face face;
    if (ftpool_font_acquire(font, &face) != FTPOOL_OK)
      std::abort();
    for (int g = 0; g < n; g++) {
      const ftpool_glyph *glyph;
      if (ftpool_font_glyph(font, face, d.glyphs[g], 0, &glyph) != FTPOOL_OK)
        failed++;
      published.store(g + 1, relaxed);
    }
    while (stage.load(relaxed) < 2)
      std::this_thread::yield();
    ftpool_font_give_back(font, face);
  });
  reader.join();
  publisher.join();
  ftpool_stats s;
  ftpool_get_stats(pool, &s);
  std::printf("%zu hits, %zu misses; %zu wrong, %zu failed\n", s.glyph_hits,
              s.glyph_misses, wrong.load(), failed.load());
  ftpool_font_release(font);
  ftpool_destroy(pool);
  return wrong == 0 && failed == 0 ? 0 : 1;
}

const bool registered = RegisterChildMode("publish-then-hit", &PublishThenHit);

TEST(GlyphPublishTest, AHitSeesThePublishedGlyphWhole) {
  if (kControl) {
#ifndef __SANITIZE_THREAD__
    GTEST_SKIP() << "negative control: only ThreadSanitizer sees a relaxed "
                    "publishing CAS; this build checks nothing (run it with "
                    "--config=tsan)";
#endif
    for (int run = 1; run <= 3; run++) {
      ChildResult child = RunSelf("publish-then-hit", 120);
      const std::string race = RaceSummaryIn(child.output, "lib/glyph_cache.c");
      EXPECT_NE(race, "") << "run " << run << ": no data race reported in "
                          << "lib/glyph_cache.c; " << child.Describe();
      std::printf("run %d caught: %s\n", run, race.c_str());
    }
    return;
  }
  ChildResult child = RunSelf("publish-then-hit", 120);
  EXPECT_TRUE(child.exited && child.exit_code == 0) << child.Describe();
  EXPECT_EQ(child.output.find("ThreadSanitizer"), std::string::npos)
      << child.Describe();
}

} // namespace
} // namespace ftpool_test
