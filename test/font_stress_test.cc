// SPDX-License-Identifier: MIT
// Shared fonts under load: 16 threads acquire, render and give back fonts
// of many descriptions (sizes of one face, a variable font at several
// coordinates, two faces of a CJK collection), some two at once; fonts are
// replaced and released from whichever thread drops the last reference;
// threads come and go; a small budget keeps evicting. Every render must
// equal plain FreeType's, the instance count must stay within the budget at
// every sample, and everything must be freed. The negative control renders
// the same way on one FT_Face per font shared with no lock, which the same
// checks must catch.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <ft2build.h>
#include FT_MULTIPLE_MASTERS_H

#include "ftpool.h"
#include "test/support/child_process.h"
#include "test/support/counting_memory.h"
#include "test/support/font_slots.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

const char kText[] = "Hxg&";

struct Description {
  const char *path;
  FT_Long face_index;
  FT_UInt pixels;
  std::vector<FT_Fixed> coords;
  uint64_t digest = 0; // plain FreeType's, single-threaded
};

std::vector<Description> Descriptions() {
  std::vector<Description> d = {
      {kSans, 0, 12, {}},
      {kSans, 0, 16, {}},
      {kSans, 0, 24, {}},
      {kSans, 0, 32, {}},
      {kSerif, 0, 24, {}},
      {kVariable, 0, 24, {300 << 16}},
      {kVariable, 0, 24, {500 << 16}},
      {kVariable, 0, 24, {800 << 16}},
      {kCjk, 0, 24, {}},
      {kCjk, 1, 24, {}},
  };
  for (Description &x : d)
    x.digest = ReferenceDigest(x.path, x.face_index, x.pixels, x.coords, kText);
  return d;
}

// How a worker gets a face for a description: ftpool fonts, or, for the
// negative control, one face per description shared with no lock.
class Fonts {
public:
  virtual ~Fonts() = default;
  // A reference to the current font of slot i (Take), and its face.
  virtual void *Take(size_t slot) = 0;
  virtual FT_Face Acquire(void *font) = 0;
  virtual void GiveBack(void *font, FT_Face face) = 0;
  virtual void Release(void *font) = 0;
  // Replaces slot i's font with a new one of the same description.
  virtual void Replace(size_t slot) = 0;
  virtual size_t Slots() const = 0;
  virtual size_t DescriptionOf(size_t slot) const = 0;
  // Samples the pool; false if a bound is broken.
  virtual bool Sample() { return true; }
  // Whether fonts held together must be acquired in one order (they are
  // locks).
  virtual bool Ordered() const { return false; }
  // Releases everything; false if a count does not add up.
  virtual bool Finish() = 0;
};

std::atomic<long> data_made{0}, data_destroyed{0};
void DestroyData(void *) { data_destroyed++; }

constexpr size_t kIdle = 3;              // the budget: instances,
constexpr size_t kIdleBytes = 600 << 10; // and bytes, per context
constexpr size_t kThreads = 16, kHeldAtOnce = 2;

