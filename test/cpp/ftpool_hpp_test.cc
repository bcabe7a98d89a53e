// SPDX-License-Identifier: MIT
// Tests of the C++ handles in ftpool.hpp, on both backends.
#include <atomic>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.hpp"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"

namespace {

using ftpool_test::kSans;

// Long enough that no driver mistakes it for a truncated font of its own.
const std::vector<unsigned char> kGarbage(4096, 0x5A);

static_assert(!std::is_copy_constructible_v<ftpool_cpp::Pool> &&
              !std::is_copy_constructible_v<ftpool_cpp::Face> &&
              !std::is_copy_constructible_v<ftpool_cpp::Blob>);
static_assert(std::is_nothrow_move_constructible_v<ftpool_cpp::Face> &&
              std::is_nothrow_move_assignable_v<ftpool_cpp::Face>);

class HppTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  void SetUp() override {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    config.memory = memory_.get();
    pool_ = ftpool_cpp::Pool::create(&config);
  }
  void TearDown() override {
    pool_ = ftpool_cpp::Pool();
    EXPECT_EQ(memory_.outstanding_blocks(), 0);
  }
  bool per_thread() const { return GetParam() == FTPOOL_BACKEND_PER_THREAD; }

  ftpool_test::CountingMemory memory_;
  ftpool_cpp::Pool pool_;
};

TEST_P(HppTest, FaceClosesWhenDestroyed) {
  {
    ftpool_cpp::Face face = pool_.open_file(kSans);
    ASSERT_TRUE(face);
    EXPECT_EQ(face.pool(), pool_.get());
    EXPECT_STREQ(face->family_name, "DejaVu Sans");
    EXPECT_EQ(FT_Set_Pixel_Sizes(face.get(), 0, 16), 0);
    EXPECT_EQ(pool_.stats().faces_open, 1u);
  }
  ftpool_stats stats = pool_.stats();
  EXPECT_EQ(stats.faces_open, 0u);
  EXPECT_EQ(stats.faces_closed, 1u);
}

TEST_P(HppTest, ResetClosesNowAndReleaseGivesTheFaceAway) {
  ftpool_cpp::Face face = pool_.open_file(kSans);
  EXPECT_EQ(face.reset(), FTPOOL_OK);
  EXPECT_FALSE(face);
  EXPECT_EQ(face.reset(), FTPOOL_OK);
  EXPECT_EQ(pool_.stats().faces_open, 0u);

  face = pool_.open_file(kSans);
  FT_Face raw = face.release();
  EXPECT_FALSE(face);
  EXPECT_EQ(face.pool(), nullptr);
  EXPECT_EQ(pool_.stats().faces_open, 1u);
  EXPECT_EQ(ftpool_close(pool_.get(), raw), FTPOOL_OK);
  EXPECT_EQ(pool_.stats().faces_open, 0u);
}

TEST_P(HppTest, MovedFromFaceClosesNothing) {
  ftpool_cpp::Face a = pool_.open_file(kSans);
  FT_Face raw = a.get();
  ftpool_cpp::Face b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(b.get(), raw);
  a.reset();
  a = ftpool_cpp::Face();
  EXPECT_EQ(pool_.stats().faces_closed, 0u);

  ftpool_cpp::Face c;
  c = std::move(b);
  EXPECT_EQ(c.get(), raw);
  EXPECT_EQ(pool_.stats().faces_closed, 0u);
  c.close();
  EXPECT_EQ(pool_.stats().faces_closed, 1u);
}

TEST_P(HppTest, MoveAssignmentClosesTheFaceItReplaces) {
  ftpool_cpp::Face a = pool_.open_file(kSans);
  ftpool_cpp::Face b = pool_.open_file(kSans);
  FT_Face raw = b.get();
  a = std::move(b);
  EXPECT_EQ(a.get(), raw);
  ftpool_stats stats = pool_.stats();
  EXPECT_EQ(stats.faces_open, 1u);
  EXPECT_EQ(stats.faces_closed, 1u);
}

TEST_P(HppTest, SelfMoveKeepsTheFace) {
  ftpool_cpp::Face face = pool_.open_file(kSans);
  FT_Face raw = face.get();
  ftpool_cpp::Face &alias = face; // a plain self-move would be warned about
  face = std::move(alias);
  EXPECT_EQ(face.get(), raw);
  EXPECT_EQ(pool_.stats().faces_open, 1u);
  EXPECT_STREQ(face->family_name, "DejaVu Sans");
}

