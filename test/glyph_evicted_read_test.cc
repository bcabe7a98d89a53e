// SPDX-License-Identifier: MIT
// A glyph that its own thread's later misses evict stays readable until that
// thread gives its font back: the cache retires evicted glyphs and frees
// them only once no thread may read them.
//
// Built twice: as glyph_evicted_read_test against the library, where the
// read must find the glyph's bytes intact, and as
// glyph_evicted_read_negative_control_test against a copy that frees evicted
// glyphs at once (FTPOOL_CONTROL_GLYPH_FREE_AT_ONCE), where, under
// --config=asan, AddressSanitizer must report the read as a
// heap-use-after-free on every run. In the other builds a read of freed
// memory shows nothing reliably, so there the control checks nothing and
// says so.
#include <cstdio>
#include <string>

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

#ifdef FTPOOL_CONTROL_GLYPH_FREE_AT_ONCE
constexpr bool kRetired = false;
#else
constexpr bool kRetired = true;
#endif

constexpr FT_UInt kPixels = 24;
constexpr size_t kBudget = 4096; // a handful of 24 px glyphs

// On one thread: acquires a font, gets glyph 'W', misses enough other
// glyphs that 'W' is evicted (checked: looking it up again misses), then
// reads the first copy's bitmap. Returns 0 if it equals FreeType's, 1 if
// not, 2 if the scenario could not be set up.
int ReadAnEvictedGlyph(ftpool_backend backend) {
  CountingMemory memory;
  ftpool *pool = GlyphPool(backend, memory.get(), kBudget);
  ReferenceFace reference(kSans, 0, kPixels);
  ReferenceGlyph want;
  const FT_UInt first = reference.Index('W');
  if (!pool || !reference.Render(first, FT_LOAD_DEFAULT, &want))
    return 2;
  ftpool_font_desc desc = Desc(kSans, kPixels);
  ftpool_font *font;
  FT_Face face;
  const ftpool_glyph *glyph, *again;
  if (ftpool_font_create(pool, &desc, &font) != FTPOOL_OK ||
      ftpool_font_acquire(font, &face) != FTPOOL_OK ||
      ftpool_font_glyph(font, face, first, 0, &glyph) != FTPOOL_OK)
    return 2;
  for (FT_ULong c = 'a'; c <= 'z'; c++) {
    const ftpool_glyph *other;
    if (ftpool_font_glyph(font, face, reference.Index(c), 0, &other) !=
        FTPOOL_OK)
      return 2;
  }
  ftpool_stats s;
  ftpool_get_stats(pool, &s);
  const size_t misses = s.glyph_misses;
  if (ftpool_font_glyph(font, face, first, 0, &again) != FTPOOL_OK)
    return 2;
  ftpool_get_stats(pool, &s);
  std::printf("%zu glyphs evicted, %zu bytes awaiting; 'W' %s\n",
              s.glyph_evictions, s.glyph_bytes_awaiting,
              s.glyph_misses == misses + 1 ? "evicted" : "still cached");
  if (s.glyph_misses != misses + 1 || again == glyph)
    return 2;
  std::printf("reading the evicted copy of 'W'\n");
  std::fflush(stdout);
  const std::string difference = GlyphDifference(glyph, want);
  if (!difference.empty())
    std::printf("the evicted copy of 'W' changed: %s\n", difference.c_str());
  ftpool_font_give_back(font, face);
  ftpool_font_release(font);
  ftpool_destroy(pool);
  if (memory.outstanding_bytes() != 0) {
    std::printf("%ld bytes left after ftpool_destroy\n",
                memory.outstanding_bytes());
    return 1;
  }
  return difference.empty() ? 0 : 1;
}

int PerThreadChild() { return ReadAnEvictedGlyph(FTPOOL_BACKEND_PER_THREAD); }
int SharedMutexChild() {
  return ReadAnEvictedGlyph(FTPOOL_BACKEND_SHARED_MUTEX);
}
const bool registered =
    RegisterChildMode("evicted-read-PerThread", &PerThreadChild) &&
    RegisterChildMode("evicted-read-SharedMutex", &SharedMutexChild);

class GlyphEvictedReadTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  std::string Mode() const {
    return std::string("evicted-read-") +
           (GetParam() == FTPOOL_BACKEND_PER_THREAD ? "PerThread"
                                                    : "SharedMutex");
  }
};

TEST_P(GlyphEvictedReadTest, AGlyphEvictedByItsOwnThreadStaysReadable) {
  if (!kRetired) {
#ifndef __SANITIZE_ADDRESS__
    GTEST_SKIP() << "negative control: only AddressSanitizer sees the read "
                    "of a glyph freed at its eviction; this build checks "
                    "nothing (run it with --config=asan)";
#endif
    // The same scenario every run, caught every run.
    ExpectUseAfterFreeEveryRun(Mode(), "reading the evicted copy");
    return;
  }
  EXPECT_EQ(ReadAnEvictedGlyph(GetParam()), 0);
  // And in a child, as the control runs it: a clean exit, no report.
  ExpectCleanRun(Mode());
}

INSTANTIATE_TEST_SUITE_P(Backends, GlyphEvictedReadTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