class PoolFonts : public Fonts {
public:
  PoolFonts(ftpool_backend backend, const std::vector<Description> &d)
      : pool_(MakePool(backend, memory_)), slots_(pool_, d),
        per_thread_(backend == FTPOOL_BACKEND_PER_THREAD) {}
  void *Take(size_t i) override { return slots_.Take(i); }
  FT_Face Acquire(void *font) override {
    FT_Face face;
    ftpool_font *f = static_cast<ftpool_font *>(font);
    if (ftpool_font_acquire(f, &face) != FTPOOL_OK)
      std::abort();
    void *data;
    if (ftpool_font_instance_data(f, face, &data) != FTPOOL_OK)
      std::abort();
    if (!data) {
      data_made++;
      ftpool_font_set_instance_data(f, face, &data_made, DestroyData);
    }
    return face;
  }
  void GiveBack(void *font, FT_Face face) override {
    if (ftpool_font_give_back(static_cast<ftpool_font *>(font), face) !=
        FTPOOL_OK)
      std::abort();
  }
  void Release(void *font) override {
    ftpool_font_release(static_cast<ftpool_font *>(font));
  }
  void Replace(size_t i) override { slots_.Replace(i); }
  size_t Slots() const override { return slots_.Slots(); }
  size_t DescriptionOf(size_t slot) const override {
    return slots_.DescriptionOf(slot);
  }
  bool Ordered() const override { return !per_thread_; }
  bool Sample() override {
    ftpool_stats s;
    ftpool_get_stats(pool_, &s);
    max_instances_ = std::max(max_instances_, s.font_instances);
    // Per-thread: idle ones within the budget per context, and in use at
    // most what the live threads hold. (Shared-mutex: one per font.)
    return per_thread_
               ? s.font_instances <= s.contexts * kIdle + kThreads * kHeldAtOnce
               : true;
  }
  bool Finish() override {
    slots_.ReleaseAll();
    ftpool_stats s;
    ftpool_get_stats(pool_, &s);
    ftpool_destroy(pool_);
    std::fprintf(stderr,
                 "%zu contexts; %zu instances created, %zu reused by another "
                 "thread, %zu evicted; at most %zu at once; %zu live at the "
                 "end (in contexts not yet told); %ld instance data made, "
                 "%ld destroyed; %ld bytes left\n",
                 s.contexts, s.font_instances_created, s.font_instances_reused,
                 s.font_instances_evicted, max_instances_, s.font_instances,
                 data_made.load(), data_destroyed.load(),
                 memory_.outstanding_bytes());
    return s.fonts == 0 && (!per_thread_ || s.font_instances_evicted > 0) &&
           data_made == data_destroyed && memory_.outstanding_bytes() == 0;
  }

private:
  static ftpool *MakePool(ftpool_backend backend, CountingMemory &memory) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = backend;
    config.memory = memory.get();
    config.font_idle_instances = kIdle;
    config.font_idle_bytes = kIdleBytes;
    ftpool *pool;
    if (ftpool_create(&config, &pool) != FTPOOL_OK)
      std::abort();
    return pool;
  }
  CountingMemory memory_;
  ftpool *pool_;
  FontSlots<Description> slots_;
  bool per_thread_;
  size_t max_instances_ = 0;
};

// The negative control: one face per description, opened once, shared by
// every thread with no lock (what Pillow did before it locked each font).
class SharedFaceFonts : public Fonts {
public:
  explicit SharedFaceFonts(const std::vector<Description> &d)
      : descriptions_(d) {
    FT_Init_FreeType(&library_);
    for (const Description &x : d) {
      FT_Face face;
      if (FT_New_Face(library_, x.path, x.face_index, &face) ||
          (!x.coords.empty() && FT_Set_Var_Design_Coordinates(
                                    face, static_cast<FT_UInt>(x.coords.size()),
                                    const_cast<FT_Fixed *>(x.coords.data()))) ||
          FT_Set_Pixel_Sizes(face, 0, x.pixels))
        std::abort();
      faces_.push_back(face);
    }
  }
  void *Take(size_t i) override { return faces_[i]; }
  FT_Face Acquire(void *font) override { return static_cast<FT_Face>(font); }
  void GiveBack(void *, FT_Face) override {}
  void Release(void *) override {}
  void Replace(size_t) override {}
  size_t Slots() const override { return faces_.size(); }
  size_t DescriptionOf(size_t slot) const override { return slot; }
  bool Finish() override {
    FT_Done_FreeType(library_);
    return true;
  }

private:
  const std::vector<Description> &descriptions_;
  FT_Library library_;
  std::vector<FT_Face> faces_;
};

struct Result {
  std::atomic<size_t> renders{0}, wrong{0}, replaced{0}, threads{0};
  std::atomic<bool> bound_broken{false};
};