TEST_P(HppTest, FaceDestroyedOnAnotherThreadClosesThroughThePool) {
  ftpool_cpp::Face face = pool_.open_file(kSans);
  std::thread closer([&face] { ftpool_cpp::Face mine = std::move(face); });
  closer.join();
  EXPECT_FALSE(face);
  ftpool_stats stats = pool_.stats();
  if (per_thread()) {
    // The owner (this thread) is alive: the close waits in its mailbox.
    EXPECT_EQ(stats.closes_deferred, 1u);
    EXPECT_EQ(stats.faces_open, 1u);
    pool_.collect();
    stats = pool_.stats();
    EXPECT_EQ(stats.closes_drained, 1u);
  }
  EXPECT_EQ(stats.faces_open, 0u);
  EXPECT_EQ(stats.faces_closed, 1u);
}

TEST_P(HppTest, FaceOutlivesTheThreadThatOpenedIt) {
  ftpool_cpp::Face face;
  std::thread opener([&] { face = pool_.open_file(kSans); });
  opener.join();
  EXPECT_STREQ(face->family_name, "DejaVu Sans");
  face.reset();
  ftpool_stats stats = pool_.stats();
  EXPECT_EQ(stats.faces_open, 0u);
  EXPECT_EQ(stats.faces_closed, 1u);
  if (per_thread()) {
    EXPECT_EQ(stats.contexts_adopted, 1u);
  }
}

// Spins until all `count` threads have arrived.
void ArriveAndWait(std::atomic<int> &arrived, int count) {
  arrived++;
  while (arrived.load() < count)
    std::this_thread::yield();
}

