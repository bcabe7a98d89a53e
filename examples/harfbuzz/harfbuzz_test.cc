// SPDX-License-Identifier: MIT
// HarfBuzz shaping on pool faces in 8 threads, several rounds, with faces
// closed by their own thread, by a neighbour while the opener lives, and by
// the main thread after the opener exited: every run must equal the
// single-threaded one, glyph ids and positions alike. Then the same with one
// shared font (ftpool_font) and an hb_font_t kept on each of its instances,
// and the negative control: one FT_Face shared with no lock.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <hb-ft.h>
#include <hb.h>

#include "examples/harfbuzz/shaped_run.h"
#include "ftpool.hpp"
#include "test/support/child_process.h"

namespace {

using ftpool_test::ShapedGlyph;
using ftpool_test::ShapedRun;
using ftpool_test::ShapeText;

const char kSans[] = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
constexpr int kThreads = 8;
constexpr int kRounds = 4;

const char kParagraph[] =
    "The office staff affirmed that the final workflow was efficient. "
    "AVATAR WAVE: To Tyre, Ty Yoke, LT VA. "
    "Caf\u00e9 na\u00efve fa\u00e7ade, r\u00e9sum\u00e9, \u00c5ngstr\u00f6m.";

// Arabic: joining forms (GSUB) and vowel marks placed on their bases by
// GPOS mark attachment, so offsets are not all zero.
const char kArabic[] =
    "\u0628\u0650\u0633\u0652\u0645\u0650 "
    "\u0627\u0644\u0644\u0651\u064e\u0647\u0650 "
    "\u0627\u0644\u0631\u0651\u064e\u062d\u0652\u0645\u064e\u0646\u0650 "
    "\u0645\u0631\u062d\u0628\u0627 "
    "\u0628\u0627\u0644\u0639\u0627\u0644\u0645";
const char *const kTexts[] = {kParagraph, kArabic};
constexpr int kTextCount = 2;

struct FontDeleter {
  void operator()(hb_font_t *font) const { hb_font_destroy(font); }
};

// Shapes kParagraph at 16 px. The font is destroyed before this returns, so
// HarfBuzz's reference to the face is dropped on the face's thread.
ShapedRun Shape(FT_Face face) {
  EXPECT_EQ(FT_Set_Pixel_Sizes(face, 0, 16), 0);
  std::unique_ptr<hb_font_t, FontDeleter> font(
      hb_ft_font_create_referenced(face));
  return ShapeText(font.get(), kParagraph);
}

// Shaped on a face of a plain FT_Library, outside any pool.
ShapedRun ReferenceRun() {
  FT_Library library;
  FT_Face face;
  EXPECT_EQ(FT_Init_FreeType(&library), 0);
  EXPECT_EQ(FT_New_Face(library, kSans, 0, &face), 0);
  ShapedRun glyphs = Shape(face);
  FT_Done_FreeType(library);
  return glyphs;
}

// Single use: every thread waits until all have arrived.
class Latch {
public:
  explicit Latch(int count) : count_(count) {}
  void ArriveAndWait() {
    std::unique_lock<std::mutex> lock(mutex_);
    if (--count_ == 0)
      arrived_.notify_all();
    arrived_.wait(lock, [this] { return count_ == 0; });
  }

private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  int count_;
};

class HarfBuzzTest : public ::testing::TestWithParam<ftpool_backend> {};

TEST_P(HarfBuzzTest, ThreadsShapeLikeOneThread) {
  const ShapedRun reference = ReferenceRun();
  ASSERT_FALSE(reference.empty());
  for (const ShapedGlyph &glyph : reference)
    ASSERT_NE(glyph.id, 0u) << "a character DejaVu Sans lacks";

  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = GetParam();
  ftpool_cpp::Pool pool = ftpool_cpp::Pool::create(&config);
  ftpool_cpp::Blob blob = pool.blob_from_file(kSans);

  for (int round = 0; round < kRounds; round++) {
    ShapedRun runs[kThreads];
    ftpool_cpp::Face to_neighbour[kThreads];
    std::vector<ftpool_cpp::Face> to_main(kThreads);
    Latch handed(kThreads), closed(kThreads);
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreads; i++) {
      threads.emplace_back([&, i] {
        ftpool_cpp::Face face =
            i % 2 ? pool.open_file(kSans) : pool.open_blob(blob);
        runs[i] = Shape(face.get());
        // Thread i % 3 == 0 closes its own face when `face` goes away.
        if (i % 3 == 1)
          to_neighbour[(i + 1) % kThreads] = std::move(face);
        else if (i % 3 == 2)
          to_main[i] = std::move(face);
        handed.ArriveAndWait();
        to_neighbour[i].reset(); // its opener is alive: handed back to it
        closed.ArriveAndWait();
      });
    }
    for (std::thread &thread : threads)
      thread.join();
    to_main.clear(); // their openers have exited

    ftpool_stats stats = pool.stats();
    EXPECT_EQ(stats.faces_open, 0u) << "round " << round;
    EXPECT_EQ(stats.faces_opened,
              static_cast<std::size_t>(round + 1) * kThreads);
    for (int i = 0; i < kThreads; i++)
      EXPECT_EQ(runs[i], reference) << "round " << round << ", thread " << i;
  }
  if (GetParam() == FTPOOL_BACKEND_PER_THREAD) {
    EXPECT_GT(pool.stats().closes_deferred, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Backends, HarfBuzzTest,
    ::testing::Values(FTPOOL_BACKEND_PER_THREAD, FTPOOL_BACKEND_SHARED_MUTEX),
    [](const ::testing::TestParamInfo<ftpool_backend> &p) {
      return std::string(p.param == FTPOOL_BACKEND_PER_THREAD ? "PerThread"
                                                              : "SharedMutex");
    });

// --- one shared font --------------------------------------------------------

using Runs = std::vector<ShapedRun>; // one per kTexts

// Each of kTexts shaped at `pixels` on a face of a plain FT_Library.
Runs ReferenceRuns(FT_UInt pixels) {
  FT_Library library;
  FT_Face face;
  EXPECT_EQ(FT_Init_FreeType(&library), 0);
  EXPECT_EQ(FT_New_Face(library, kSans, 0, &face), 0);
  EXPECT_EQ(FT_Set_Pixel_Sizes(face, 0, pixels), 0);
  std::unique_ptr<hb_font_t, FontDeleter> font(
      hb_ft_font_create_referenced(face));
  Runs runs;
  for (const char *text : kTexts)
    runs.push_back(ShapeText(font.get(), text));
  font.reset();
  FT_Done_FreeType(library);
  return runs;
}

std::atomic<int> hb_fonts_made{0}, hb_fonts_destroyed{0};

void DestroyHbFont(void *font) {
  hb_font_destroy(static_cast<hb_font_t *>(font));
  hb_fonts_destroyed++;
}

// The hb_font_t kept on the acquired face's instance, made on its first use.
// hb-ft reads the face's scale once, when the hb_font is made, and uses
// the face's active FT_Size for advances and extents. Both stay right for
// the instance's life with no hb_ft_font_changed: the instance has an
// FT_Size of its own, which every acquire makes active again with the
// font's size, on the one face the instance keeps. An instance moved to
// another face (a font of the same bytes at another size was held on its
// face) loses its data, destroyed through DestroyHbFont, and gets a new
// hb_font here.
hb_font_t *InstanceHbFont(const ftpool_cpp::FontFace &face) {
  if (void *kept = face.data())
    return static_cast<hb_font_t *>(kept);
  hb_font_t *font = hb_ft_font_create_referenced(face.get());
  face.set_data(font, DestroyHbFont);
  hb_fonts_made++;
  return font;
}

// Shapes kTexts on the font's instance; returns how many differ from
// `expected`.
int WrongRuns(const ftpool_cpp::Font &font, const Runs &expected) {
  ftpool_cpp::FontFace face = font.acquire();
  hb_font_t *hb_font = InstanceHbFont(face);
  int wrong = 0;
  for (int t = 0; t < kTextCount; t++)
    if (ShapeText(hb_font, kTexts[t]) != expected[t])
      wrong++;
  return wrong;
}

// UTF-8 code points, to see ligatures (fewer glyphs than characters).
std::size_t CodePoints(const char *text) {
  std::size_t count = 0;
  for (const char *p = text; *p; p++)
    count += (*p & 0xC0) != 0x80;
  return count;
}

void CheckReference(const Runs &runs) {
  ASSERT_EQ(runs.size(), std::size_t{kTextCount});
  for (const ShapedRun &run : runs)
    for (const ShapedGlyph &glyph : run)
      ASSERT_NE(glyph.id, 0u) << "a character DejaVu Sans lacks";
  EXPECT_LT(runs[0].size(), CodePoints(kTexts[0])) << "no ligature";
  int marks_moved = 0;
  for (const ShapedGlyph &glyph : runs[1])
    marks_moved += glyph.x_offset != 0 || glyph.y_offset != 0;
  EXPECT_GT(marks_moved, 0) << "no Arabic mark positioned";
}

class SharedFontTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  void SetUp() override {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    pool_ = ftpool_cpp::Pool::create(&config);
    hb_fonts_made = hb_fonts_destroyed = 0;
  }
  bool per_thread() const { return GetParam() == FTPOOL_BACKEND_PER_THREAD; }
  ftpool_cpp::Font SansFont(FT_UInt pixels) const {
    return pool_.font(ftpool_cpp::FontDesc().file(kSans).pixel_size(pixels));
  }

  ftpool_cpp::Pool pool_;
};

TEST_P(SharedFontTest, ThreadsShapeOnOneFontLikeOneThread) {
  const Runs reference = ReferenceRuns(16);
  CheckReference(reference);
  ftpool_cpp::Font font = SansFont(16);
  std::atomic<int> wrong{0};
  Latch done(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++)
    threads.emplace_back([&] {
      for (int round = 0; round < kRounds; round++)
        wrong += WrongRuns(font, reference);
      // Alive together, the threads have a context (and instance) each.
      done.ArriveAndWait();
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  // One hb_font per instance, reused by every later acquire: one per
  // thread, or the shared-mutex backend's one for the font.
  EXPECT_EQ(hb_fonts_made, per_thread() ? kThreads : 1);
  EXPECT_EQ(pool_.stats().font_instances, per_thread() ? kThreads + 1u : 1u);
  // The threads' instances outlived them, hb_fonts and all, until the
  // font's last release.
  EXPECT_EQ(hb_fonts_destroyed, 0);
  font.reset();
  EXPECT_EQ(hb_fonts_destroyed, hb_fonts_made);
  EXPECT_EQ(pool_.stats().font_instances, 0u);
}

// Fonts of the same bytes at two sizes share one face per context (each
// instance with its own FT_Size), so their hb_fonts sit on one FT_Face.
TEST_P(SharedFontTest, SizesSharingAFaceKeepTheirOwnScale) {
  const Runs small_reference = ReferenceRuns(12);
  const Runs large_reference = ReferenceRuns(24);
  CheckReference(small_reference);
  ASSERT_NE(small_reference, large_reference);
  ftpool_cpp::Font small = SansFont(12);
  ftpool_cpp::Font large = SansFont(24);
  EXPECT_EQ(pool_.stats().font_faces, per_thread() ? 1u : 2u);
  for (int round = 0; round < 3; round++) {
    EXPECT_EQ(WrongRuns(small, small_reference), 0) << "round " << round;
    EXPECT_EQ(WrongRuns(large, large_reference), 0) << "round " << round;
  }
  EXPECT_EQ(hb_fonts_made, 2);
  {
    // Held together they need two faces: the large font's instance moves
    // to a face of its own, and its hb_font, made on the old face, goes.
    ftpool_cpp::FontFace held = small.acquire();
    EXPECT_EQ(WrongRuns(large, large_reference), 0);
    EXPECT_EQ(ShapeText(InstanceHbFont(held), kTexts[0]), small_reference[0]);
  }
  EXPECT_EQ(hb_fonts_made, per_thread() ? 3 : 2);
  EXPECT_EQ(hb_fonts_destroyed, per_thread() ? 1 : 0);
  EXPECT_EQ(WrongRuns(large, large_reference), 0);
  EXPECT_EQ(WrongRuns(small, small_reference), 0);
  EXPECT_EQ(hb_fonts_made, per_thread() ? 3 : 2);
  small.reset();
  large.reset();
  EXPECT_EQ(hb_fonts_destroyed, hb_fonts_made);
}

TEST_P(SharedFontTest, PoolDestructionDestroysTheHbFonts) {
  ftpool_cpp::Font font = SansFont(16);
  EXPECT_EQ(WrongRuns(font, ReferenceRuns(16)), 0);
  std::thread([&] { EXPECT_EQ(WrongRuns(font, ReferenceRuns(16)), 0); }).join();
  EXPECT_EQ(hb_fonts_made, per_thread() ? 2 : 1);
  (void)font.release(); // never released: the pool's destruction frees it
  pool_ = ftpool_cpp::Pool();
  EXPECT_EQ(hb_fonts_destroyed, hb_fonts_made);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, SharedFontTest,
    ::testing::Values(FTPOOL_BACKEND_PER_THREAD, FTPOOL_BACKEND_SHARED_MUTEX),
    [](const ::testing::TestParamInfo<ftpool_backend> &p) {
      return std::string(p.param == FTPOOL_BACKEND_PER_THREAD ? "PerThread"
                                                              : "SharedMutex");
    });

// The negative control: what the shared font replaces, one FT_Face for all
// threads with no lock, each thread shaping with its own hb_font on it. Not
// one hb_font for all: hb-ft locks a mutex of its own around every FreeType
// call it makes for one hb_font (hb_ft_font_lock_face), so that shares
// correctly, one thread at a time, and no test could catch it.
int OneFaceChild() {
  const Runs reference = ReferenceRuns(16);
  FT_Library library;
  FT_Face face;
  if (FT_Init_FreeType(&library) || FT_New_Face(library, kSans, 0, &face) ||
      FT_Set_Pixel_Sizes(face, 0, 16))
    return 2;
  // Made here, one after the other: FT_Reference_Face is not thread-safe
  // either, and the race under test is the shaping.
  std::vector<hb_font_t *> fonts;
  for (int i = 0; i < kThreads; i++)
    fonts.push_back(hb_ft_font_create_referenced(face));
  std::atomic<int> wrong{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++)
    threads.emplace_back([&, i] {
      while (!go) // start together: the point is to overlap
        std::this_thread::yield();
      for (int round = 0; round < 100; round++)
        for (int t = 0; t < kTextCount; t++)
          if (ShapeText(fonts[i], kTexts[t]) != reference[t])
            wrong++;
    });
  go = true;
  for (std::thread &thread : threads)
    thread.join();
  for (hb_font_t *font : fonts)
    hb_font_destroy(font);
  FT_Done_FreeType(library);
  std::printf("one face, no lock: %d wrong runs of %d\n", wrong.load(),
              kThreads * 100 * kTextCount);
  return wrong == 0 ? 0 : 1;
}

const bool registered =
    ftpool_test::RegisterChildMode("one-face", &OneFaceChild);

TEST(SharedFontNegativeControl, CatchesOneFaceSharedWithNoLock) {
  for (int attempt = 1; attempt <= 3; attempt++) {
    ftpool_test::ChildResult child = ftpool_test::RunSelf("one-face", 120);
    ASSERT_FALSE(child.exited && child.exit_code == 2) << child.Describe();
    if (!(child.exited && child.exit_code == 0)) {
      std::printf("caught on attempt %d: %s\n", attempt,
                  child.Describe().c_str());
      return;
    }
  }
  FAIL() << "three runs on one face with no lock went unnoticed";
}

} // namespace
