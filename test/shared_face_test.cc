// SPDX-License-Identifier: MIT
// One FT_Face rendered by two threads at once. FreeType allows a face to be
// used by one thread at a time, so the coming shared fonts must lock around
// it; this is the check that catches them if they do not. The negative
// control, two threads on one face with no lock, must be caught: under
// --config=tsan, where FreeType itself is instrumented, as a data race
// inside FreeType on every run; in the other builds by wrong renders or a
// crash. Its twin, the same renders behind a mutex, must be clean in every
// build.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <ft2build.h>
#include FT_FREETYPE_H

#include "test/support/child_process.h"
#include "test/support/fonts.h"
#include "test/support/tsan_report.h"

namespace ftpool_test {
namespace {

// Different glyphs per thread, so that a render mixed with the other
// thread's shows in the digest.
const char *const kTexts[] = {"Hg&", "@Wj"};
constexpr int kThreads = 2;
#ifdef __SANITIZE_THREAD__
// TSan needs one unlocked pair of renders, not an overlap in time.
constexpr int kRenders = 200; // per thread
#else
constexpr int kRenders = 2000;
#endif

// Renders kTexts on one face from two threads, locked or not; returns the
// number of renders whose digest differs from the single-threaded one.
int WrongRendersOnOneFace(bool lock) {
  FT_Library library;
  FT_Face face;
  if (FT_Init_FreeType(&library) || FT_New_Face(library, kSans, 0, &face))
    return -1;
  uint64_t expected[kThreads];
  for (int t = 0; t < kThreads; ++t)
    expected[t] = RenderDigest(face, kTexts[t]);
  std::mutex mutex;
  std::atomic<bool> go{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go.load()) // start together: the point is to overlap
        std::this_thread::yield();
      for (int i = 0; i < kRenders; ++i) {
        std::unique_lock<std::mutex> held(mutex, std::defer_lock);
        if (lock)
          held.lock();
        if (RenderDigest(face, kTexts[t]) != expected[t])
          wrong++;
      }
    });
  }
  go = true;
  for (std::thread &thread : threads)
    thread.join();
  FT_Done_Face(face);
  FT_Done_FreeType(library);
  return wrong;
}

TEST(SharedFaceTest, TwoThreadsBehindALockRenderCorrectly) {
  EXPECT_EQ(WrongRendersOnOneFace(true), 0);
}

// Exits 1 on a wrong render, 2 if FreeType would not even open the font.
int UnlockedChild() {
  int wrong = WrongRendersOnOneFace(false);
  std::printf("%d wrong renders of %d\n", wrong, kThreads * kRenders);
  return wrong < 0 ? 2 : wrong > 0 ? 1 : 0;
}

const bool registered = RegisterChildMode("unlocked-face", &UnlockedChild);

#ifdef __SANITIZE_THREAD__
// FreeType is instrumented here (scripts/freetype_tsan.sh): TSan must report
// the race itself, inside FreeType, whatever the timing.
TEST(SharedFaceTest, CatchesTwoThreadsOnOneFaceWithoutALock) {
  ChildResult child = RunSelf("unlocked-face", 120);
  std::string race = FreeTypeRaceSummary(child.output);
  EXPECT_NE(race, "") << "no ThreadSanitizer data race inside FreeType; "
                      << child.Describe();
  std::printf("caught: %s\n", race.c_str());
}
#else
// Here only the effects show, when the threads overlap: a few attempts.
TEST(SharedFaceTest, CatchesTwoThreadsOnOneFaceWithoutALock) {
  constexpr int kAttempts = 3;
  for (int attempt = 1; attempt <= kAttempts; ++attempt) {
    ChildResult child = RunSelf("unlocked-face", 60);
    ASSERT_FALSE(child.exited && child.exit_code == 2) << child.Describe();
    if (!(child.exited && child.exit_code == 0)) {
      std::printf("caught on attempt %d: %s\n", attempt,
                  child.Describe().c_str());
      return;
    }
  }
  FAIL() << "two threads rendering on one face without a lock went "
            "unnoticed in "
         << kAttempts << " attempts";
}
#endif

} // namespace
} // namespace ftpool_test