TEST_P(HppTest, FacesHandedBetweenThreadsAllClose) {
  constexpr int kThreads = 4;
  constexpr int kFacesEach = 8;
  std::mutex mutex;
  std::vector<ftpool_cpp::Face> handed[kThreads];
  std::atomic<int> opened{0}, closed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++) {
    threads.emplace_back([&, i] {
      for (int n = 0; n < kFacesEach; n++) {
        ftpool_cpp::Face face = pool_.open_file(kSans);
        std::lock_guard<std::mutex> lock(mutex);
        handed[(i + 1) % kThreads].push_back(std::move(face));
      }
      ArriveAndWait(opened, kThreads);
      std::vector<ftpool_cpp::Face> mine;
      {
        std::lock_guard<std::mutex> lock(mutex);
        mine.swap(handed[i]);
      }
      EXPECT_EQ(mine.size(), static_cast<std::size_t>(kFacesEach));
      mine.clear();
      // Keeps every owner alive until all faces are closed, so that the
      // closes are handed over and the owners carry them out as they exit.
      ArriveAndWait(closed, kThreads);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  ftpool_stats stats = pool_.stats();
  EXPECT_EQ(stats.faces_opened,
            static_cast<std::size_t>(kThreads) * kFacesEach);
  EXPECT_EQ(stats.faces_open, 0u);
  EXPECT_EQ(stats.faces_closed, stats.faces_opened);
  if (per_thread()) {
    EXPECT_EQ(stats.closes_deferred, stats.faces_opened);
  }
}

TEST_P(HppTest, MissingFileThrowsCannotOpen) {
  try {
    (void)pool_.open_file("/nonexistent/font.ttf");
    FAIL() << "no exception";
  } catch (const ftpool_cpp::Error &error) {
    EXPECT_EQ(error.status(), FTPOOL_ERR_CANNOT_OPEN);
    EXPECT_NE(std::strstr(error.what(), "ftpool_open_file: "), nullptr);
  }
  ftpool_cpp::Face face;
  EXPECT_EQ(pool_.try_open_file("/nonexistent/font.ttf", 0, face),
            FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_FALSE(face);
}

TEST_P(HppTest, BadBytesThrowUnknownFormatWithFreeTypesError) {
  try {
    (void)pool_.open_memory(kGarbage.data(), kGarbage.size());
    FAIL() << "no exception";
  } catch (const ftpool_cpp::Error &error) {
    EXPECT_EQ(error.status(), FTPOOL_ERR_UNKNOWN_FORMAT);
    EXPECT_EQ(error.ft_error(), FT_Err_Unknown_File_Format);
  }
  // A failed try_ leaves the out handle as it was.
  ftpool_cpp::Face face = pool_.open_file(kSans);
  FT_Face raw = face.get();
  EXPECT_EQ(pool_.try_open_memory(kGarbage.data(), kGarbage.size(), 0, face),
            FTPOOL_ERR_UNKNOWN_FORMAT);
  EXPECT_EQ(face.get(), raw);
  EXPECT_EQ(ftpool_last_ft_error(), FT_Err_Unknown_File_Format);
}

TEST_P(HppTest, MissingFaceIndexThrowsFaceIndex) {
  try {
    (void)pool_.open_file(kSans, 7);
    FAIL() << "no exception";
  } catch (const ftpool_cpp::Error &error) {
    EXPECT_EQ(error.status(), FTPOOL_ERR_FACE_INDEX);
  }
}

TEST_P(HppTest, ForeignFaceIsReportedAndLeftToItsPool) {
  ftpool_cpp::Pool other = ftpool_cpp::Pool::create();
  FT_Face raw = other.open_file(kSans).release();

  ftpool_cpp::Face wrong(pool_.get(), raw);
  try {
    wrong.close();
    FAIL() << "no exception";
  } catch (const ftpool_cpp::Error &error) {
    EXPECT_EQ(error.status(), FTPOOL_ERR_FOREIGN_FACE);
    EXPECT_EQ(error.ft_error(), 0);
  }
  EXPECT_FALSE(wrong);

  // The destructor cannot report it: the face stays open in its own pool.
  { ftpool_cpp::Face also_wrong(pool_.get(), raw); }
  EXPECT_EQ(other.stats().faces_open, 1u);
  EXPECT_EQ(ftpool_close(other.get(), raw), FTPOOL_OK);
}

TEST_P(HppTest, PoolDestructionClosesFacesGivenAway) {
  EXPECT_NE(pool_.open_file(kSans).release(), nullptr);
  ftpool_cpp::Blob blob = pool_.blob_from_file(kSans);
  EXPECT_NE(pool_.open_blob(blob).release(), nullptr);
  blob.reset();
  EXPECT_EQ(pool_.stats().faces_open, 2u);
  // TearDown destroys the pool and checks that every block came back.
}

TEST_P(HppTest, MovedPoolKeepsItsFacesAndDestroysOnce) {
  ftpool_cpp::Pool pool = std::move(pool_);
  EXPECT_FALSE(pool_);
  EXPECT_FALSE(pool_.owns());
  {
    ftpool_cpp::Face face = pool.open_file(kSans);
    EXPECT_EQ(pool.stats().faces_open, 1u);
  }
  // Assigning over an owning pool destroys the one it held.
  pool = ftpool_cpp::Pool::create();
  EXPECT_EQ(memory_.outstanding_blocks(), 0);
}

TEST_P(HppTest, BlobsShareBytesWithFacesAndOtherThreads) {
  ftpool_cpp::Blob blob = pool_.blob_from_file(kSans);
  ASSERT_TRUE(blob);
  EXPECT_GT(blob.size(), 0u);
  EXPECT_EQ(std::memcmp(blob.data(), "\0\1\0\0", 4), 0);

  ftpool_cpp::Blob shared = blob.share();
  EXPECT_EQ(shared.get(), blob.get());
  ftpool_cpp::Face face = pool_.open_blob(shared);
  std::thread([&shared] { ftpool_cpp::Blob mine = std::move(shared); }).join();
  blob.reset();
  EXPECT_STREQ(face->family_name, "DejaVu Sans");
  EXPECT_GT(pool_.stats().blob_bytes_live, 0u);

  ftpool_cpp::Blob copy = pool_.blob_copy(kGarbage.data(), kGarbage.size());
  try {
    (void)pool_.open_blob(copy);
    FAIL() << "no exception";
  } catch (const ftpool_cpp::Error &error) {
    EXPECT_EQ(error.status(), FTPOOL_ERR_UNKNOWN_FORMAT);
  }
}

// --- shared fonts -----------------------------------------------------------

const char kText[] = "Hxg";

static_assert(!std::is_copy_constructible_v<ftpool_cpp::Font> &&
              !std::is_copy_constructible_v<ftpool_cpp::FontFace>);
static_assert(std::is_nothrow_move_constructible_v<ftpool_cpp::FontFace> &&
              std::is_nothrow_move_assignable_v<ftpool_cpp::FontFace>);
// A FontDesc is the C description, so the C API takes it as it is.
static_assert(std::is_base_of_v<ftpool_font_desc, ftpool_cpp::FontDesc>);

// Counts instance data destroyed, and checks it is the data that was made.
struct Counted {
  static std::atomic<int> destroyed;
  static void Destroy(void *data) {
    EXPECT_EQ(static_cast<Counted *>(data)->magic, 0xC0FFEE);
    delete static_cast<Counted *>(data);
    destroyed++;
  }
  int magic = 0xC0FFEE;
};
std::atomic<int> Counted::destroyed{0};

TEST_P(HppTest, FontFacesRenderAsPlainFreeType) {
  ASSERT_FONT_PRESENT(ftpool_test::kVariable);
  ftpool_cpp::Font sans =
      pool_.font(ftpool_cpp::FontDesc().file(kSans).pixel_size(24));
  ftpool_cpp::Blob serif_bytes = pool_.blob_from_file(ftpool_test::kSerif);
  ftpool_cpp::Font serif = pool_.font(
      ftpool_cpp::FontDesc().bytes(serif_bytes).char_size(18 * 64, 96));
  const FT_Fixed bold[] = {700 << 16};
  ftpool_cpp::Font variable = pool_.font(ftpool_cpp::FontDesc()
                                             .file(ftpool_test::kVariable)
                                             .variation(bold, 1)
                                             .pixel_size(24));
  serif_bytes.reset(); // the font holds its own reference
  for (int round = 0; round < 2; round++) {
    {
      ftpool_cpp::FontFace face = sans.acquire();
      ASSERT_TRUE(face);
      EXPECT_EQ(face.font(), sans.get());
      EXPECT_STREQ(face->family_name, "DejaVu Sans");
      EXPECT_EQ(ftpool_test::RenderDigestAsIs(face.get(), kText),
                ftpool_test::ReferenceDigest(kSans, 0, 24, {}, kText));
    }
    {
      // 18 pt at 96 dpi is 24 px.
      ftpool_cpp::FontFace face = serif.acquire();
      EXPECT_EQ(
          ftpool_test::RenderDigestAsIs(face.get(), kText),
          ftpool_test::ReferenceDigest(ftpool_test::kSerif, 0, 24, {}, kText));
    }
    ftpool_cpp::FontFace face = variable.acquire();
    EXPECT_EQ(ftpool_test::RenderDigestAsIs(face.get(), kText),
              ftpool_test::ReferenceDigest(ftpool_test::kVariable, 0, 24,
                                           {700 << 16}, kText));
  }
  const ftpool_stats stats = pool_.stats();
  EXPECT_EQ(stats.fonts, 3u);
  EXPECT_EQ(stats.font_instances_created, 3u); // the second round was warm
}

TEST_P(HppTest, ThreadsShareOneFont) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 20;
  const uint64_t expected =
      ftpool_test::ReferenceDigest(kSans, 0, 24, {}, kText);
  ASSERT_NE(expected, 0u);
  ftpool_cpp::Font font =
      pool_.font(ftpool_cpp::FontDesc().file(kSans).pixel_size(24));
  std::atomic<int> wrong{0}, done{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++) {
    // Half the threads hold a reference of their own, dropped there.
    ftpool_cpp::Font mine = i % 2 ? font.share() : ftpool_cpp::Font();
    threads.emplace_back([&, mine = std::move(mine)] {
      const ftpool_cpp::Font &use = mine ? mine : font;
      for (int round = 0; round < kRounds; round++) {
        ftpool_cpp::FontFace face = use.acquire();
        if (ftpool_test::RenderDigestAsIs(face.get(), kText) != expected)
          wrong++;
      }
      // Every thread keeps its context until all are done, so that none
      // recycles another's and its instance.
      ArriveAndWait(done, kThreads);
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  ftpool_stats stats = pool_.stats();
  // Per thread: one instance each, and main's (made by the font's creation).
  EXPECT_EQ(stats.font_instances, per_thread() ? kThreads + 1u : 1u);
  EXPECT_EQ(stats.fonts, 1u);
  font.reset();
  stats = pool_.stats();
  EXPECT_EQ(stats.fonts, 0u);
  // The threads are gone: the release closed their instances itself.
  EXPECT_EQ(stats.font_instances, 0u);
  EXPECT_EQ(stats.font_faces, 0u);
}

TEST_P(HppTest, FontMadeAndDroppedOnOtherThreads) {
  ftpool_cpp::Font font;
  std::thread([&] {
    font = pool_.font(ftpool_cpp::FontDesc().file(kSans).pixel_size(24));
  }).join();
  {
    ftpool_cpp::FontFace face = font.acquire();
    EXPECT_EQ(ftpool_test::RenderDigestAsIs(face.get(), kText),
              ftpool_test::ReferenceDigest(kSans, 0, 24, {}, kText));
  }
  std::thread([mine = std::move(font)]() mutable { mine.reset(); }).join();
  EXPECT_FALSE(font);
  EXPECT_EQ(pool_.stats().fonts, 0u);
  // Main's own instance was handed to main: it goes at main's next call.
  pool_.collect();
  EXPECT_EQ(pool_.stats().font_instances, 0u);
}

TEST_P(HppTest, FontFaceMovesAndGivesBackOnce) {
  ftpool_cpp::Font sans =
      pool_.font(ftpool_cpp::FontDesc().file(kSans).pixel_size(24));
  ftpool_cpp::Font serif = pool_.font(
      ftpool_cpp::FontDesc().file(ftpool_test::kSerif).pixel_size(24));
  ftpool_cpp::FontFace a = sans.acquire();
  const FT_Face raw = a.get();
  ftpool_cpp::FontFace b = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(a.give_back(), FTPOOL_OK); // empty: nothing to give back
  EXPECT_EQ(b.get(), raw);
  std::vector<ftpool_cpp::FontFace> kept;
  kept.push_back(std::move(b));
  kept.emplace_back(sans.acquire()); // acquired again: the same face
  EXPECT_EQ(kept[1].get(), raw);
  kept.pop_back();
  // Still acquired once: the face works and is still this font's.
  EXPECT_EQ(ftpool_test::RenderDigestAsIs(kept[0].get(), kText),
            ftpool_test::ReferenceDigest(kSans, 0, 24, {}, kText));
  // Move-assigning gives back the face it replaces.
  kept[0] = serif.acquire();
  EXPECT_STREQ(kept[0]->family_name, "DejaVu Serif");
  EXPECT_EQ(ftpool_font_give_back(sans.get(), raw), FTPOOL_ERR_NOT_ACQUIRED);
  const FT_Face serif_raw = kept[0].get();
  ftpool_cpp::FontFace &alias = kept[0]; // a plain self-move would be warned
  kept[0] = std::move(alias);
  EXPECT_EQ(kept[0].get(), serif_raw);
  EXPECT_EQ(kept[0].give_back(), FTPOOL_OK);
  EXPECT_FALSE(kept[0]);
  EXPECT_EQ(ftpool_font_give_back(serif.get(), serif_raw),
            FTPOOL_ERR_NOT_ACQUIRED);
}

TEST_P(HppTest, BadFontDescriptionsThrowTheirStatus) {
  auto status_of = [&](const ftpool_cpp::FontDesc &desc) {
    try {
      (void)pool_.font(desc);
    } catch (const ftpool_cpp::Error &error) {
      EXPECT_NE(std::strstr(error.what(), "ftpool_font_create: "), nullptr);
      return error.status();
    }
    return FTPOOL_OK;
  };
  using ftpool_cpp::FontDesc;
  EXPECT_EQ(status_of(FontDesc().file(kSans)), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(status_of(FontDesc().pixel_size(24)), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(status_of(FontDesc().file("/nonexistent.ttf").pixel_size(24)),
            FTPOOL_ERR_CANNOT_OPEN);
  EXPECT_EQ(status_of(FontDesc().file(kSans).index(3).pixel_size(24)),
            FTPOOL_ERR_FACE_INDEX);
  const FT_Fixed weight[] = {500 << 16};
  EXPECT_EQ(
      status_of(FontDesc().file(kSans).variation(weight, 1).pixel_size(24)),
      FTPOOL_ERR_NOT_VARIABLE);
  EXPECT_EQ(status_of(FontDesc().file(kSans).char_size(0x7FFFFFFF)),
            FTPOOL_ERR_INVALID_SIZE);
  // DejaVu has no CPAL: palette 0 only; any foreground colour.
  const FT_Color red = {0, 0, 0xFF, 0xFF};
  EXPECT_EQ(status_of(FontDesc().file(kSans).pixel_size(24).palette(1)),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(status_of(FontDesc().file(kSans).pixel_size(24).foreground(&red)),
            FTPOOL_OK);
  ftpool_cpp::Blob junk = pool_.blob_copy(kGarbage.data(), kGarbage.size());
  try {
    (void)pool_.font(FontDesc().bytes(junk).pixel_size(24));
    FAIL() << "no exception";
  } catch (const ftpool_cpp::Error &error) {
    EXPECT_EQ(error.status(), FTPOOL_ERR_UNKNOWN_FORMAT);
    EXPECT_EQ(error.ft_error(), FT_Err_Unknown_File_Format);
  }
  // A failed try_ leaves the out handle as it was.
  ftpool_cpp::Font font = pool_.font(FontDesc().file(kSans).pixel_size(24));
  ftpool_font *raw = font.get();
  EXPECT_EQ(pool_.try_font(FontDesc().file(kSans), font),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(font.get(), raw);
  // An empty Font has nothing to acquire.
  ftpool_cpp::FontFace face;
  EXPECT_EQ(ftpool_cpp::Font().try_acquire(face), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_THROW((void)ftpool_cpp::Font().acquire(), ftpool_cpp::Error);
  EXPECT_EQ(face.try_set_data(nullptr, nullptr), FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(face.data(), nullptr);
  EXPECT_EQ(pool_.stats().fonts, 1u);
}

TEST_P(HppTest, InstanceDataIsDestroyedWithItsInstance) {
  Counted::destroyed = 0;
  ftpool_cpp::Font font =
      pool_.font(ftpool_cpp::FontDesc().file(kSans).pixel_size(24));
  {
    ftpool_cpp::FontFace face = font.acquire();
    EXPECT_EQ(face.data(), nullptr);
    face.set_data(new Counted, Counted::Destroy);
    face.set_data(new Counted, Counted::Destroy); // replaces: the first goes
    EXPECT_EQ(Counted::destroyed, 1);
  }
  void *kept;
  {
    ftpool_cpp::FontFace face = font.acquire(); // the same instance again
    kept = face.data();
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(static_cast<Counted *>(kept)->magic, 0xC0FFEE);
  }
  // Each thread attaches its own to its instance.
  constexpr int kThreads = 4;
  std::atomic<int> arrived{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; i++)
    threads.emplace_back([&] {
      {
        ftpool_cpp::FontFace face = font.acquire();
        if (!face.data())
          face.set_data(new Counted, Counted::Destroy);
      }
      // Given back first: with the shared-mutex backend a held face holds
      // the font's lock. Alive together, the threads have a context each.
      ArriveAndWait(arrived, kThreads);
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(Counted::destroyed, 1); // instances outlive their threads
  font.reset();
  // Per thread: main's and the four exited threads' instances went in the
  // release; shared mutex: the one instance, whose data the threads found.
  EXPECT_EQ(Counted::destroyed, per_thread() ? kThreads + 2 : 2);
  EXPECT_EQ(pool_.stats().font_instances, 0u);
}

TEST_P(HppTest, PoolDestructionFreesFontsGivenAway) {
  Counted::destroyed = 0;
  ftpool_cpp::Font font =
      pool_.font(ftpool_cpp::FontDesc().file(kSans).pixel_size(24));
  {
    ftpool_cpp::FontFace face = font.acquire();
    face.set_data(new Counted, Counted::Destroy);
  }
  EXPECT_NE(font.release(), nullptr);
  pool_ = ftpool_cpp::Pool(); // TearDown checks that every block came back
  EXPECT_EQ(Counted::destroyed, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, HppTest,
    ::testing::Values(FTPOOL_BACKEND_PER_THREAD, FTPOOL_BACKEND_SHARED_MUTEX),
    [](const ::testing::TestParamInfo<ftpool_backend> &p) {
      return std::string(p.param == FTPOOL_BACKEND_PER_THREAD ? "PerThread"
                                                              : "SharedMutex");
    });

TEST(DefaultPoolTest, BorrowedHandleLeavesThePoolAlive) {
  ftpool *raw;
  ASSERT_EQ(ftpool_default(&raw), FTPOOL_OK);
  {
    ftpool_cpp::Pool pool = ftpool_cpp::Pool::default_pool();
    EXPECT_EQ(pool.get(), raw);
    EXPECT_FALSE(pool.owns());
  }
  ftpool_cpp::Pool again;
  ASSERT_EQ(ftpool_cpp::Pool::try_default_pool(again), FTPOOL_OK);
  ftpool_cpp::Face face = again.open_file(kSans);
  EXPECT_STREQ(face->family_name, "DejaVu Sans");
}

TEST(NoPoolTest, TryCreateReportsABadConfig) {
  ftpool_config config;
  ftpool_config_init(&config);
  config.backend = static_cast<ftpool_backend>(42);
  ftpool_cpp::Pool pool;
  EXPECT_EQ(ftpool_cpp::Pool::try_create(&config, pool),
            FTPOOL_ERR_INVALID_ARGUMENT);
  EXPECT_FALSE(pool);
  EXPECT_THROW(ftpool_cpp::Pool::create(&config), ftpool_cpp::Error);
}

} // namespace
