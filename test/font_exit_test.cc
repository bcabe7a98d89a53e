// SPDX-License-Identifier: MIT
// Shared fonts, issue 20 of the outside review, on both backends: a thread
// that exits holding a font gives it back; fonts differing only in size
// share a face with the file cache off too; instance data destructors may
// not acquire or create a font, even when run by a replacement. A
// regression must fail, not hang: every wait has a deadline.
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "ftpool.h"
#include "test/support/counting_memory.h"
#include "test/support/fonts.h"
#include "test/support/pool_test_util.h"
#include "test/support/scratch_dir.h"

namespace ftpool_test {
namespace {

const char kText[] = "Hxg";
constexpr std::chrono::seconds kDeadline(10);

class FontExitTest : public ::testing::TestWithParam<ftpool_backend> {
protected:
  void TearDown() override {
    ftpool_destroy(pool_);
    if (!abandoned_) {
      EXPECT_EQ(memory_.outstanding_bytes(), 0);
    }
  }
  void MakePool(size_t file_cache_bytes = FTPOOL_DEFAULT_FILE_CACHE_BYTES,
                size_t idle_instances = FTPOOL_DEFAULT_FONT_IDLE_INSTANCES) {
    ftpool_config config;
    ftpool_config_init(&config);
    config.backend = GetParam();
    config.memory = memory_.get();
    config.file_cache_bytes = file_cache_bytes;
    config.font_idle_instances = idle_instances;
    ASSERT_EQ(ftpool_create(&config, &pool_), FTPOOL_OK);
  }
  ftpool_font *Font(const ftpool_font_desc &desc) {
    ftpool_font *font = nullptr;
    EXPECT_EQ(ftpool_font_create(pool_, &desc, &font), FTPOOL_OK);
    return font;
  }
  uint64_t Render(ftpool_font *font) {
    FT_Face face;
    if (ftpool_font_acquire(font, &face) != FTPOOL_OK)
      return 0;
    uint64_t digest = RenderDigestAsIs(face, kText);
    EXPECT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
    return digest;
  }
  // Renders on a new thread, joined (its exit must not overlap the pool's
  // destroy); false if that did not finish in time: the thread is then left
  // blocked and detached and the pool leaked (the lock it waits on is held
  // by a dead thread), the test fails and the binary ends.
  bool RenderOnAnotherThread(ftpool_font *font, uint64_t *digest) {
    auto done = std::make_shared<std::promise<uint64_t>>();
    std::future<uint64_t> result = done->get_future();
    std::thread renderer([this, font, done] { done->set_value(Render(font)); });
    if (result.wait_for(kDeadline) != std::future_status::ready) {
      renderer.detach();
      abandoned_ = true;
      return false;
    }
    renderer.join();
    *digest = result.get();
    return true;
  }

