// SPDX-License-Identifier: MIT
// Pins per acquire and quiescent points keep every glyph a thread may still
// read: another thread evicts it and reclaims what no pin holds, then the
// first thread reads it.
//  - Nested acquires: a glyph got under an outer acquire stays readable
//    after an inner acquire that looked glyphs up is given back.
//  - A quiescent point: a glyph got after it (the lookup pins again) stays
//    readable.
//
// Built three times: as glyph_pin_read_test against the library, where each
// read must find the glyph's bytes intact, and as two negative controls
// against copies that break one rule each (FTPOOL_CONTROL_GLYPH_NO_REPIN: a
// lookup after an unpin does not pin again; and
// FTPOOL_CONTROL_GLYPH_UNPIN_PER_GIVE_BACK: the give-back of any acquire
// that looked a glyph up unpins, though another such acquire is held),
// where, under --config=asan, AddressSanitizer must report the read of the
// scenario that control breaks as a heap-use-after-free on every run. In
// the other builds a read of freed memory shows nothing reliably, so there
// the controls check nothing and say so.
#include <cstdio>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/asan_control.h"
#include "test/support/child_process.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/glyph_reference.h"
#include "test/support/pool_test_util.h"

namespace ftpool_test {
namespace {

enum class Scenario { kNested, kQuiescent };

#if defined(FTPOOL_CONTROL_GLYPH_NO_REPIN)
constexpr bool kControl = true;
constexpr Scenario kBroken = Scenario::kQuiescent;
#elif defined(FTPOOL_CONTROL_GLYPH_UNPIN_PER_GIVE_BACK)
constexpr bool kControl = true;
constexpr Scenario kBroken = Scenario::kNested;
#else
constexpr bool kControl = false;
constexpr Scenario kBroken = Scenario::kNested; // unused
#endif

constexpr FT_UInt kPixels = 24;
constexpr size_t kBudget = 4096; // a handful of 24 px glyphs

// Gets 'W' on one thread as the scenario says, has another thread evict it
// and reclaim, then reads it. Returns 0 if it equals FreeType's, 1 if not,
// 2 if the scenario could not be set up.
int ReadAfterReclaim(ftpool_backend backend, Scenario scenario) {
  CountingMemory memory;
  ftpool *pool = GlyphPool(backend, memory.get(), kBudget);
  ReferenceFace reference(kSans, 0, kPixels);
  ReferenceGlyph want;
  const FT_UInt w = reference.Index('W');
  if (!pool || !reference.Render(w, FT_LOAD_DEFAULT, &want))
    return 2;
  // The reader's font, an inner one, and the evicting thread's, all of one
  // file and size (one key: the evictor's misses evict the reader's glyph).
  ftpool_font_desc desc = Desc(kSans, kPixels);
  ftpool_font *outer, *inner, *theirs;
  FT_Face face, inner_face;
  const ftpool_glyph *glyph, *other;
  if (ftpool_font_create(pool, &desc, &outer) != FTPOOL_OK ||
      ftpool_font_create(pool, &desc, &inner) != FTPOOL_OK ||
      ftpool_font_create(pool, &desc, &theirs) != FTPOOL_OK ||
      ftpool_font_acquire(outer, &face) != FTPOOL_OK)
    return 2;
  if (scenario == Scenario::kNested) {
    if (ftpool_font_glyph(outer, face, w, 0, &glyph) != FTPOOL_OK ||
        ftpool_font_acquire(inner, &inner_face) != FTPOOL_OK ||
        ftpool_font_glyph(inner, inner_face, reference.Index('i'), 0, &other) !=
            FTPOOL_OK ||
        ftpool_font_give_back(inner, inner_face) != FTPOOL_OK)
      return 2;
  } else {
    if (ftpool_font_glyph(outer, face, reference.Index('q'), 0, &other) !=
            FTPOOL_OK ||
        ftpool_quiescent(pool) != FTPOOL_OK ||
        ftpool_font_glyph(outer, face, w, 0, &glyph) != FTPOOL_OK)
      return 2;
  }
  bool evicted_ok = true;
  std::thread evictor([&] {
    FT_Face f;
    const ftpool_glyph *g;
    evicted_ok = ftpool_font_acquire(theirs, &f) == FTPOOL_OK;
    for (FT_ULong c = 'a'; evicted_ok && c <= 'z'; c++)
      evicted_ok =
          ftpool_font_glyph(theirs, f, reference.Index(c), 0, &g) == FTPOOL_OK;
    // Its unpin reclaims what no pin holds.
    evicted_ok = evicted_ok && ftpool_font_give_back(theirs, f) == FTPOOL_OK;
  });
  evictor.join();
  ftpool_stats s;
  ftpool_get_stats(pool, &s);
  std::printf("%zu glyphs evicted, %zu bytes awaiting\n", s.glyph_evictions,
              s.glyph_bytes_awaiting);
  if (!evicted_ok || s.glyph_evictions == 0)
    return 2;
  std::printf("reading 'W'\n");
  std::fflush(stdout);
  const std::string difference = GlyphDifference(glyph, want);
  if (!difference.empty())
    std::printf("the copy of 'W' changed: %s\n", difference.c_str());
  // It was evicted: looking it up again misses.
  const size_t misses = s.glyph_misses;
  const ftpool_glyph *again;
  if (ftpool_font_glyph(outer, face, w, 0, &again) != FTPOOL_OK)
    return 2;
  ftpool_get_stats(pool, &s);
  if (s.glyph_misses != misses + 1) {
    std::printf("'W' was not evicted\n");
    return 2;
  }
  ftpool_font_give_back(outer, face);
  ftpool_font_release(outer);
  ftpool_font_release(inner);
  ftpool_font_release(theirs);
  ftpool_destroy(pool);
  if (memory.outstanding_bytes() != 0) {
    std::printf("%ld bytes left after ftpool_destroy\n",
                memory.outstanding_bytes());
    return 1;
  }
  return difference.empty() ? 0 : 1;
}

using Param = std::tuple<ftpool_backend, Scenario>;

std::string ModeName(const Param &param) {
  return std::string(std::get<0>(param) == FTPOOL_BACKEND_PER_THREAD
                         ? "PerThread"
                         : "SharedMutex") +
         (std::get<1>(param) == Scenario::kNested ? "Nested" : "Quiescent");
}

template <ftpool_backend backend, Scenario scenario> int Child() {
  return ReadAfterReclaim(backend, scenario);
}
const bool registered =
    RegisterChildMode("pin-read-PerThreadNested",
                      &Child<FTPOOL_BACKEND_PER_THREAD, Scenario::kNested>) &&
    RegisterChildMode(
        "pin-read-PerThreadQuiescent",
        &Child<FTPOOL_BACKEND_PER_THREAD, Scenario::kQuiescent>) &&
    RegisterChildMode("pin-read-SharedMutexNested",
                      &Child<FTPOOL_BACKEND_SHARED_MUTEX, Scenario::kNested>) &&
    RegisterChildMode(
        "pin-read-SharedMutexQuiescent",
        &Child<FTPOOL_BACKEND_SHARED_MUTEX, Scenario::kQuiescent>);

class GlyphPinReadTest : public ::testing::TestWithParam<Param> {};

TEST_P(GlyphPinReadTest, AGlyphStaysReadableWhileItsReaderMayReadIt) {
  const std::string mode = "pin-read-" + ModeName(GetParam());
  // The shared-mutex backend's readers are fonts: one acquire each, so
  // nested acquires of two fonts are two readers, which no control joins.
  const bool broken = kControl && std::get<1>(GetParam()) == kBroken &&
                      !(kBroken == Scenario::kNested &&
                        std::get<0>(GetParam()) == FTPOOL_BACKEND_SHARED_MUTEX);
  if (broken) {
#ifndef __SANITIZE_ADDRESS__
    GTEST_SKIP() << "negative control: only AddressSanitizer sees the read "
                    "of a glyph freed while its reader could read it; this "
                    "build checks nothing (run it with --config=asan)";
#endif
    ExpectUseAfterFreeEveryRun(mode, "reading 'W'");
    return;
  }
  EXPECT_EQ(ReadAfterReclaim(std::get<0>(GetParam()), std::get<1>(GetParam())),
            0);
  // And in a child, as the controls run it: a clean exit, no report.
  ExpectCleanRun(mode);
}

INSTANTIATE_TEST_SUITE_P(
    Scenarios, GlyphPinReadTest,
    ::testing::Combine(::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                         FTPOOL_BACKEND_SHARED_MUTEX),
                       ::testing::Values(Scenario::kNested,
                                         Scenario::kQuiescent)),
    [](const ::testing::TestParamInfo<Param> &info) {
      return ModeName(info.param);
    });

} // namespace
} // namespace ftpool_test