// Keeps kThreads workers alive for `seconds`; each does `cycles` and exits.
void RunWorkers(Fonts &fonts, const std::vector<Description> &d, double seconds,
                int cycles, Result &r) {
  std::atomic<bool> stop{false};
  auto worker = [&](unsigned seed) {
    std::mt19937 random(seed);
    for (int i = 0; i < cycles && !stop; i++) {
      size_t a = random() % fonts.Slots(), b = random() % fonts.Slots();
      bool two = random() % 4 == 0;
      if (two && fonts.Ordered() && b < a)
        std::swap(a, b);
      void *fa = fonts.Take(a), *fb = two ? fonts.Take(b) : nullptr;
      FT_Face face_a = fonts.Acquire(fa);
      FT_Face face_b = two ? fonts.Acquire(fb) : nullptr;
      r.wrong +=
          RenderDigestAsIs(face_a, kText) != d[fonts.DescriptionOf(a)].digest;
      if (two)
        r.wrong +=
            RenderDigestAsIs(face_b, kText) != d[fonts.DescriptionOf(b)].digest;
      r.renders += two ? 2 : 1;
      if (two)
        fonts.GiveBack(fb, face_b);
      fonts.GiveBack(fa, face_a);
      if (two)
        fonts.Release(fb);
      fonts.Release(fa);
      if (random() % 40 == 0) {
        fonts.Replace(random() % fonts.Slots());
        r.replaced++;
      }
    }
  };
  std::thread sampler([&] {
    while (!stop) {
      if (!fonts.Sample())
        r.bound_broken = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  auto deadline = std::chrono::steady_clock::now() +
                  std::chrono::milliseconds(long(seconds * 1000));
  std::vector<std::thread> live;
  unsigned seed = 1;
  while (std::chrono::steady_clock::now() < deadline) {
    while (live.size() < kThreads) {
      live.emplace_back(worker, seed++);
      r.threads++;
    }
    live.front().join(); // churn: the oldest ends, a new one starts
    live.erase(live.begin());
  }
  stop = true;
  for (std::thread &t : live)
    t.join();
  sampler.join();
}

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr double kSeconds = 6;
constexpr int kCycles = 40;
constexpr size_t kMinRenders = 200;
#else
constexpr double kSeconds = 4;
constexpr int kCycles = 200;
constexpr size_t kMinRenders = 2000;
#endif

class FontStressTest : public ::testing::TestWithParam<ftpool_backend> {};

TEST_P(FontStressTest, RendersStayRightAndMemoryStaysBounded) {
  ASSERT_FONT_PRESENT(kVariable);
  ASSERT_FONT_PRESENT(kCjk);
  const std::vector<Description> d = Descriptions();
  for (const Description &x : d)
    ASSERT_NE(x.digest, 0u) << x.path;
  data_made = data_destroyed = 0;
  Result r;
  PoolFonts fonts(GetParam(), d);
  RunWorkers(fonts, d, kSeconds, kCycles, r);
  EXPECT_TRUE(fonts.Finish());
  EXPECT_GT(r.renders, kMinRenders);
  EXPECT_EQ(r.wrong, 0u);
  EXPECT_FALSE(r.bound_broken);
  std::printf("%zu renders by %zu threads, %zu fonts replaced, %zu wrong\n",
              r.renders.load(), r.threads.load(), r.replaced.load(),
              r.wrong.load());
}

INSTANTIATE_TEST_SUITE_P(Backends, FontStressTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

int SharedFaceChild() {
  const std::vector<Description> d = Descriptions();
  Result r;
  SharedFaceFonts fonts(d);
  RunWorkers(fonts, d, kSeconds, kCycles, r);
  fonts.Finish();
  std::printf("shared faces, no lock: %zu renders, %zu wrong\n",
              r.renders.load(), r.wrong.load());
  return r.wrong == 0 ? 0 : 1;
}

const bool registered = RegisterChildMode("shared-face", &SharedFaceChild);

// The negative control: the same workers on shared faces with no lock must
// be caught, by wrong renders, a crash or a sanitizer report.
TEST(FontStressTest, CatchesAFaceSharedWithNoLock) {
  ASSERT_FONT_PRESENT(kVariable);
  ASSERT_FONT_PRESENT(kCjk);
  for (int attempt = 1; attempt <= 3; ++attempt) {
    ChildResult child = RunSelf("shared-face", 120);
    if (!(child.exited && child.exit_code == 0)) {
      std::printf("caught on attempt %d: %s\n", attempt,
                  child.Describe().c_str());
      return;
    }
  }
  FAIL() << "three runs on shared faces with no lock went unnoticed";
}

} // namespace
} // namespace ftpool_test