  CountingMemory memory_;
  ftpool *pool_ = nullptr;
  bool abandoned_ = false;
};

struct Tag {
  int *destroyed;
  static void Destroy(void *data) { ++*static_cast<Tag *>(data)->destroyed; }
};

// Bug 3: the shared-mutex backend had no exit hook, so the font's lock
// stayed owned by the dead thread and the next acquire blocked for ever.
TEST_P(FontExitTest, AThreadThatExitsHoldingAFontGivesItBack) {
  MakePool();
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  const uint64_t expected = ReferenceDigest(kSans, 0, 24, {}, kText);
  int destroyed = 0;
  Tag tag{&destroyed};
  std::thread([&] {
    FT_Face face, again;
    ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
    ASSERT_EQ(ftpool_font_acquire(font, &again), FTPOOL_OK); // held twice
    EXPECT_EQ(ftpool_font_set_instance_data(font, face, &tag, Tag::Destroy),
              FTPOOL_OK);
  }).join();
  uint64_t digest = 0;
  if (!RenderOnAnotherThread(font, &digest)) {
    // The lock is still held by the dead thread: nothing can free the pool.
    pool_ = nullptr;
    FAIL() << "an acquire after the holder's exit was still blocked after "
           << kDeadline.count() << " s";
  }
  EXPECT_EQ(digest, expected);
  EXPECT_EQ(Render(font), expected); // and again, on this thread
  // The give-back at exit keeps the instance and its data, as a give-back
  // would, and its bytes stay counted while the instance lives (per-thread:
  // the creator's instance and the exited context's, which the renderer
  // recycled).
  const bool per_thread = GetParam() == FTPOOL_BACKEND_PER_THREAD;
  const ftpool_stats s = Stats(pool_);
  EXPECT_EQ(s.font_instances, per_thread ? 2u : 1u);
  EXPECT_GT(s.font_instance_bytes, 0u);
  EXPECT_EQ(destroyed, 0);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  void *data = nullptr;
  EXPECT_EQ(ftpool_font_instance_data(font, face, &data), FTPOOL_OK);
  EXPECT_EQ(data, per_thread ? nullptr : &tag)
      << "per-thread: this thread's context is not the exited one's";
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_font_release(font);
  EXPECT_EQ(destroyed, 1);
  EXPECT_EQ(Stats(pool_).font_instances, 0u);
  EXPECT_EQ(Stats(pool_).font_instance_bytes, 0u);
}

// With no idle instance allowed, the give-back at exit evicts at once
// (per-thread backend; the shared-mutex backend has no budget).
TEST_P(FontExitTest, TheGiveBackAtExitKeepsTheBudget) {
  MakePool(FTPOOL_DEFAULT_FILE_CACHE_BYTES, 0);
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  int destroyed = 0;
  Tag tag{&destroyed};
  std::thread([&] {
    FT_Face face;
    ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
    EXPECT_EQ(ftpool_font_set_instance_data(font, face, &tag, Tag::Destroy),
              FTPOOL_OK);
  }).join();
  const bool per_thread = GetParam() == FTPOOL_BACKEND_PER_THREAD;
  EXPECT_EQ(destroyed, per_thread ? 1 : 0);
  EXPECT_EQ(Stats(pool_).font_instances, per_thread ? 0u : 1u);
  uint64_t digest = 0;
  if (!RenderOnAnotherThread(font, &digest)) {
    pool_ = nullptr;
    FAIL() << "an acquire after the holder's exit was still blocked after "
           << kDeadline.count() << " s";
  }
  EXPECT_EQ(digest, ReferenceDigest(kSans, 0, 24, {}, kText));
  ftpool_font_release(font);
  EXPECT_EQ(destroyed, 1);
}

// The thread that destroys the pool may still hold a font of it.
TEST_P(FontExitTest, DestroyWhileTheCallerHoldsAFont) {
  MakePool();
  ftpool_font *font = Font(Desc(kSans, 24));
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  ftpool_destroy(pool_); // nothing left for this thread's exit to touch
  pool_ = nullptr;
}

// Bug 4: with the file cache off, each font made from a path has its own
// blob, and faces were shared only by fonts with the same blob.
TEST_P(FontExitTest, SizesShareAFaceWithTheFileCacheOnAndOff) {
  for (size_t cache : {FTPOOL_DEFAULT_FILE_CACHE_BYTES, size_t{0}}) {
    SCOPED_TRACE(cache ? "file cache on" : "file cache off");
    MakePool(cache);
    const FT_UInt sizes[] = {12, 24, 48};
    std::vector<ftpool_font *> fonts;
    for (FT_UInt px : sizes)
      fonts.push_back(Font(Desc(kSans, px)));
    for (size_t i = 0; i < fonts.size(); i++) {
      ASSERT_NE(fonts[i], nullptr);
      EXPECT_EQ(Render(fonts[i]),
                ReferenceDigest(kSans, 0, sizes[i], {}, kText))
          << sizes[i] << " px";
    }
    const ftpool_stats s = Stats(pool_);
    EXPECT_EQ(s.font_instances, 3u);
    const bool per_thread = GetParam() == FTPOOL_BACKEND_PER_THREAD;
    EXPECT_EQ(s.font_faces, per_thread ? 1u : 3u);
    // The bytes: shared through the cache, one copy per font without it.
    const size_t file = ReadFile(kSans).size();
    EXPECT_EQ(s.blob_bytes_live, cache ? file : 3 * file);
    // A fourth font after the first is gone still finds the face.
    ftpool_font_release(fonts[0]);
    fonts[0] = Font(Desc(kSans, 36));
    EXPECT_EQ(Render(fonts[0]), ReferenceDigest(kSans, 0, 36, {}, kText));
    EXPECT_EQ(Stats(pool_).font_faces, per_thread ? 1u : 3u);
    for (ftpool_font *font : fonts)
      ftpool_font_release(font);
    EXPECT_EQ(Stats(pool_).font_faces, 0u);
    EXPECT_EQ(Stats(pool_).blob_bytes_live, cache ? file : 0u);
    ftpool_destroy(pool_);
    pool_ = nullptr;
    EXPECT_EQ(memory_.outstanding_bytes(), 0);
  }
}

// A changed file is other bytes: its fonts get a face of their own.
TEST_P(FontExitTest, AChangedFileIsNotSharedWithTheCacheOff) {
  MakePool(0);
  ScratchDir dir;
  const std::string path = dir.path() + "/font.ttf";
  ASSERT_TRUE(WriteBytes(path, ReadFile(kSans)));
  ftpool_font *before = Font(Desc(path.c_str(), 24));
  ASSERT_TRUE(ReplaceFile(path, ReadFile(kSerif)));
  ftpool_font *after = Font(Desc(path.c_str(), 12));
  ASSERT_NE(before, nullptr);
  ASSERT_NE(after, nullptr);
  EXPECT_EQ(Render(before), ReferenceDigest(kSans, 0, 24, {}, kText));
  EXPECT_EQ(Render(after), ReferenceDigest(kSerif, 0, 12, {}, kText));
  EXPECT_EQ(Stats(pool_).font_faces, 2u);
  ftpool_font_release(before);
  ftpool_font_release(after);
}

// Minor (a): a destructor run because other data replaced its data.
ftpool *reentrant_pool;
ftpool_font *reentrant_font;
ftpool_status reentrant_acquire, reentrant_create;

void AcquiresAndCreates(void *) {
  FT_Face face;
  reentrant_acquire = ftpool_font_acquire(reentrant_font, &face);
  if (reentrant_acquire == FTPOOL_OK)
    ftpool_font_give_back(reentrant_font, face);
  ftpool_font *made = nullptr;
  ftpool_font_desc desc = Desc(kMono, 24);
  reentrant_create = ftpool_font_create(reentrant_pool, &desc, &made);
  ftpool_font_release(made);
}

// A pool with reentrant_font in it, the statuses reset, and the font whose
// data runs AcquiresAndCreates (NULL if anything failed).
class ReentrantTest : public FontExitTest {
protected:
  ftpool_font *ReentrantSetUp() {
    MakePool();
    reentrant_pool = pool_;
    reentrant_font = Font(Desc(kSerif, 24));
    reentrant_acquire = reentrant_create = FTPOOL_OK;
    ftpool_font *font = Font(Desc(kSans, 24));
    return reentrant_font && font ? font : nullptr;
  }
};

TEST_P(ReentrantTest, AReplacedDataDestructorMayNotAcquireNorCreate) {
  ftpool_font *font = ReentrantSetUp();
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  ASSERT_EQ(
      ftpool_font_set_instance_data(font, face, nullptr, AcquiresAndCreates),
      FTPOOL_OK);
  ASSERT_EQ(ftpool_font_set_instance_data(font, face, nullptr, nullptr),
            FTPOOL_OK); // runs AcquiresAndCreates
  EXPECT_EQ(reentrant_acquire, FTPOOL_ERR_REENTRANT);
  EXPECT_EQ(reentrant_create, FTPOOL_ERR_REENTRANT);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  // Outside the destructor both work again.
  EXPECT_EQ(Render(reentrant_font), ReferenceDigest(kSerif, 0, 24, {}, kText));
  ftpool_font_release(font);
  ftpool_font_release(reentrant_font);
}

// The same from the destructor a font's last release runs, on both
// backends (font_test checks the per-thread one).
TEST_P(ReentrantTest, AReleasedDataDestructorMayNotAcquireNorCreate) {
  ftpool_font *font = ReentrantSetUp();
  ASSERT_NE(font, nullptr);
  FT_Face face;
  ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
  ASSERT_EQ(
      ftpool_font_set_instance_data(font, face, nullptr, AcquiresAndCreates),
      FTPOOL_OK);
  ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  ftpool_font_release(font);
  EXPECT_EQ(reentrant_acquire, FTPOOL_ERR_REENTRANT);
  EXPECT_EQ(reentrant_create, FTPOOL_ERR_REENTRANT);
  ftpool_font_release(reentrant_font);
}

// The same where the last release runs on another thread than the one whose
// context holds the instance: that thread exited, its context is FREE, and
// the releaser adopts it to drop the instance, running the destructor.
TEST_P(ReentrantTest, ADestructorOnAnAdoptedContextMayNotAcquireNorCreate) {
  ftpool_font *font = ReentrantSetUp();
  ASSERT_NE(font, nullptr);
  std::thread([&] {
    FT_Face face;
    ASSERT_EQ(ftpool_font_acquire(font, &face), FTPOOL_OK);
    ASSERT_EQ(
        ftpool_font_set_instance_data(font, face, nullptr, AcquiresAndCreates),
        FTPOOL_OK);
    ASSERT_EQ(ftpool_font_give_back(font, face), FTPOOL_OK);
  }).join();
  ftpool_font_release(font);
  EXPECT_EQ(reentrant_acquire, FTPOOL_ERR_REENTRANT);
  EXPECT_EQ(reentrant_create, FTPOOL_ERR_REENTRANT);
  if (GetParam() == FTPOOL_BACKEND_PER_THREAD) {
    EXPECT_EQ(Stats(pool_).contexts_adopted, 1u);
  }
  ftpool_font_release(reentrant_font);
}

INSTANTIATE_TEST_SUITE_P(Backends, FontExitTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);
INSTANTIATE_TEST_SUITE_P(Backends, ReentrantTest,
                         ::testing::Values(FTPOOL_BACKEND_PER_THREAD,
                                           FTPOOL_BACKEND_SHARED_MUTEX),
                         BackendName);

} // namespace
} // namespace ftpool_test
